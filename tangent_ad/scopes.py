"""Python's scoping rules on generated code, and its live reads of globals.

`free_names` lists the names a module of generated functions reads that no
scope reading them binds: what its namespace must provide. `read_live`
rewrites the reads of the user's *data* globals (arrays, numbers) into
look-ups in the module's dict (``__tad_live__['X']``), so a derivative sees
the value a global has when it runs, as the user's function does. The text
a user reads (``show_source``, tracebacks, pdb's listing) keeps ``X``; only
the compiled tree reads through the dict.
"""
import ast

from tangent_ad.live import LIVE_KEY

_SCOPES = (ast.FunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def free_names(tree, loads=None):
    """Names the module `tree` reads that none of the scopes reading them
    binds (Python's rules: a function's parameters and assigned names are
    its own; nested functions see their enclosing function's). A name
    bound in one generated function is still free in another that reads it.
    `loads` is `function_loads(tree)`, when the caller has it already."""
    module_level = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    module_level |= {t.id for n in tree.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name)}
    loads = function_loads(tree) if loads is None else loads
    at_top, _ = _scope_nodes(tree)  # (the functions' defaults are read here)
    found = {n.id for n in at_top if type(n) is ast.Name and type(n.ctx) is ast.Load}
    for reads in loads.values():
        found.update(n.id for n in reads)
    return sorted(found - module_level)


def function_loads(tree):
    """{name of each function defined at the top of the module `tree`: the
    Name loads in it (and the functions nested in it) that it does not
    bind}: what `free_names`, `read_live` and a loader's bookkeeping all
    start from, found in one walk of each function."""
    return {f.name: _free_loads(f, frozenset()) for f in tree.body
            if isinstance(f, ast.FunctionDef)}


def _scope_nodes(scope):
    """The names and function definitions evaluated in `scope` itself (all
    that `_bound` and the free loads look at), and the scopes nested in it
    (whose defaults and decorators belong to `scope`)."""
    nodes, nested = [], []
    if isinstance(scope, ast.FunctionDef):
        todo = list(scope.body)
    elif isinstance(scope, ast.Lambda):
        todo = [scope.body]
    elif isinstance(scope, _SCOPES):  # a comprehension
        todo = [g for g in scope.generators]
        todo += [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
    else:
        todo = list(scope.body)
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        node = pop()
        cls = node.__class__
        if cls is ast.Name:
            nodes.append(node)
            continue
        if cls is list:
            extend(node)
            continue
        if cls in _SCOPE_CLASSES:
            nested.append(node)
            if cls is ast.FunctionDef:
                nodes.append(node)
            if cls is ast.FunctionDef or cls is ast.Lambda:
                extend(node.args.defaults + [d for d in node.args.kw_defaults if d])
                extend(getattr(node, "decorator_list", []))
            continue
        if not isinstance(node, ast.AST):
            continue
        fields = _FIELDS.get(cls)
        if fields is None:
            fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
        values = node.__dict__
        for field in fields:
            value = values.get(field)
            if value is not None:
                push(value)
    return nodes, nested


_SCOPE_CLASSES = frozenset(_SCOPES)
# fields that hold no node worth a look: strings, flags, a name's context
_LEAF_FIELDS = frozenset(("ctx", "id", "attr", "arg", "kind", "type_comment", "level",
                          "module", "conversion", "simple", "is_async", "name", "names"))
_FIELDS = {}  # node class -> the fields `_scope_nodes` reads


def _bound(scope, nodes):
    """The names local to `scope`: parameters, assigned names and the
    names of the functions defined in it."""
    names = set()
    if isinstance(scope, (ast.FunctionDef, ast.Lambda)):
        args = scope.args
        names.update(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)
        names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    for node in nodes:
        if type(node) is ast.Name and type(node.ctx) is not ast.Load:
            names.add(node.id)
        elif type(node) is ast.FunctionDef:
            names.add(node.name)
    if isinstance(scope, ast.Module):
        return set()  # module-level names are handled by the caller
    return names


def live_key(group):
    """The name under which a namespace holds the module dict of the
    `group`-th module a unit's functions come from (0: the requested
    function's)."""
    return LIVE_KEY if group == 0 else f"__tad_live_{group}__"


def read_live(tree, live_names_of, loads=None):
    """Rewrite, in the Module `tree`, every free read of a name in
    ``live_names_of(function_name)`` (for each top-level function; a
    ``(key, names)`` pair) into ``key['name']``. Returns `tree`. `loads` is
    `function_loads(tree)`, when the caller has it already."""
    loads = function_loads(tree) if loads is None else loads
    for fdef in tree.body:
        if not isinstance(fdef, ast.FunctionDef):
            continue
        key, names = live_names_of(fdef.name)
        if not names:
            continue
        reads = {id(n) for n in loads[fdef.name] if n.id in names}
        if reads:
            _LiveReads(key, reads).visit(fdef)
    return tree


def _free_loads(scope, outer):
    """The Name loads under `scope` that no enclosing scope binds."""
    found, todo = [], [(scope, outer)]
    while todo:
        scope, outer = todo.pop()
        body, nested = _scope_nodes(scope)
        visible = outer | _bound(scope, body)
        found += [n for n in body if type(n) is ast.Name and type(n.ctx) is ast.Load
                  and n.id not in visible]
        todo.extend((inner, visible) for inner in nested)
    return found


class _LiveReads(ast.NodeTransformer):
    def __init__(self, key, reads):
        self.key, self.reads = key, reads

    def visit_Name(self, node):
        if id(node) not in self.reads:
            return node
        # every new node on the read's place: no walk of the tree to fill places
        return ast.copy_location(ast.Subscript(
            value=ast.copy_location(ast.Name(id=self.key, ctx=ast.Load()), node),
            slice=ast.copy_location(ast.Constant(value=node.id), node), ctx=ast.Load()), node)
