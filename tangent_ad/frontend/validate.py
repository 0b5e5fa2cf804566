"""Validate stage: refuse unsupported constructs up front, at the first one.

Later passes may assume the tree uses only the constructs accepted here, so
they never have to invent an error message deep inside a transformation.
Each refusal names the construct, points at it, and says what to do.
"""
import gast

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend import introspection, mutation

_BINOPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.MatMult,
           gast.Mod, gast.FloorDiv)
_UNARY = (gast.USub, gast.UAdd)

_STATEMENT_HINTS = {
    gast.With: "only 'with tad.insert_grad_code(x) as dx:' blocks are supported",
    gast.Try: "try/except cannot be differentiated; move error handling "
              "outside the differentiated function",
    gast.AsyncFunctionDef: "async functions cannot be differentiated",
    gast.ClassDef: "define classes at module level",
    gast.Global: "'global' is not supported",
    gast.Nonlocal: "'nonlocal' is not supported",
    gast.Delete: "'del' is not supported",
    gast.Raise: "a bare 'raise' re-raises an exception being handled, and try/except "
                "is not supported",
    gast.Import: "move imports to module level",
    gast.ImportFrom: "move imports to module level",
}


def run(tree, ctx):
    """Check the FunctionDef `tree`; return it unchanged or raise.

    Accepted: positional parameters (with defaults), assignments to names,
    `+=`-style updates, arithmetic, calls, attribute reads, comparisons,
    conditional expressions, `if`/`elif`/`else`, `for` and `while` loops
    with `break` and `continue`, and `return` (early ones included) as
    long as every path ends in one. Refused before the syntax is looked
    at: code the source does not show or identity tests (``introspection``)
    and in-place writes another name would see (``mutation``).
    """
    introspection.check(tree, ctx)
    mutation.check(tree, ctx, callee=ctx.callee)
    return _check_function(tree, ctx)


def _check_function(tree, ctx):
    _check_arguments(tree, ctx)
    body = tree.body
    if body and _is_docstring(body[0]):
        body = body[1:]
    _check_block(body, ctx)
    if not _always_returns(body):
        last = body[-1] if body else tree
        raise UnsupportedSyntaxError(
            "every path through the function must end with "
            "'return <expression>'",
            hint="the derivative is taken of the returned value",
            **ctx.where(last))
    return tree


def _always_returns(block):
    if not block:
        return False
    last = block[-1]
    if isinstance(last, gast.Return) or (isinstance(last, gast.Raise) and last.exc is not None):
        return True  # a path that raises returns nothing to differentiate
    if isinstance(last, gast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def _check_block(block, ctx):
    for stmt in block:
        _check_statement(stmt, ctx)


def _is_docstring(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) \
        and isinstance(stmt.value.value, str)


def _refuse(node, ctx, message, hint=None):
    raise UnsupportedSyntaxError(message, hint=hint, **ctx.where(node))


def _check_arguments(tree, ctx):
    # the transforms differentiate a function with *args or keyword-only
    # parameters call by call (tangent_ad/variadic.py), through a plain
    # function that calls it: what reaches this point is **kwargs, or a
    # derivative for every call (the CLI's file)
    args = tree.args
    if args.kwarg:
        _refuse(tree, ctx, "**kwargs parameters are not supported in the function given "
                "to a transform", "list the keyword parameters explicitly, or "
                "differentiate a function that calls this one with the keywords it needs "
                "(*args and keyword-only parameters are supported)")
    if args.vararg or args.kwonlyargs:
        what = "*args" if args.vararg else "keyword-only"
        _refuse(tree, ctx, f"{what} parameters are not supported in a derivative written "
                "for every call (tangent_ad.grad and the other transforms take them, "
                "differentiating the function call by call)",
                "list the parameters explicitly")


def _check_statement(stmt, ctx):
    if isinstance(stmt, gast.Return):
        if stmt.value is None:
            _refuse(stmt, ctx, "'return' without a value", "return the value "
                    "to differentiate")
        _check_expr(stmt.value, ctx)
    elif isinstance(stmt, gast.Assign):
        if len(stmt.targets) != 1 and isinstance(stmt.value, gast.Lambda):
            _refuse(stmt, ctx, "a lambda assigned to several names 'f = g = lambda "
                    "...' is not supported", "assign it to one name, then 'g = f'")
        for target in stmt.targets:  # `a = b = v`: normalize assigns v to each
            if _is_item_target(target):
                _check_index(target.slice, ctx)
            elif not _is_unpacking_target(target):
                _refuse(stmt, ctx, "only assignments to names, tuples of names and "
                        "items of a named array, list or dict are supported",
                        "assign to a name first")
        _check_expr(stmt.value, ctx)
    elif isinstance(stmt, gast.AugAssign):
        if not isinstance(stmt.target, gast.Name) and not _is_item_target(stmt.target):
            _refuse(stmt, ctx, "only updates of a name or of an item of a "
                    "named array are supported")
        _check_op(stmt.op, stmt, ctx)
        _check_expr(stmt.value, ctx)
    elif isinstance(stmt, gast.AnnAssign):
        if stmt.value is None or not isinstance(stmt.target, gast.Name):
            _refuse(stmt, ctx, "bare annotations are not supported")
        _check_expr(stmt.value, ctx)
    elif isinstance(stmt, gast.If):
        _check_test(stmt.test, ctx)
        _check_block(stmt.body, ctx)
        _check_block(stmt.orelse, ctx)
    elif isinstance(stmt, (gast.For, gast.While)):
        _check_block(stmt.orelse, ctx)  # normalize: `if not <broke>: ...` after it
        if isinstance(stmt, gast.For):
            _check_loop_target(stmt.target, stmt, ctx)
            _check_test(stmt.iter, ctx)
        else:
            _check_test(stmt.test, ctx)
        _check_block(stmt.body, ctx)
    elif _is_hook(stmt):
        for inner in stmt.body:
            if isinstance(inner, (gast.Return, gast.Break, gast.Continue, gast.With,
                                  gast.FunctionDef, gast.While)):
                _refuse(inner, ctx, "this statement cannot appear inside "
                        "insert_grad_code", "the block runs in the backward pass: "
                        "keep it to assignments, calls and branches")
    elif isinstance(stmt, gast.FunctionDef):
        if stmt.decorator_list:
            _refuse(stmt, ctx, "decorators on nested functions are not supported")
        _check_function(stmt, ctx)
    elif isinstance(stmt, (gast.Pass, gast.Break, gast.Continue)) or _is_docstring(stmt):
        pass
    elif _is_append(stmt):
        _check_expr(stmt.value.args[0], ctx)
    elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
        # a call for its effect (print, logging) runs as written in the forward
        # sweep and is never differentiated, so its arguments may be anything
        if not isinstance(stmt.value.func, (gast.Name, gast.Attribute)):
            _refuse(stmt, ctx, "only calls of a named function are supported")
        for kw in stmt.value.keywords:
            _check_out(kw, stmt.value, ctx)
    elif isinstance(stmt, gast.Assert):
        pass  # checked in the forward sweep, as written
    elif isinstance(stmt, gast.Raise) and stmt.exc is not None:
        pass  # raised in the forward sweep, as written: no derivative is needed
    elif isinstance(stmt, gast.Expr):
        _refuse(stmt, ctx, "an expression whose value is discarded is not "
                "supported", "assign the value to a name or remove the line")
    else:
        hint = _STATEMENT_HINTS.get(type(stmt))
        _refuse(stmt, ctx, f"'{_describe(stmt)}' statements are not supported",
                hint)


def _check_index(node, ctx):
    if isinstance(node, gast.Slice):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                _check_expr(part, ctx)
    elif isinstance(node, (gast.Tuple, gast.List)):  # lists: fancy indexing
        for item in node.elts:
            _check_index(item, ctx)
    else:
        _check_expr(node, ctx)


def _is_hook(stmt):
    """``with <...>insert_grad_code(x) [as dx]:`` (checked by name here,
    by object in the resolver)."""
    if not isinstance(stmt, gast.With) or len(stmt.items) != 1:
        return False
    item = stmt.items[0]
    call = item.context_expr
    func = call.func if isinstance(call, gast.Call) else None
    named = isinstance(func, gast.Name) and func.id == "insert_grad_code" or \
        isinstance(func, gast.Attribute) and func.attr == "insert_grad_code"
    return named and len(call.args) == 1 and isinstance(call.args[0], gast.Name) \
        and not call.keywords and (item.optional_vars is None or
                                   isinstance(item.optional_vars, gast.Name))


def _is_item_target(node):
    """``y[i]`` (or ``y[i, j]``, ``y[1:]``) with `y` a name."""
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)


def _is_unpacking_target(node):
    if isinstance(node, gast.Name):
        return True
    return isinstance(node, (gast.Tuple, gast.List)) and \
        all(_is_unpacking_target(e) for e in node.elts)


def _is_append(stmt):
    """``xs.append(v)`` on a local list."""
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
        and isinstance(stmt.value.func, gast.Attribute) \
        and stmt.value.func.attr == "append" \
        and isinstance(stmt.value.func.value, gast.Name) \
        and len(stmt.value.args) == 1 and not stmt.value.keywords


def _check_loop_target(target, stmt, ctx):
    if not _is_unpacking_target(target):
        _refuse(stmt, ctx, "a loop variable must be a name or a (nested) tuple of names")


def _check_out(keyword, call, ctx):
    """``np.add(a, b, out=z)`` changes `z` with no assignment to it, which
    the derivative would not see: refused (hook blocks may use it)."""
    if keyword.arg == "out":
        _refuse(call, ctx, "writing a result into an existing array (out=...) "
                "is not supported", "assign the result instead: z = np.add(a, b)")


def _check_test(node, ctx):
    """Conditions and loop headers are never differentiated, so they may
    also use `and`, `or` and `not`."""
    if isinstance(node, gast.BoolOp):
        for value in node.values:
            _check_test(value, ctx)
    elif isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        _check_test(node.operand, ctx)
    elif isinstance(node, gast.Compare):
        for item in [node.left] + node.comparators:
            _check_test(item, ctx)
    elif isinstance(node, gast.Call):
        for arg in node.args + [k.value for k in node.keywords]:
            _check_test(arg, ctx)
        _check_expr(node.func, ctx)
    else:
        _check_expr(node, ctx)


def _describe(node):
    return type(node).__name__.lower()


def _check_op(op, node, ctx):
    if not isinstance(op, _BINOPS):
        _refuse(node, ctx, f"the operator {type(op).__name__} has no derivative",
                "supported operators: + - * / // % ** @ and unary -")


def _check_expr(node, ctx):
    if isinstance(node, (gast.Name, gast.Constant)):
        return
    if isinstance(node, gast.BinOp):
        _check_op(node.op, node, ctx)
        _check_expr(node.left, ctx)
        _check_expr(node.right, ctx)
    elif isinstance(node, gast.UnaryOp):
        if not isinstance(node.op, _UNARY):
            _refuse(node, ctx, f"the operator {type(node.op).__name__} is not "
                    "supported on differentiated values")
        _check_expr(node.operand, ctx)
    elif isinstance(node, gast.Call):
        if not isinstance(node.func, (gast.Name, gast.Attribute)):
            _check_expr(node.func, ctx)  # make(W)(x): a function value (resolve)
        for arg in node.args:
            if isinstance(arg, gast.Starred) and arg is node.args[-1]:
                _check_expr(arg.value, ctx)
                continue  # f(*t): spread by normalize
            if isinstance(arg, gast.Starred):
                _refuse(arg, ctx, "*args in calls are not supported yet")
            _check_expr(arg, ctx)
        for kw in node.keywords:
            if kw.arg is None:
                _refuse(node, ctx, "**kwargs in calls are not supported")
            _check_out(kw, node, ctx)
            _check_expr(kw.value, ctx)
        if isinstance(node.func, gast.Attribute):
            _check_expr(node.func, ctx)
    elif isinstance(node, gast.Attribute):
        _check_expr(node.value, ctx)
    elif isinstance(node, gast.Compare):
        _check_expr(node.left, ctx)
        for item in node.comparators:
            _check_expr(item, ctx)
    elif isinstance(node, (gast.Tuple, gast.List)):
        for item in node.elts:
            _check_expr(item, ctx)
    elif isinstance(node, gast.Dict):
        if not all(isinstance(k, gast.Constant) for k in node.keys):
            _refuse(node, ctx, "dict keys must be constants", "use string or "
                    "number keys")
        for item in node.values:
            _check_expr(item, ctx)
    elif isinstance(node, gast.Subscript):
        _check_expr(node.value, ctx)
        _check_index(node.slice, ctx)
    elif isinstance(node, (gast.ListComp, gast.DictComp)):
        for gen in node.generators:
            if gen.is_async:
                _refuse(node, ctx, "async comprehensions are not supported")
            _check_loop_target(gen.target, node, ctx)
            _check_test(gen.iter, ctx)
            for cond in gen.ifs:
                _check_test(cond, ctx)
        if isinstance(node, gast.ListComp):
            _check_expr(node.elt, ctx)
        else:
            _check_expr(node.key, ctx)
            _check_expr(node.value, ctx)
    elif isinstance(node, gast.Lambda):
        _check_arguments(node, ctx)
        _check_expr(node.body, ctx)
    elif isinstance(node, gast.IfExp):
        _check_test(node.test, ctx)
        _check_expr(node.body, ctx)
        _check_expr(node.orelse, ctx)
    else:
        hints = {
            gast.BoolOp: "'and'/'or' are supported only in conditions",
            gast.SetComp: "set comprehensions are not supported",
            gast.GeneratorExp: "a generator expression is supported as the argument "
                               "of sum, max, min, any, all, tuple, list, sorted; "
                               "elsewhere (np.stack needs a sequence too) write a "
                               "list comprehension [... for ...]",
        }
        _refuse(node, ctx, f"'{_describe(node)}' expressions are not supported",
                hints.get(type(node)))
