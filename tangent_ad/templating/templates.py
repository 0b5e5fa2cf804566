"""Derivative templates: parse them once, bind a call to one, expand it.

A template is a function such as::

    def tanh(result, x):
        d[x] = d[result] * (1.0 - result * result)

Expanding it for ``h = np.tanh(z)`` substitutes ``z`` for ``x``, ``h`` for
``result`` and adjoint names for ``d[...]``, giving the statement
``bz = bh * (1.0 - h * h)``. A ``d[x]`` line whose argument is not active
(a constant, or a value that does not depend on the inputs of interest) is
left out.

Forward-mode templates assign ``d[result]`` once, from the tangents
``d[x]`` of the arguments::

    def mul(result, a, b):
        d[result] = d[a] * b + a * d[b]

The right-hand side must be linear in the tangents it reads (each term
holds one tangent, reached only through linear operations). An argument
without a tangent (a constant, or a value that does not vary) has a
*symbolic zero* tangent, which is never written out: a term holding only
zero tangents is left out of its sum (``t = x * 2.0`` gets
``dt = dx * 2.0``), and an operation all of whose tangents are zero is
zero. A zero is written out only where an operation mixes it with a real
tangent (``np.where(c, dx, zeros_like(y))``): a Python number becomes
``0.0`` and anything else ``zeros_like(value)``. When every tangent is
zero, or the rule reads no tangent at all (``d[result] = 0.0``, a zero
derivative), the result gets no tangent rule. ``forward_templates`` does
this expansion; binding a call to a template (``binding.py``) is shared with
reverse mode.
"""
import builtins
import functools
import inspect
import textwrap

import gast

from tangent_ad import texts
from tangent_ad.errors import InternalError, TemplateError
from tangent_ad.frontend import source_lines, to_gast
from tangent_ad.nodes import SHARED, call, clone, name, walk
from tangent_ad.templating.signatures import signature_of
from tangent_ad.visitors import Transformer

NO_DEFAULT = object()  # in `parse`'s defaults: the parameter has none


@functools.lru_cache(maxsize=None)
def parse(template):
    """(parameter names, defaults, body) of `template`, parsed once; a
    rule built as a tree (``second_order``) is read from its tree."""
    fdef = getattr(template, "__tangent_ad_tree__", None) or _parsed(template)
    params = [a.id for a in fdef.args.args]
    defaults = [NO_DEFAULT] * (len(params) - len(fdef.args.defaults)) + \
        list(fdef.args.defaults)
    return tuple(params), tuple(defaults), tuple(fdef.body)


def _parsed(template):
    """The FunctionDef of `template`'s source: a rule table's row, or its
    lines as ``inspect`` finds them."""
    kept = texts.function_lines(template)  # a rule table's row (``rule_table``)
    found = source_lines.read(template) if kept is None else None
    if found is not None:  # (its lines are inspect's, its tree that of their text)
        return to_gast.convert(found.tree).body[0]
    text = "".join(kept[0]) if kept is not None else inspect.getsource(template)
    return to_gast.parse(textwrap.dedent(text)).body[0]


def expand(template, bound, result, adjoint_of, fresh, omitted=()):
    """Instantiate `template` for one call.

    `bound` maps parameters to atoms, `result` is the Name the call was
    assigned to, `adjoint_of(atom)` gives the adjoint name of an active
    atom (None for an inactive one) and `fresh(base)` gives a new name for
    a template temporary. `omitted` names the parameters the call left at
    their defaults: they are left out of the template's calls where they
    can be (see `mark_defaults`), as in forward mode. Returns a list of
    ``(target, expression)``: target is ``("adjoint", var)`` for a
    contribution to the adjoint of the variable ``var``, or
    ``("local", name)`` for a temporary.
    """
    _, _, body = parse(template)
    env, defaults = mark_defaults(dict(bound, result=result), omitted)
    namespace = getattr(template, "__globals__", {})
    renames = {}
    out = []
    for stmt in body:
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
            continue  # the template's docstring
        if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
            raise InternalError(f"template {template.__name__}: only "
                                "assignments are allowed")
        target = stmt.targets[0]
        if _is_d(target):
            atom = bound.get(target.slice.id, result if target.slice.id == "result" else None)
            if atom is None:
                raise InternalError(f"template {template.__name__}: d[{target.slice.id}] "
                                    "names no parameter")
            if adjoint_of(atom) is None:
                continue
            out.append((("adjoint", atom.id), drop_defaults(
                _substitute(stmt.value, env, renames, adjoint_of), defaults, namespace)))
        else:
            value = drop_defaults(_substitute(stmt.value, env, renames, adjoint_of),
                                  defaults, namespace)
            renames[target.id] = fresh(target.id)
            out.append((("local", renames[target.id]), value))
    return out


def mark_defaults(env, omitted):
    """`env` with each omitted parameter bound to a marker name, and
    ``{marker: default}``: `drop_defaults` then leaves the marker out of
    calls whose function has the same default there, so
    ``np.reshape(d[result], np.shape(a), order=order)`` reads
    ``np.reshape(bt, np.shape(a))`` when the call did not pass `order`.
    Both modes expand defaults this way."""
    env, defaults = dict(env), {}
    for param in omitted:
        marker = f"__tangent_ad_default_{param}__"
        defaults[marker], env[param] = env[param], name(marker)
    return env, defaults


def drop_defaults(expr, defaults, namespace):
    """`expr` with a defaulted argument left out of a call (a keyword, or
    a trailing positional one) where the function called, looked up in
    the template's `namespace`, has the same default for that parameter;
    everywhere else the default value is written out."""
    return _DropDefaults(defaults, namespace).visit(expr) if defaults else expr


class _DropDefaults(Transformer):

    def __init__(self, defaults, namespace):
        self.defaults = defaults
        self.namespace = namespace

    def is_default(self, node):
        return isinstance(node, gast.Name) and node.id in self.defaults

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id == "zeros_like" and \
                len(node.args) == 1 and self.is_default(node.args[0]):
            # the zero tangent of a defaulted argument: the zero of its default
            return zero_value(self.defaults[node.args[0].id])
        parameters = self.parameters(node.func)
        node.keywords = [k for k in node.keywords if not (
            self.is_default(k.value) and self.same(parameters.get(k.arg), k.value))]
        positional = [p for p in parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        while node.args and self.is_default(node.args[-1]) and \
                len(node.args) <= len(positional) and \
                self.same(positional[len(node.args) - 1], node.args[-1]):
            node.args.pop()
        return self.generic_visit(node)

    def parameters(self, func):
        """The parameters of the function `func` names, or {} if unknown."""
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name):
            return {}
        value = self.namespace.get(func.id, getattr(builtins, func.id, None))
        for attr in reversed(path):
            value = getattr(value, attr, None)
        signature = signature_of(value) if value is not None else None
        return dict(signature.parameters) if signature is not None else {}

    def same(self, parameter, marker):
        """Whether `parameter` defaults to the value the marker stands for
        (NumPy's ``_NoValue`` default is its way of writing its own default)."""
        if parameter is None or parameter.default is parameter.empty:
            return False
        default = self.defaults[marker.id]
        if not isinstance(default, gast.Constant):
            return False
        if repr(parameter.default) == "<no value>":
            return True
        return type(parameter.default) is type(default.value) and \
            parameter.default == default.value

    def visit_Name(self, node):
        if self.is_default(node):
            return clone(self.defaults[node.id])
        return node


def _is_d(node):
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
        and node.value.id == "d" and isinstance(node.slice, gast.Name)


def _substitute(expr, env, renames, adjoint_of):
    """A copy of the template expression `expr` with ``d[x]`` replaced by
    adjoint names, temporaries renamed and parameters replaced by (copies
    of) the atoms bound to them: copying and substituting in one walk."""
    if isinstance(expr, list):
        return [_substitute(item, env, renames, adjoint_of) for item in expr]
    if not isinstance(expr, gast.AST):
        return expr
    if type(expr) is gast.Name:
        if expr.id in renames:
            return name(renames[expr.id])
        if expr.id in env:
            return clone(env[expr.id])
        return clone(expr)
    if _is_d(expr):
        adjoint = adjoint_of(env[expr.slice.id])
        if adjoint is None:
            raise InternalError("a template reads the adjoint of an inactive value")
        return name(adjoint)
    shared = SHARED.get(expr.__class__)
    if shared is not None:
        return shared
    new = expr.__class__.__new__(expr.__class__)
    for field in expr._fields:
        setattr(new, field, _substitute(getattr(expr, field, None), env, renames, adjoint_of))
    for attribute in expr._attributes:
        if hasattr(expr, attribute):
            setattr(new, attribute, getattr(expr, attribute))
    return new


def check(template, func, mode):
    """Reject a malformed template at registration, with a clear message:
    its parameters must be ``result`` and parameters of `func`, its body
    ``d[x] = ...`` lines (and temporaries), and every other name it uses
    must exist where it was defined."""
    label = getattr(template, "__name__", repr(template))
    try:
        params, _, body = parse(template)
    except (OSError, TypeError, SyntaxError, IndexError) as exc:
        raise TemplateError(f"cannot read the source of template {label}: {exc}") from None
    if not params or params[0] != "result":
        raise TemplateError(f"template {label}: the first parameter must be 'result'")
    _check_parameters(label, params[1:], func)
    local = set(params) | {"d"}
    for stmt in body:
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
            continue
        if not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1:
            raise TemplateError(f"template {label}: only assignments such as "
                                "'d[x] = ...' are allowed")
        target = stmt.targets[0]
        if _is_d(target):
            wanted = "result" if mode == "forward" else None
            if target.slice.id not in params or (wanted and target.slice.id != wanted) \
                    or (mode == "reverse" and target.slice.id == "result"):
                raise TemplateError(
                    f"template {label}: cannot assign d[{target.slice.id}] in "
                    f"a {mode}-mode rule")
        elif isinstance(target, gast.Name):
            local.add(target.id)
        else:
            raise TemplateError(f"template {label}: assign to d[x] or to a name")
        for node in walk(stmt.value):
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                    and node.value.id == "d" and not (
                        isinstance(node.slice, gast.Name) and node.slice.id in params):
                raise TemplateError(f"template {label}: d[...] must name a parameter")
    known = set(getattr(template, "__globals__", {})) | set(dir(builtins))
    for node in walk(gast.Module(body=list(body), type_ignores=[])):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) \
                and node.id not in local and node.id not in known:
            raise TemplateError(f"template {label}: unknown name '{node.id}'")


@functools.lru_cache(maxsize=None)
def free_names(template):
    """The global names a template's body and defaults read (to load with
    the code; a call that leaves out a parameter gets its default)."""
    params, defaults, body = parse(template)
    stores = {n.id for s in body for n in walk(s)
              if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    nodes = list(body) + [e for e in defaults if e is not NO_DEFAULT]
    return {n.id for s in nodes for n in walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)} \
        - set(params) - stores - {"d"}


def _check_parameters(label, params, func):
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return
    names = set(signature.parameters)
    if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        return
    for param in params:
        if param not in names:
            raise TemplateError(
                f"template {label}: '{param}' is not a parameter of "
                f"{getattr(func, '__qualname__', func)} (its parameters: "
                f"{', '.join(signature.parameters)})")


def operands(value):
    """(positional arguments, keywords) of a core operation, as a template
    binds them; an index becomes an ordinary expression (``slice(1, 3)``)."""
    if isinstance(value, gast.BinOp):
        return [value.left, value.right], []
    if isinstance(value, gast.UnaryOp):
        return [value.operand], []
    if isinstance(value, gast.Subscript):
        return [value.value, index_expression(value.slice)], []
    return value.args, value.keywords


def index_expression(index):
    """An index as an ordinary expression: ``1:3`` becomes ``slice(1, 3, None)``."""
    if isinstance(index, gast.Slice):
        return call("slice", *[part if part is not None else gast.Constant(value=None, kind=None)
                               for part in (index.lower, index.upper, index.step)])
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[index_expression(e) for e in index.elts], ctx=gast.Load())
    return index


def load_globals(template, namespace):
    """Add the globals a (user) template reads to the generated code's
    namespace, so a rule may use helpers from its own module."""
    for free in free_names(template):
        if free in template.__globals__:
            namespace.setdefault(free, template.__globals__[free])


def zero_value(atom):
    """The zero tangent of `atom`, written out: ``0.0`` for a number,
    ``None`` for another constant (a string has no tangent), else
    ``zeros_like(atom)``."""
    if isinstance(atom, gast.Constant):
        number = isinstance(atom.value, (int, float, complex)) and \
            not isinstance(atom.value, bool)
        return gast.Constant(value=0.0 if number else None, kind=None)
    return gast.Call(func=gast.Name(id="zeros_like", ctx=gast.Load(), annotation=None,
                                    type_comment=None),
                     args=[clone(atom)], keywords=[])
