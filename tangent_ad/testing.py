"""Gradient checking: compare derivatives against central finite differences.

Every derivative tangent_ad generates (and every hand-written rule registered
with it) should agree with the slope of the function it differentiates. This
module measures that slope numerically and reports disagreements as a
:class:`GradientMismatch`, an ``AssertionError``, so it reads naturally in
pytest and in the CLI's ``--check``.

* :func:`check_grads` compares every element of each gradient with a central
  difference (two evaluations of ``f`` per element): exact but O(n) calls.
* :func:`check_vjp_projection` compares one random projection per argument
  (two evaluations of ``f`` per argument): cheap enough for large arrays.
* :func:`check_jvp` compares a forward-mode derivative (``tad.jvp``) along
  random tangents with the central difference of ``f`` along them (two
  evaluations of ``f``, for outputs of any shape or structure).

Finite differences are always taken in float64, on float64 copies of every
floating argument, so float32 code is judged against an accurate reference
with float32 tolerances (see :func:`tolerances`). The module is a leaf: it
uses NumPy only and does not import the rest of tangent_ad.
"""
import inspect

import numpy as np

from tangent_ad.errors import TangentADError

__all__ = ["GradientMismatch", "numerical_grad", "check_grads",
           "check_vjp_projection", "check_jvp", "random_tangent", "tolerances",
           "random_args"]

_EPS = 1e-6


class GradientMismatch(TangentADError, AssertionError):
    """A gradient disagrees with finite differences (or has the wrong shape/dtype)."""

    default_hint = ("a wrong derivative rule is the usual cause; if f has kinks "
                    "or is numerically noisy near this point, loosen rtol/atol")


def _is_python_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, (bool, np.generic))


def _to_float64(a):
    """float64 copy of a floating argument; any other argument is returned as is."""
    if isinstance(a, (np.ndarray, np.floating)) and np.issubdtype(a.dtype, np.floating):
        return a.astype(np.float64)
    return a


def _like(x, value):
    """float64 value in the form of argument x: float, NumPy scalar or array."""
    if _is_python_number(x):
        return float(value)
    return np.float64(value) if isinstance(x, np.generic) else np.asarray(value, np.float64)


def _scalar(out):
    arr = np.asarray(out)
    if arr.size != 1 or np.iscomplexobj(arr):
        raise ValueError(f"f must return a real scalar, got {type(out).__name__} "
                         f"of shape {arr.shape} and dtype {arr.dtype}")
    return float(arr.reshape(()))


def numerical_grad(f, args, argnum, *, eps=None):
    """Central finite-difference gradient of scalar ``f(*args)`` w.r.t. ``args[argnum]``.

    Each element x_i is moved by h_i = eps * max(1, |x_i|) both ways (eps
    defaults to 1e-6) with all floating arguments promoted to float64. Returns
    a float for a Python number, else a float64 array of the argument's shape.

    >>> round(numerical_grad(lambda x, y: x ** 3 * y, (2.0, 5.0), 0), 5)
    60.0
    >>> np.round(numerical_grad(lambda v: np.sum(v ** 2), (np.float32([1, -2]),), 0), 5)
    array([ 2., -4.])
    """
    eps = _EPS if eps is None else eps
    args = [_to_float64(a) for a in args]
    x = args[argnum]

    def f_at(value):
        args[argnum] = value
        return _scalar(f(*args))

    if _is_python_number(x):
        x = float(x)
        h = eps * max(1.0, abs(x))
        return (f_at(x + h) - f_at(x - h)) / ((x + h) - (x - h))
    base = np.asarray(x)
    if base.dtype.kind not in "fiu":
        raise TypeError(f"cannot differentiate w.r.t. an argument of dtype {base.dtype}")
    base = base.astype(np.float64)
    grad = np.empty(base.shape)
    for i in np.ndindex(base.shape):
        xi = base[i]
        h = eps * max(1.0, abs(xi))
        up, down = base.copy(), base.copy()
        up[i], down[i] = xi + h, xi - h
        grad[i] = (f_at(_like(x, up)) - f_at(_like(x, down))) / (up[i] - down[i])
    return grad


def tolerances(dtype):
    """Default ``(rtol, atol)`` for gradients of the given floating dtype.

    >>> tolerances(np.float64)
    (1e-05, 1e-06)
    >>> tolerances("float32")
    (0.002, 0.0002)
    """
    dt = np.dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"no gradient tolerances for non-floating dtype {dt}")
    if dt.itemsize >= 8:
        return (1e-5, 1e-6)
    if dt.itemsize == 4:
        return (2e-3, 2e-4)
    return (3e-2, 3e-3)


def _arg_label(f, n):
    """'argument 1 ('y')' when f's signature names the parameter, else 'argument 1'."""
    try:
        param = list(inspect.signature(f).parameters.values())[n]
    except (TypeError, ValueError, IndexError):
        return f"argument {n}"
    named = param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD)
    return f"argument {n} ({param.name!r})" if named else f"argument {n}"


def _gradients(df, args, wrt):
    """Call df and return its gradients as a tuple in wrt order."""
    wrt = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    wrt = tuple(range(len(args))[n] for n in wrt)  # IndexError if out of range
    grads = df(*args)
    if len(wrt) == 1:
        return wrt, (grads,)
    if not isinstance(grads, (tuple, list)) or len(grads) != len(wrt):
        raise GradientMismatch(f"df must return a tuple of {len(wrt)} gradients "
                               f"(one per wrt index), got {type(grads).__name__}")
    return wrt, tuple(grads)


def _structure_problem(x, g, check_dtype):
    """Why g cannot be the gradient of argument x (shape, dtype), or None."""
    if _is_python_number(x):
        if np.shape(g) != () or (check_dtype and np.asarray(g).dtype.kind != "f"):
            return f"expected a float for a Python number argument, got {g!r}"
        return None
    if np.shape(g) != np.shape(x):
        return f"gradient has shape {np.shape(g)} but the argument has shape {np.shape(x)}"
    x_dtype, g_dtype = np.asarray(x).dtype, np.asarray(g).dtype
    if check_dtype and x_dtype.kind == "f" and g_dtype != x_dtype:
        return f"gradient has dtype {g_dtype} but the argument has dtype {x_dtype}"
    return None


def _run_checks(f, df, args, wrt, rtol, atol, check_dtype, compare):
    """Check structure, then compare(n, x, gradient as float64, rtol, atol) per wrt index."""
    wrt, grads = _gradients(df, args, wrt)
    problems = []
    for n, g in zip(wrt, grads):
        x = args[n]
        problem = _structure_problem(x, g, check_dtype)
        if problem is None:
            dtype = np.asarray(x).dtype
            r, a = tolerances(np.float64 if _is_python_number(x) or dtype.kind != "f" else dtype)
            r, a = (r if rtol is None else rtol), (a if atol is None else atol)
            problem = compare(n, x, np.asarray(g, dtype=np.float64), r, a)
        if problem:
            problems.append(f"gradient mismatch for {_arg_label(f, n)}: {problem}")
    if problems:
        raise GradientMismatch("\n".join(problems))


def check_grads(f, df, args, wrt=(0,), *, rtol=None, atol=None, seed=0, check_dtype=True):
    """Check every element of ``df(*args)`` against central differences of ``f``.

    ``df`` returns one gradient when ``len(wrt) == 1``, else a tuple in wrt
    order (the convention of ``tangent_ad.grad``). An element passes when
    |analytic - numerical| <= atol + rtol * |numerical|; tolerances default
    per argument dtype. Shapes (and, if ``check_dtype``, dtypes) must match
    the arguments. ``seed`` is unused (the check is deterministic) and kept
    for symmetry with :func:`check_vjp_projection`.

    >>> x = np.array([0.5, 1.0, 2.0])
    >>> check_grads(lambda x: np.sum(np.sin(x)), np.cos, (x,))
    >>> check_grads(lambda x: np.sum(np.sin(x)), lambda x: -np.cos(x), (x,))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tangent_ad.testing.GradientMismatch: gradient mismatch for argument 0 ('x'): 3 of 3 ...
    """
    def compare(n, x, got, r, a):
        want = np.asarray(numerical_grad(f, args, n))
        err = np.abs(got - want)
        tol = a + r * np.abs(want)
        bad = ~(err <= tol)  # NaN counts as bad
        if not bad.any():
            return None
        worst = np.unravel_index(np.argmax(np.where(bad, err - tol, -np.inf)), err.shape)
        worst = tuple(int(i) for i in worst)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(err == 0, 0.0, err / np.abs(want))
        where = "" if _is_python_number(x) else f" at index {worst}"
        return (f"{bad.sum()} of {bad.size} elements fail "
                f"|analytic - numerical| <= {a:g} + {r:g} * |numerical|\n"
                f"    max abs error {np.max(err):.3g}, max rel error {np.max(rel):.3g}\n"
                f"    worst{where}: analytic {got[worst]:.8g}, numerical {want[worst]:.8g}")

    _run_checks(f, df, args, wrt, rtol, atol, check_dtype, compare)


def check_vjp_projection(f, df, args, wrt=(0,), *, seed=0, rtol=None, atol=None):
    """Check ``<df(*args), v>`` against a directional central difference of ``f``.

    For each argument in ``wrt`` a standard-normal direction v (drawn from
    ``np.random.default_rng(seed)``) is compared with
    (f(x + h v) - f(x - h v)) / 2h: two evaluations of ``f`` per argument,
    whatever its size. Passes when |analytic - numerical| <=
    atol * ||v|| + rtol * |numerical|. Shapes must match; dtypes are not checked.

    >>> x = np.linspace(-1.0, 1.0, 1000)
    >>> check_vjp_projection(lambda x: np.sum(x ** 3), lambda x: 3 * x ** 2, (x,))
    >>> check_vjp_projection(lambda x: np.sum(x ** 3), lambda x: 3 * x, (x,))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tangent_ad.testing.GradientMismatch: gradient mismatch for argument 0 ('x'): projection ...
    """
    rng = np.random.default_rng(seed)
    moved = [_to_float64(a) for a in args]

    def f_along(n, x, step):
        moved[n] = _like(x, step)
        value = _scalar(f(*moved))
        moved[n] = _to_float64(x)
        return value

    def compare(n, x, got, r, a):
        x64 = np.asarray(x, dtype=np.float64)
        v = rng.standard_normal(x64.shape)
        h = _EPS * max(1.0, float(np.max(np.abs(x64), initial=0.0)))
        want = (f_along(n, x, x64 + h * v) - f_along(n, x, x64 - h * v)) / (2 * h)
        analytic = float(np.sum(got * v))
        tol = a * float(np.linalg.norm(v)) + r * abs(want)
        if abs(analytic - want) <= tol:
            return None
        return (f"projection onto a random direction (seed={seed}) gives "
                f"{analytic:.8g}, finite differences give {want:.8g}: "
                f"abs error {abs(analytic - want):.3g} > tolerance {tol:.3g}")

    _run_checks(f, df, args, wrt, rtol, atol, False, compare)


def _leaves(tree, path=()):
    """(path, leaf) pairs of a nested tuple, list or dict, in order."""
    if isinstance(tree, dict):
        for key in tree:
            yield from _leaves(tree[key], path + (key,))
    elif isinstance(tree, (tuple, list)):
        for i, item in enumerate(tree):
            yield from _leaves(item, path + (i,))
    else:
        yield path, tree


def _map(fn, tree, *others):
    """`fn` applied leaf by leaf to `tree` (and `others` of its structure)."""
    if isinstance(tree, dict):
        return {k: _map(fn, tree[k], *(o[k] for o in others)) for k in tree}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_map(fn, *items) for items in zip(tree, *others))
    return fn(tree, *others)


def random_tangent(x, rng):
    """A standard-normal tangent of `x`: its structure, shapes and dtypes
    (a float for a Python number).

    >>> t = random_tangent({"w": np.zeros(2, np.float32), "b": 0.0},
    ...                    np.random.default_rng(0))
    >>> t["w"].dtype, type(t["b"])
    (dtype('float32'), <class 'float'>)
    """
    def leaf(v):
        if _is_python_number(v):
            return float(rng.standard_normal())
        dtype = np.asarray(v).dtype
        if dtype.kind not in "fc":
            raise TypeError(f"cannot make a tangent for a value of dtype {dtype}")
        return np.asarray(rng.standard_normal(np.shape(v))).astype(dtype)
    return _map(leaf, x)


def check_jvp(f, jvp_f, args, wrt=(0,), *, seed=0, rtol=None, atol=None,
              check_dtype=True):
    """Check ``jvp_f(*args, *tangents)`` against central differences of ``f``.

    ``jvp_f`` follows ``tangent_ad.jvp``: it takes ``f``'s arguments and one
    tangent per ``wrt`` index and returns ``(value, tangent)``. Random
    tangents (seeded) are drawn for the ``wrt`` arguments; the value must
    match ``f(*args)`` and the tangent, leaf by leaf, the central
    difference (f(x + h t) - f(x - h t)) / 2h computed in float64. Each
    leaf of the tangent must have the shape of the output's leaf and, with
    ``check_dtype``, its floating dtype. Tolerances default to those of the
    least precise ``wrt`` argument.

    >>> check_jvp(np.sin, lambda x, dx: (np.sin(x), np.cos(x) * dx), (np.ones(3),))
    >>> check_jvp(np.sin, lambda x, dx: (np.sin(x), dx), (np.ones(3),))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tangent_ad.testing.GradientMismatch: tangent mismatch at output: 3 of 3 ...
    """
    wrt = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    rng = np.random.default_rng(seed)
    tangents = [random_tangent(args[n], rng) for n in wrt]
    value, tangent = jvp_f(*args, *tangents)
    dtypes = [np.asarray(leaf).dtype for n in wrt for _, leaf in _leaves(args[n])
              if not _is_python_number(leaf)]
    r, a = tolerances(min((d for d in dtypes if d.kind == "f"),
                          key=lambda d: d.itemsize, default=np.float64))
    r, a = (r if rtol is None else rtol), (a if atol is None else atol)
    size = max([float(np.max(np.abs(leaf), initial=0.0)) for n in wrt
                for _, leaf in _leaves(args[n])] + [1.0])
    h = _EPS * size

    def moved(step):
        out = [_map(_to_float64, a_) for a_ in args]
        for n, t in zip(wrt, tangents):
            out[n] = _map(lambda x, tx: _like(x, np.asarray(x, np.float64)
                                              + step * np.asarray(tx, np.float64)),
                          args[n], t)
        return out

    up, down = f(*moved(h)), f(*moved(-h))
    want = _map(lambda u, v: (np.asarray(u, np.float64) - np.asarray(v, np.float64))
                / (2 * h), up, down)
    expected = f(*args)
    problems = []
    pairs = zip(_leaves(expected), _leaves(value), _leaves(tangent), _leaves(want))
    for (path, exp), (_, got_value), (_, got), (_, slope) in pairs:
        where = "output" + "".join(f"[{p!r}]" for p in path)
        if np.shape(got) != np.shape(exp):
            problems.append(f"tangent mismatch at {where}: shape {np.shape(got)}, "
                            f"but the value has shape {np.shape(exp)}")
            continue
        kind = np.asarray(exp).dtype
        if check_dtype and not _is_python_number(exp) and kind.kind in "fc" \
                and np.asarray(got).dtype != kind:
            problems.append(f"tangent mismatch at {where}: dtype "
                            f"{np.asarray(got).dtype}, but the value has dtype {kind}")
            continue
        if not np.allclose(got_value, exp, rtol=1e-6, atol=1e-9, equal_nan=True):
            problems.append(f"value mismatch at {where}: jvp returned a different "
                            "value than the function")
            continue
        err = np.abs(np.asarray(got, np.complex128) - slope)
        bad = ~(err <= a + r * np.abs(slope))
        if np.any(bad):
            problems.append(
                f"tangent mismatch at {where}: {int(np.sum(bad))} of {np.size(bad)} "
                f"elements fail |analytic - numerical| <= {a:g} + {r:g} * |numerical|; "
                f"max abs error {float(np.max(err)):.3g}")
    if len(list(_leaves(tangent))) != len(list(_leaves(expected))):
        problems.append("tangent mismatch: the tangent and the value differ in structure")
    if problems:
        raise GradientMismatch("\n".join(problems))


def random_args(shapes, *, dtype=np.float64, seed=0, low=-1.0, high=1.0):
    """Seeded uniform random arguments, one per shape; a shape of None gives a Python float.

    >>> x, s = random_args([(2, 3), None], dtype=np.float32)
    >>> x.shape, x.dtype, type(s)
    ((2, 3), dtype('float32'), <class 'float'>)
    """
    rng = np.random.default_rng(seed)
    return tuple(float(rng.uniform(low, high)) if shape is None
                 else np.asarray(rng.uniform(low, high, size=shape)).astype(dtype)
                 for shape in shapes)
