"""Second derivatives and dense matrices, built on the transforms of
``api.py``: `hvp` (forward over reverse), `jacobian` (columns by forward
mode or rows by reverse mode, whichever takes fewer passes) and `hessian`
(one `hvp` per entry).
"""
import functools
import inspect

import numpy as np

from tangent_ad import api, callables


def hvp(func=None, wrt=0, *, optimized=True, verbose=0):
    """The Hessian-vector product of scalar-valued `func`, by forward mode
    over reverse mode: ``tad.jvp(tad.grad(func, wrt), wrt)``.

    ``hvp(f)(x, v)`` is ``H(x) @ v``, of the shape of ``x``. With several
    arguments the vector comes last: ``hvp(f, wrt=i)(*args, v)`` is
    ``H_ii @ v``, the Hessian with respect to argument `i` (an index or a
    parameter name), applied to `v`; arguments with defaults may be left
    out or given by keyword. For a tuple ``wrt=(i, j)`` there is one vector per argument,
    ``hvp(f, wrt=(i, j))(*args, vi, vj)``, and the result is the tuple of
    the blocks of ``H @ (vi, vj)``. The returned function is a small
    wrapper; ``show_source`` shows the generated code it calls: the
    forward-mode derivative of the gradient, returning only the tangent.

    >>> import numpy as np
    >>> def f(x):
    ...     return np.sum(x ** 3)
    >>> hvp(f)(np.array([1.0, 2.0]), np.array([1.0, 0.0]))
    array([6., 0.])
    """
    if func is None:
        return functools.partial(hvp, wrt=wrt, optimized=optimized, verbose=verbose)
    names = api.wrt_names(func, wrt)
    gradient = api.plain_grad(func, wrt=names, optimized=optimized)
    product = api.derivative(gradient, "forward", names, False, optimized, verbose,
                          kind="hvp")
    params = _parameters(func)
    count = len(names)

    def hessian_vector_product(*args, **kwargs):
        primal = _complete(func, params, args[:-count], kwargs)
        return product(*primal, 1.0, *args[len(args) - count:])

    return api.named_wrapper(hessian_vector_product, product, func, "hvp")


def jacobian(func=None, wrt=0, *, optimized=True, verbose=0):
    """The dense Jacobian of `func` with respect to one argument.

    ``jacobian(f)(x)`` is an array of shape ``f(x).shape + x.shape``
    (a number or a NumPy array in, a number or an array out), with
    ``J[i..., j...] = d f(x)[i...] / d x[j...]``. It is built by forward
    mode, one column per entry of ``x``, when ``x`` has at most as many
    entries as the output, and by reverse mode (`vjp`), one row per entry
    of the output, otherwise. Other arguments are passed through, by
    position or by keyword.

    >>> import numpy as np
    >>> def f(x):
    ...     return np.array([x[0] * x[1], x[0] + 2.0 * x[1], x[1] ** 2])
    >>> jacobian(f)(np.array([2.0, 3.0]))
    array([[3., 2.],
           [1., 2.],
           [0., 6.]])
    """
    if func is None:
        return functools.partial(jacobian, wrt=wrt, optimized=optimized, verbose=verbose)
    (name,) = _single(func, wrt)
    position = _parameters(func).index(name)
    forward = api.plain_jvp(func, wrt=(name,), optimized=optimized, verbose=verbose)
    backward = api.plain_vjp(func, wrt=(name,), optimized=optimized, verbose=verbose)
    params = _parameters(func)

    def dense_jacobian(*args, **kwargs):
        args = _complete(func, params, args, kwargs)
        x = args[position]
        out = func(*args)
        _check_array(out, func)
        if np.size(x) <= np.size(out):
            columns = [forward(*args, e)[1] for e in _basis(x)]
            return _assemble(columns, np.shape(out), np.shape(x), last=True)
        rows = [backward(*args, e) for e in _basis(out)]
        return _assemble(rows, np.shape(out), np.shape(x), last=False)

    return api.named_wrapper(dense_jacobian, forward, func, "jacobian",
                    extra=backward.__tangent_ad__)


def hessian(func=None, wrt=0, *, optimized=True, verbose=0):
    """The dense Hessian of scalar-valued `func` with respect to one
    argument: ``hessian(f)(x)`` has shape ``x.shape + x.shape``, one
    Hessian-vector product (`hvp`) per entry of ``x``. Other arguments
    are passed through, by position or by keyword.

    >>> import numpy as np
    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> hessian(f)(np.array([1.0, 3.0]))
    array([[6., 2.],
           [2., 0.]])
    """
    if func is None:
        return functools.partial(hessian, wrt=wrt, optimized=optimized, verbose=verbose)
    (name,) = _single(func, wrt)
    position = _parameters(func).index(name)
    product = plain_hvp(func, wrt=name, optimized=optimized, verbose=verbose)
    params = _parameters(func)

    def dense_hessian(*args, **kwargs):
        args = _complete(func, params, args, kwargs)
        x = args[position]
        columns = [product(*args, e) for e in _basis(x)]
        return _assemble(columns, np.shape(x), np.shape(x), last=True)

    return api.named_wrapper(dense_hessian, product, func, "hessian")


def _parameters(func):
    try:
        return list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return []


def _single(func, wrt):
    names = api.wrt_names(func, wrt)
    if len(names) != 1:
        raise ValueError(f"wrt must name one parameter of {func.__name__}, not {wrt!r}")
    return names


def _complete(func, params, args, kwargs=None):
    """`args` and `kwargs` as positional arguments, with the defaults of
    the parameters they leave out."""
    if len(args) == len(params) and not kwargs:
        return args
    bound = inspect.signature(func).bind(*args, **(kwargs or {}))
    bound.apply_defaults()
    return bound.args


def _check_array(out, func):
    if isinstance(out, (tuple, list, dict)):
        raise TypeError(f"jacobian needs {func.__name__} to return an array or a "
                        f"number, not a {type(out).__name__}; use tangent_ad.jvp or "
                        "tangent_ad.vjp for structured outputs")


def _basis(x):
    """The unit vectors of `x`'s space, each shaped (and typed) like `x`."""
    if np.ndim(x) == 0 and not isinstance(x, (np.ndarray, np.generic)):
        yield 1.0
        return
    dtype = np.asarray(x).dtype
    dtype = dtype if dtype.kind in "fc" else np.float64
    for i in range(np.size(x)):
        e = np.zeros(np.size(x), dtype)
        e[i] = 1
        yield e.reshape(np.shape(x))


def _assemble(parts, out_shape, in_shape, last):
    """Stack columns (``last``: one per entry of x) or rows into an array
    of shape ``out_shape + in_shape``, of the parts' common dtype."""
    if not parts:
        return np.zeros(out_shape + in_shape)
    flat = np.array([np.ravel(p) for p in parts])
    return (flat.T if last else flat).reshape(out_shape + in_shape)


# the raw transform, for hessian; the public ones take every callable (callables.py)
plain_hvp = hvp
hvp = callables.public(hvp, lambda names, options: len(names))
jacobian = callables.public(jacobian)
hessian = callables.public(hessian)
