"""Small constructors and queries for gast nodes, shared by the passes.

Passes build many tiny statements (``bx = ...``, ``stack.append(x)``);
these helpers keep that code readable and the node shapes consistent.
"""

import gast

from tangent_ad.naming import COMMENT_MARKER

_AST = gast.AST

STACK = "stack"

# Contexts and operators have no fields and no place: one instance of each
# class serves every tree (a derivative keeps thousands of them alive, a
# fifth of its objects, and every copy made more).
SHARED = {cls: cls() for cls in (
    gast.Load, gast.Store, gast.Del, gast.Param,
    gast.Add, gast.Sub, gast.Mult, gast.MatMult, gast.Div, gast.Mod, gast.Pow, gast.LShift,
    gast.RShift, gast.BitOr, gast.BitXor, gast.BitAnd, gast.FloorDiv,
    gast.Invert, gast.Not, gast.UAdd, gast.USub, gast.And, gast.Or,
    gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE, gast.Is, gast.IsNot, gast.In,
    gast.NotIn)}
_LOAD, _STORE = SHARED[gast.Load], SHARED[gast.Store]


def name(identifier, store=False):
    """A Name node, loaded or stored."""
    return gast.Name(id=identifier, ctx=_STORE if store else _LOAD,
                     annotation=None, type_comment=None)


def assign(target, value):
    """``target = value`` for a target name (or a target node: ``a[i]``,
    ``a, b``)."""
    target = name(target, store=True) if isinstance(target, str) else target
    return gast.Assign(targets=[target], value=value, type_comment=None)


def const(value):
    return gast.Constant(value=value, kind=None)


def located(node, where):
    """`node` and every node inside it at the location of `where` (a
    rewrite's new nodes point at the user's code they stand for)."""
    for sub in walk(node):
        if "lineno" not in sub._attributes:
            continue  # an operator: no place, and shared (`SHARED`)
        gast.copy_location(sub, where)
        sub.end_lineno = getattr(where, "end_lineno", None)
        sub.end_col_offset = getattr(where, "end_col_offset", None)
    return node


def call(func, *args):
    """``func(*args)``; `func` is a name or a dotted path such as 'np.sum'."""
    parts = func.split(".")
    node = name(parts[0])
    for part in parts[1:]:
        node = gast.Attribute(value=node, attr=part, ctx=gast.Load())
    return gast.Call(func=node, args=list(args), keywords=[])


def comment(text):
    """A statement that the emitter prints as ``# text``."""
    return gast.Expr(value=call(COMMENT_MARKER, const(text)))


def push(value):
    """``stack.append(value)``."""
    return gast.Expr(value=call(f"{STACK}.append", value))


def pop():
    """The expression ``stack.pop()``."""
    return call(f"{STACK}.pop")


def is_pop(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "pop" and isinstance(node.func.value, gast.Name) \
        and node.func.value.id == STACK


def is_push(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
        and isinstance(stmt.value.func, gast.Attribute) \
        and stmt.value.func.attr == "append" \
        and isinstance(stmt.value.func.value, gast.Name) \
        and stmt.value.func.value.id == STACK


def is_comment(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
        and isinstance(stmt.value.func, gast.Name) \
        and stmt.value.func.id == COMMENT_MARKER


def reads(node):
    """Names read anywhere inside `node`."""
    return _names(node, (gast.Load,))


def writes(node):
    """Names bound anywhere inside `node` (targets and parameters)."""
    return _names(node, (gast.Store, gast.Param))


def statements(tree):
    """Every statement inside `tree` (nested blocks included), in order,
    as a list (a plain recursion: a chain of generators cost a resumption
    per statement and level)."""
    found = []
    _add_statements(tree, found)
    return found


def blocks(tree):
    """Every list of statements inside `tree` (a body, an ``else``, a
    ``finally``), nested ones included: where a pass replaces statements."""
    for node in walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                yield block


def _add_statements(node, found):
    """Append the statements inside `node` to `found`, each before its own.
    A module function, not a closure: a closure that calls itself is a
    reference cycle, which only the collector frees, and it is paused
    while code is written (``collector``)."""
    for field in BLOCKS:
        for stmt in getattr(node, field, None) or ():
            if isinstance(stmt, gast.stmt):
                found.append(stmt)
                _add_statements(stmt, found)


def walk(node):
    """Every node inside `node` but the ``ctx`` markers (see `children`),
    itself included, in the order of ``gast.walk`` (breadth first), one
    level at a time, each node's children taken before it is seen. Without
    gast.walk's two nested generators per node it is several times faster,
    and it is the most called function of a transformation: `children` is
    written out in the loop, which saves a call per node (1.5 % of the
    instructions of a transformation of the 199-line function)."""
    level, fields_of = [node], _CHILD_FIELDS
    while level:
        below = []
        add = below.append
        for node in level:
            cls = node.__class__
            fields = fields_of.get(cls)
            if fields is None:
                fields = child_fields(cls)
            values = node.__dict__
            for field in fields:
                value = values.get(field)
                if value.__class__ is list:
                    for item in value:
                        if isinstance(item, _AST):
                            add(item)
                elif isinstance(value, _AST):
                    add(value)
            yield node
        level = below


SAVE_SITE = "save_site"  # the attribute a push or a restore declares its site in (``saves``)
# What a copy keeps besides the fields: the location, and the save site.
_CARRIED = ("lineno", "col_offset", "end_lineno", "end_col_offset", SAVE_SITE)
BLOCKS = ("body", "orelse")  # the fields of a statement that hold statements


def copy_tree(node):
    """A copy of the gast tree `node` (nodes and lists new; the leaves'
    strings and constants shared), several times faster than
    ``copy.deepcopy``, which also copies each field's value and keeps a
    memo of every object."""
    if node.__class__ is list:
        return [copy_tree(item) for item in node]
    if not isinstance(node, gast.AST):
        return node
    shared = SHARED.get(node.__class__)
    if shared is not None:
        return shared
    copied = node.__class__.__new__(node.__class__)
    for field in node._fields:
        value = getattr(node, field, None)
        if value.__class__ is list:
            setattr(copied, field, [copy_tree(v) if isinstance(v, gast.AST) else v
                                    for v in value])
        elif isinstance(value, gast.AST):
            setattr(copied, field, copy_tree(value))
        else:
            setattr(copied, field, value)
    for attr in _CARRIED:
        if attr in node.__dict__:
            setattr(copied, attr, node.__dict__[attr])
    return copied


# Fields that never hold a node worth visiting: names and flags, and a
# name's load/store/param marker (a node, but one no pass looks for; a
# third of a tree's nodes are these markers).
_LEAF_FIELDS = frozenset(("ctx", "id", "attr", "arg", "kind", "type_comment", "level",
                          "module", "conversion", "simple", "is_async"))
_CHILD_FIELDS = {}  # node class -> the fields `children` reads


def child_fields(cls):
    """The fields of the node class `cls` that may hold nodes (all but
    names, flags and ``ctx``), in their order."""
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
    return fields


def children(node):
    """The nodes directly inside `node`, in field order (as
    ``gast.iter_child_nodes`` gives them, as a list), leaving out the
    ``ctx`` markers (``gast.Load()``, ``gast.Store()``, ...)."""
    cls = node.__class__
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = child_fields(cls)
    found = []
    add = found.append
    values = node.__dict__
    for field in fields:
        value = values.get(field)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, _AST):
                    add(item)
        elif isinstance(value, _AST):
            add(value)
    return found


def fix_locations(tree):
    """`tree` (in place) with the line and column of every node that has
    none taken from its parent, as ``gast.fix_missing_locations`` does, with
    the same result: a stack instead of a recursion with a generator per
    node (ten of the stages end with it). A node that has its place, as
    most have, gives it to its children without a look at each field, and
    the children are found in the loop, not by a call per node."""
    todo = [(tree, (1, 0, 1, 0))]
    pop, push, missing, fields_of = todo.pop, todo.append, _MISSING_LOCATION, _CHILD_FIELDS
    while todo:
        node, place = pop()
        attributes = node._attributes
        values = node.__dict__
        if attributes == _PLACE_FIELDS and "lineno" in values and "col_offset" in values \
                and "end_lineno" in values and "end_col_offset" in values:
            place = (values["lineno"], values["col_offset"], values["end_lineno"],
                     values["end_col_offset"])
        elif attributes:
            place = list(place)
            for i, field in enumerate(_PLACE_FIELDS):
                if field in attributes:
                    value = getattr(node, field, missing)
                    if value is missing:
                        setattr(node, field, place[i])
                    else:
                        place[i] = value
        cls = node.__class__
        fields = fields_of.get(cls)
        if fields is None:
            fields = child_fields(cls)
        for field in fields:
            value = values.get(field)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, _AST):
                        push((item, place))
            elif isinstance(value, _AST):
                push((value, place))
    return tree


_PLACE_FIELDS = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_MISSING_LOCATION = object()


def _names(node, contexts):
    return {n.id for n in name_nodes(node) if isinstance(n.ctx, contexts)}


def name_nodes(node):
    """Every Name node inside `node` (a node or a list of them), in no
    particular order (`reads`, `writes`: every statement of every pass)."""
    return find_all(node, _NAME)


def find_all(node, cls):
    """Every node of class `cls` inside `node` (a node or a list of them),
    `node` included, in no particular order: a plain stack walk over the
    fields that may hold nodes (`child_fields`), several times faster than
    gast.walk. A Name has nothing inside to look at."""
    found = []
    todo = [node]
    pop, push, extend, add, fields_of = todo.pop, todo.append, todo.extend, found.append, \
        _CHILD_FIELDS
    while todo:
        current = pop()
        kind = current.__class__
        if kind is cls:
            add(current)
            if kind is _NAME:
                continue
        elif kind is _NAME:
            continue
        if kind is list:
            extend(current)
            continue
        if not isinstance(current, _AST):  # the names of a `nonlocal` or `global`
            continue
        fields = fields_of.get(kind)
        if fields is None:
            fields = child_fields(kind)
        values = current.__dict__
        for field in fields:
            value = values.get(field)
            if value is not None:
                push(value)
    return found


_NAME = gast.Name


def clone(node):
    """A deep copy of a gast tree, several times faster than copy.deepcopy
    (which the passes would otherwise call for every template expansion)."""
    if isinstance(node, list):
        return [clone(item) for item in node]
    if not isinstance(node, gast.AST):
        return node
    shared = SHARED.get(node.__class__)
    if shared is not None:
        return shared
    new = node.__class__.__new__(node.__class__)
    for field in node._fields:
        setattr(new, field, clone(getattr(node, field, None)))
    for attribute in node._attributes:
        if hasattr(node, attribute):
            setattr(new, attribute, getattr(node, attribute))
    if SAVE_SITE in node.__dict__:
        setattr(new, SAVE_SITE, node.__dict__[SAVE_SITE])
    return new


def call_name(node):
    """'f' for ``f(...)``, 'np.sum' for ``np.sum(...)``; None otherwise."""
    if not isinstance(node, gast.Call):
        return None
    func = node.func
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        return f"{func.value.id}.{func.attr}"
    return None
