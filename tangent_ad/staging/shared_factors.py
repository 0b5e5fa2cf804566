"""One LU factorization for the solves, determinant and inverse of one
matrix, in a derivative specialized by ``specialize.py`` that runs as Python.

A Gaussian likelihood written with ``np.linalg.slogdet(K)`` and
``np.linalg.solve(K, y)`` factors K twice in its primal sweep, and its
adjoint twice more: ``np.linalg.inv(K)`` for the determinant's adjoint
and ``grad_solve_rhs(g, K, x)``, a solve with K's transpose, for the
solve's. When a matrix is the matrix of two or more such calls, it is
factored once, right after it is bound, and each call uses the factors
(``runtime/shared_lu.py``)::

    K_lu = factored(K)
    t20 = solve_factored(K_lu, y)
    t18 = slogdet_factored(K_lu)
    ...
    gb = solve_factored(K_lu, g, True)
    bK = ... inv_factored(K_lu) ...

The same LAPACK steps NumPy takes, so the values agree to rounding.

The rewrite needs: SciPy installed (imported the first time a copy has
a matrix to share); K a name the function binds once, in a statement of
its own body (or a parameter it never binds), a real float32 or float64
square matrix by its kind; every read of K an argument of a NumPy function
or runtime helper without ``out=``, or an operand (nothing changes it in
place); each call in a statement of the function's own body after K's
binding (it runs once per call, so the factors are never made for
nothing), its other arrays of K's dtype (no promotion), and at least two
calls. A name of the helpers that the copy's namespace holds for
something else leaves the copy as it is.
"""
import importlib.util
import sys

import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.nodes import call, walk
from tangent_ad.staging.callees import for_function
from tangent_ad.staging.kinds import Kinds

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_HELPERS = ("factored", "solve_factored", "slogdet_factored", "inv_factored")
_REWRITTEN = (np.linalg.solve, np.linalg.slogdet, np.linalg.inv, runtime.grad_solve_rhs)
_COMPOUND = (gast.For, gast.While, gast.If, gast.With, gast.Try, gast.FunctionDef)


def run(tree, params, unit=None, given=()):
    """Return the FunctionDef `tree` with one factorization per matrix
    that several solves, determinants and inverses share (`params`,
    `unit` and `given` as for `kinds.Kinds`)."""
    namespace = unit.namespace if unit is not None else None
    if not _has_candidates(tree, namespace):
        return tree
    if namespace is not None and any(namespace.get(h, getattr(runtime, h)) is not
                                     getattr(runtime, h) for h in _HELPERS):
        return tree
    kinds = Kinds(tree, params, unit, given)
    sites = {}
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, _COMPOUND):
            continue  # (a call there may not run: its factors would be made for nothing)
        for node in walk(stmt):
            matrix = _matrix_of(node, kinds)
            if matrix is not None:
                sites.setdefault(matrix, []).append((index, node))
    names = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    done = []
    for matrix, found in sites.items():
        start = _binding(tree, matrix)
        if len(found) < 2 or start is None or any(i <= start for i, _ in found) or \
                not _only_read(tree, matrix, kinds) or not _scipy_linalg():
            continue
        factors = f"{matrix}_lu"
        while factors in names:
            factors += "_"
        names.add(factors)
        for _, node in found:
            _use_factors(node, factors, kinds)
        done.append((start, factors, matrix))
    for start, factors, matrix in sorted(done, reverse=True):
        tree.body.insert(start + 1, gast.Assign(
            targets=[gast.Name(id=factors, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=call("factored", gast.Name(id=matrix, ctx=gast.Load(), annotation=None,
                                             type_comment=None)),
            type_comment=None))
    if done and namespace is not None:
        namespace.update((h, getattr(runtime, h)) for h in _HELPERS)
    return tree


def _scipy_linalg():
    """Whether SciPy's linear algebra can be used: imported here, once per
    process, when it is installed and a copy has a matrix to share."""
    if "scipy.linalg" in sys.modules:
        return True
    if importlib.util.find_spec("scipy") is None:
        return False
    import scipy.linalg  # noqa: F401 (slow to import: only when needed)
    return True


def _has_candidates(tree, namespace):
    """Whether `tree` calls the functions rewritten here twice or more (a
    cheap look, by the objects called, before any kinds are found)."""
    callees = for_function(tree, namespace)
    calls = [n for n in walk(tree) if isinstance(n, gast.Call) and n.args and
             callees.of_call(n) in _REWRITTEN]
    return len(calls) >= 2


def _matrix_of(node, kinds):
    """The name of the matrix the call `node` solves with, takes the log-
    determinant or inverse of, when it is one to rewrite; else None."""
    if not isinstance(node, gast.Call) or node.keywords:
        return None
    func, args = kinds.callee(node), node.args
    if func in (np.linalg.slogdet, np.linalg.inv) and len(args) == 1:
        matrix, others = args[0], []
    elif func is np.linalg.solve and len(args) == 2:
        matrix, others = args[0], [args[1]]
    elif func is runtime.grad_solve_rhs and len(args) == 3:
        matrix, others = args[1], [args[0]]
    else:
        return None
    kind = kinds.of(matrix)
    if not (isinstance(matrix, gast.Name) and kind is not None and kind.box == "array"
            and len(kind.shape) == 2 and kind.shape[0] == kind.shape[1]
            and kind.dtype in _FLOATS):
        return None
    for other in others:  # a vector or matrix of K's rows and dtype
        k = kinds.of(other)
        if k is None or k.box != "array" or k.dtype != kind.dtype or \
                len(k.shape) not in (1, 2) or k.shape[0] != kind.shape[0]:
            return None
    return matrix.id


def _binding(tree, name):
    """The index of the one statement of the body that binds `name` (-1
    for a parameter the function never binds), or None. (A ``del`` after
    its last read, ``release.py``, does not count: the factors are kept.)"""
    binders = [i for i, stmt in enumerate(tree.body) for n in walk(stmt)
               if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)]
    parameter = any(isinstance(a, gast.Name) and a.id == name for a in tree.args.args)
    if parameter:
        return -1 if not binders else None
    if len(binders) != 1 or not isinstance(tree.body[binders[0]], gast.Assign):
        return None
    return binders[0]


def _only_read(tree, name, kinds):
    """Nothing changes the matrix `name` in place: neither it nor a view
    of it (`_views`) is written (an item, ``+=``), and every read of them
    is an operand or an argument that a function only reads: a ufunc's
    input (no ``out``), a NumPy function or runtime helper that writes
    none of its arguments."""
    views = _views(tree, name, kinds)
    parents = {}
    for node in walk(tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, gast.AugAssign) and _names_in(node.target) & views:
            return False
    for node in walk(tree):
        if not (isinstance(node, gast.Name) and node.id in views and
                isinstance(node.ctx, gast.Load)):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            continue
        if isinstance(parent, (gast.Subscript, gast.Attribute)) and parent.value is node:
            if isinstance(parent.ctx, gast.Load):
                continue
            return False  # an item or attribute written
        if isinstance(parent, gast.Call) and node in parent.args and _reads_only(parent, node,
                                                                                kinds):
            continue
        if isinstance(parent, gast.Assign) and parent.value is node:
            continue  # another name for it: one of `views`
        return False
    return True


def _views(tree, name, kinds):
    """`name` and the names bound to it or to a view of it (``K.T``,
    ``K[0]``, ``np.transpose(K)``...), and to views of those."""
    views, grew = {name}, True
    while grew:
        grew = False
        for node in walk(tree):
            if isinstance(node, gast.Assign) and _view_of(node.value, views, kinds):
                for target in _names_in(node.targets):
                    if target not in views:
                        views.add(target)
                        grew = True
    return views


def _view_of(value, views, kinds):
    if isinstance(value, gast.Name):
        return value.id in views
    if isinstance(value, (gast.Attribute, gast.Subscript)):
        return _view_of(value.value, views, kinds)
    if isinstance(value, gast.Call):  # a view-making function of a view, or anything unknown
        func = kinds.callee(value)
        return any(_view_of(a, views, kinds) for a in value.args) and \
            (func is None or func in _VIEWS or not _fresh_result(func))
    return False


def _fresh_result(func):
    """Whether `func` returns a new array (never a view of an argument):
    a ufunc, or one of the calls rewritten here, or a runtime helper."""
    return isinstance(func, np.ufunc) or func in _REWRITTEN or func in _RUNTIME


def _names_in(nodes):
    return {n.id for t in (nodes if isinstance(nodes, list) else [nodes])
            for n in walk(t) if isinstance(n, gast.Name)}


def _reads_only(call_node, argument, kinds):
    """Whether the call `call_node` only reads its argument `argument`."""
    if any(k.arg == "out" for k in call_node.keywords):
        return False
    func = kinds.callee(call_node)
    if isinstance(func, np.ufunc):
        return call_node.args.index(argument) < func.nin and len(call_node.args) <= func.nin
    if func in _RUNTIME:
        return func not in _RUNTIME_WRITERS
    module = getattr(func, "__module__", None) or ""
    return func is not None and module.split(".")[0] == "numpy" and \
        module != "numpy.random" and not module.startswith("numpy.random.") and \
        func not in _NUMPY_WRITERS


# NumPy functions that write into an argument, and a helper that does
_NUMPY_WRITERS = frozenset({np.fill_diagonal, np.copyto, np.put, np.place, np.putmask,
                            np.put_along_axis})
_RUNTIME_WRITERS = frozenset({runtime.scatter_add})
# functions that may return a view of their argument
_VIEWS = frozenset({np.transpose, np.reshape, np.ravel, np.squeeze, np.expand_dims,
                    np.swapaxes, np.moveaxis, np.diagonal, np.asarray, np.asanyarray,
                    np.atleast_1d, np.atleast_2d, np.atleast_3d, np.broadcast_to,
                    np.real, np.imag, np.flip, np.rot90, runtime.matrix_transpose,
                    *([np.permute_dims] if hasattr(np, "permute_dims") else [])})


_RUNTIME = frozenset(getattr(runtime, h) for h in runtime.__all__)


def _use_factors(node, factors, kinds):
    """Rewrite the call `node` to use the factors named `factors`."""
    func = kinds.callee(node)
    handle = gast.Name(id=factors, ctx=gast.Load(), annotation=None, type_comment=None)
    if func is np.linalg.solve:
        node.func, node.args = call("solve_factored").func, [handle, node.args[1]]
    elif func is runtime.grad_solve_rhs:
        node.func, node.args = call("solve_factored").func, \
            [handle, node.args[0], gast.Constant(value=True, kind=None)]
    elif func is np.linalg.slogdet:
        node.func, node.args = call("slogdet_factored").func, [handle]
    else:
        node.func, node.args = call("inv_factored").func, [handle]
