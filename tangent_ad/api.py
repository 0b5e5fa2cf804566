"""The public transforms: grad, value_and_grad, vjp, jvp, autodiff,
show_source; and, built on them, hvp, jacobian and hessian.

Each returns a generated Python function (see ``show_source``). Results
are cached: asking twice for the same derivative of the same function
with the same options returns the same function object.
"""
import dataclasses
import functools
import inspect
import warnings

import numpy as np

from tangent_ad import callables, live, loader, pipeline, progress, second_order
from tangent_ad.compiled import compiler
from tangent_ad.display import SourceText
from tangent_ad.errors import CompileError
from tangent_ad.naming import label
from tangent_ad.staging import dispatch as staging
from tangent_ad.registry import REGISTRY
from tangent_ad.runtime import function_values

_CACHE = {}


def _wrt_names(func, wrt):
    """Normalize `wrt` (ints and/or parameter names) to parameter names."""
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        params = []
    if isinstance(wrt, (int, str)):
        wrt = (wrt,)
    names = []
    for item in wrt:
        if isinstance(item, int) and not isinstance(item, bool):
            if not -len(params) <= item < len(params):
                raise ValueError(f"wrt={item} is out of range: "
                                 f"{func.__name__} has {len(params)} parameters")
            names.append(params[item])
        elif isinstance(item, str):
            if item not in params:
                raise ValueError(f"wrt={item!r} is not a parameter of "
                                 f"{func.__name__} (parameters: {', '.join(params)})")
            names.append(item)
        else:
            raise TypeError(f"wrt entries must be ints or parameter names, not {item!r}")
    if not names:
        raise ValueError("wrt must name at least one parameter")
    if len(set(names)) != len(names):
        raise ValueError(f"wrt names a parameter twice: {wrt!r}")
    return tuple(names)


def autodiff(func, mode="reverse", wrt=(0,), preserve_result=False,
             optimized=True, verbose=0):
    """The general transform the others are built on.

    Returns a generated function. In reverse mode it takes `func`'s
    arguments plus ``bresult`` (the adjoint of the output, 1.0 by default)
    and returns the adjoint of each `wrt` argument (one value, or a tuple
    for several); with `preserve_result` it returns ``(value, adjoints)``.
    In forward mode it takes `func`'s arguments followed by one tangent
    per `wrt` argument and returns ``(value, tangent of the value)``
    (`preserve_result` changes nothing: the value is always returned).
    """
    return _derivative(func, mode, wrt, preserve_result, optimized, verbose)


def _derivative(func, mode, wrt, preserve_result, optimized, verbose, kind=None,
                public=True, has_aux=False, scalar=False, compile=None, fallback=False):
    """`autodiff`, with the kind of the requested function (see pipeline).

    What it returns is cached, and reused while what it was generated
    from is unchanged (``live.py``). A `public` derivative (one the user
    holds) is a dispatcher that generates itself again, in place, on the
    first call after such a change; the others are the generated
    functions themselves.
    """
    compiler.check_option(compile, fallback)
    options = (mode, bool(preserve_result), bool(optimized), kind, public, bool(has_aux),
               bool(scalar), compile, bool(fallback))
    try:  # as asked: a hit costs no look at the signature
        cached = _CACHE.get((func, wrt) + options)
    except TypeError:  # an unhashable wrt, such as a list
        cached = None
    if cached is None:
        names = _wrt_names(func, wrt)
        cached = _CACHE.get((func, names) + options)
    if cached is not None and _refreshed(cached):
        if verbose:
            print(cached.__tangent_ad__.source)
        return cached
    if second_order.is_wrapper(func):
        second_order.refuse_wrapper(func)

    def generate():
        target, target_wrt = live.behind(func), names
        if mode == "reverse" and second_order.has_rule(func):
            # whose call has a derived rule; a gradient's seed is a parameter
            # of it only when it is differentiated
            target = second_order.caller(func, keep_seed="bresult" in names)
            target_wrt = tuple(second_order.caller_names(func, names))
        return pipeline.transform(target, wrt=target_wrt, mode=mode, optimized=optimized,
                                  preserve_result=preserve_result, verbose=verbose,
                                  kind=kind, has_aux=has_aux, scalar=scalar,
                                  conjugate=public)  # internal products: JAX's convention

    names = _wrt_names(func, wrt)
    if compile is not None and public:
        try:
            compiler.require_numba()  # before any work
        except CompileError as exc:
            if not fallback:
                raise
            warnings.warn(f"tangent_ad: the derivative runs as Python:\n{exc}",
                          RuntimeWarning, stacklevel=3)
            compile = None
    if public:
        with progress.timed(f"differentiating {getattr(func, '__qualname__', func)}", verbose):
            fn = generate()
    else:
        fn = generate()
    if public and compile is not None:
        fn = _compiled(fn, generate, staging.Compiling(compile, bool(fallback), verbose))
    elif public:
        if optimized and mode == "reverse" and kind is None:
            fn = staging.staged(fn, generate)  # copies specialized to the argument kinds
        if not hasattr(fn, "__tangent_ad_stager__"):
            fn = live.dispatcher(fn, generate)
    _CACHE[(func, names) + options] = fn
    try:
        _CACHE[(func, wrt) + options] = fn
    except TypeError:
        pass
    return fn


def _compiled(fn, generate, compiling):
    """The dispatcher that compiles `fn` for each new kind of arguments
    (``staging.dispatch``, ``tangent_ad.compiled``); `fn` itself, with a
    warning, when it cannot be and `compiling.fallback` allows it."""
    staged = staging.staged(fn, generate, compiling)
    if hasattr(staged, "__tangent_ad_stager__"):
        return staged
    error = CompileError(
        f"{fn.__name__} cannot be compiled with numba: its parameters are keyword-only "
        f"or variadic, or it calls functions of other modules that read their globals",
        filename=getattr(getattr(fn.__tangent_ad__.primal, "__code__", None),
                         "co_filename", None),
        hint="compile=None runs it as Python")
    if not compiling.fallback:
        raise error
    warnings.warn(f"tangent_ad: {fn.__name__} runs as Python, not compiled:\n{error}",
                  RuntimeWarning, stacklevel=4)
    return fn


def _refreshed(fn):
    """True when `fn` is current, or a dispatcher now brought up to date."""
    if hasattr(fn, "__tangent_ad_refresh__"):
        live.behind(fn)
        return True
    return live.current(fn)


def _product(func, mode, wrt, kind):
    return _derivative(func, mode, wrt, False, True, 0, kind=kind, public=False)


REGISTRY.add_provider(lambda g: second_order.rule(g, _product))


def grad(func=None, wrt=(0,), *, has_aux=False, optimized=True, compile=None,
         fallback=False, verbose=0):
    """The gradient of scalar-valued `func` with respect to `wrt`.

    Works as a call or as a decorator (``@grad`` or ``@grad(wrt=(0, 1))``).
    With ``has_aux=True``, `func` returns a pair ``(loss, aux)``: the
    gradient is that of ``loss``, and the derivative returns
    ``(gradient, aux)``, `aux` as `func` computed it (JAX's meaning).
    With ``compile="numba"``, each new kind of arguments compiles the
    derivative with Numba on its first call (docs/compiled.md); a construct
    Numba cannot compile raises `CompileError`, or, with ``fallback=True``,
    runs as Python with a warning.

    >>> import numpy as np
    >>> def f(x):
    ...     return np.sum(np.sin(x))
    >>> df = grad(f)
    >>> float(df(0.0))
    1.0
    >>> def g(x):
    ...     return x ** 2, "note"
    >>> grad(g, has_aux=True)(3.0)
    (6.0, 'note')
    """
    if func is None:
        return functools.partial(grad, wrt=wrt, has_aux=has_aux, optimized=optimized,
                                 compile=compile, fallback=fallback, verbose=verbose)
    if not has_aux:
        return _derivative(func, "reverse", wrt, False, optimized, verbose,
                           compile=compile, fallback=fallback)
    both = _derivative(func, "reverse", wrt, True, optimized, verbose, has_aux=True,
                       compile=compile, fallback=fallback)

    def gradient_and_aux(*args, **kwargs):
        (_, aux), gradient = both(*args, **kwargs)
        return gradient, aux

    return _wrapper(gradient_and_aux, both, func, "grad")


def value_and_grad(func=None, wrt=(0,), *, has_aux=False, optimized=True, compile=None,
                   fallback=False, verbose=0):
    """Like `grad`, but the function returns ``(func(*args), gradient)``;
    with ``has_aux=True``, ``((loss, aux), gradient)``."""
    if func is None:
        return functools.partial(value_and_grad, wrt=wrt, has_aux=has_aux,
                                 optimized=optimized, compile=compile, fallback=fallback,
                                 verbose=verbose)
    return _derivative(func, "reverse", wrt, True, optimized, verbose, has_aux=has_aux,
                       scalar=True, compile=compile, fallback=fallback)


def jvp(func=None, wrt=(0,), *, optimized=True, compile=None, fallback=False, verbose=0):
    """The Jacobian-vector product of `func`, by forward mode.

    The generated function takes `func`'s arguments (all of them: defaults
    are not kept) followed by one tangent per `wrt` argument, each of the
    same structure as its argument, and returns ``(func(*args), tangent)``:
    the directional derivative of the output along the given tangents, in
    the output's structure. Works as a call or as a decorator.

    >>> import numpy as np
    >>> def f(x):
    ...     return np.sin(x) * 2.0
    >>> value, tangent = jvp(f)(0.0, 1.0)
    >>> float(value), float(tangent)
    (0.0, 2.0)
    """
    if func is None:
        return functools.partial(jvp, wrt=wrt, optimized=optimized, compile=compile,
                                 fallback=fallback, verbose=verbose)
    return _derivative(func, "forward", wrt, False, optimized, verbose, compile=compile,
                       fallback=fallback)


def vjp(func=None, wrt=(0,), *, optimized=True, compile=None, fallback=False, verbose=0):
    """The vector-Jacobian product of `func`, by reverse mode.

    Like `grad` for a function of any output: an array, a number, or a
    tuple, list or dict of them. The generated function takes `func`'s
    arguments (all of them: defaults are not kept) followed by
    ``bresult``, the output's cotangent (of the output's structure), and
    returns the cotangent of each `wrt` argument: ``J^T @ bresult``, one
    value or a tuple for several. Works as a call or as a decorator.
    For a holomorphic `func` of complex values that is ``bresult * f'(z)``;
    through a non-holomorphic step (``np.real``, ``np.abs``, ...) it is
    `grad`'s gradient of ``Re(sum(bresult * func(z)))``.

    >>> import numpy as np
    >>> def f(x):
    ...     return x * np.array([1.0, 2.0])
    >>> vjp(f)(3.0, np.array([1.0, 1.0]))
    3.0
    """
    if func is None:
        return functools.partial(vjp, wrt=wrt, optimized=optimized, compile=compile,
                                 fallback=fallback, verbose=verbose)
    return _derivative(func, "reverse", wrt, False, optimized, verbose, kind="vjp",
                       compile=compile, fallback=fallback)


def show_source(fn, *example_args, **example_kwargs):
    """The source text of a function generated by tangent_ad.

    With example arguments, the copy that a call with arguments of their
    kinds runs (docs/how-it-works.md, staging): specialized for those
    kinds, written now if no call has written it yet, without the guard
    that checks the kinds. Without them, or when such a call runs the
    general derivative, the general derivative.

    A derivative of a derivative calls functions generated on demand
    (``hvp_f_dx``: see docs/modes.md); their source follows its own, so
    the whole computation can be read. The text is a `str` that renders
    as highlighted code in Jupyter (``display.SourceText``).
    """
    if example_args or example_kwargs:
        specialized = staging.source_for(fn, example_args, example_kwargs)
        if specialized is not None:
            return SourceText(specialized)
    info = getattr(fn, "__tangent_ad__", None)
    if info is None and hasattr(fn, "__tangent_ad__"):
        raise TypeError(f"{fn.__name__} is generated for the classes of its arguments "
                        "when it is first called: call it, then show its source")
    if info is None:
        raise TypeError(f"{getattr(fn, '__name__', fn)!r} was not generated "
                        "by tangent_ad")
    found, _ = loader.units(info)
    return SourceText("\n\n".join(unit.source for unit in found))


# ---- second derivatives and dense matrices, built on the transforms above ----

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
    names = _wrt_names(func, wrt)
    gradient = _grad(func, wrt=names, optimized=optimized)
    product = _derivative(gradient, "forward", names, False, optimized, verbose,
                          kind="hvp")
    params = _parameters(func)
    count = len(names)

    def hessian_vector_product(*args, **kwargs):
        primal = _complete(func, params, args[:-count], kwargs)
        return product(*primal, 1.0, *args[len(args) - count:])

    return _wrapper(hessian_vector_product, product, func, "hvp")


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
    forward = _jvp(func, wrt=(name,), optimized=optimized, verbose=verbose)
    backward = _vjp(func, wrt=(name,), optimized=optimized, verbose=verbose)
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

    return _wrapper(dense_jacobian, forward, func, "jacobian",
                    extra=backward.__tangent_ad__.source)


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
    product = _hvp(func, wrt=name, optimized=optimized, verbose=verbose)
    params = _parameters(func)

    def dense_hessian(*args, **kwargs):
        args = _complete(func, params, args, kwargs)
        x = args[position]
        columns = [product(*args, e) for e in _basis(x)]
        return _assemble(columns, np.shape(x), np.shape(x), last=True)

    return _wrapper(dense_hessian, product, func, "hessian")


def _parameters(func):
    try:
        return list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return []


def _single(func, wrt):
    names = _wrt_names(func, wrt)
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


def _wrapper(fn, generated, func, what, extra=None):
    """`fn`, named after `func`, carrying the `Generated` record of the
    generated function it calls (so that ``show_source`` shows its code)."""
    info = generated.__tangent_ad__
    if extra is not None:
        info = dataclasses.replace(info, source=info.source.rstrip("\n") + "\n\n\n" + extra,
                                   trees=())
    fn.__name__ = fn.__qualname__ = f"{what}_{label(func)}"
    fn.__doc__ = f"The {what} of {func.__qualname__}, computed by the generated " \
                 f"function {generated.__name__} (see tangent_ad.show_source)."
    fn.__tangent_ad__ = info
    fn.__wrapped_derivative__ = generated
    return fn


# ---- every callable, and functions of objects (see callables.py) -------------------

# the transforms themselves, for the ones built on them
_autodiff, _grad, _jvp, _vjp, _hvp = autodiff, grad, jvp, vjp, hvp
autodiff = callables.public(autodiff, lambda names, options: len(names)
                            if options.get("mode", "reverse") == "forward" else None)
grad = callables.public(grad)
value_and_grad = callables.public(value_and_grad)
jvp = callables.public(jvp, lambda names, options: len(names))
vjp = callables.public(vjp, lambda names, options: 1)
hvp = callables.public(hvp, lambda names, options: len(names))
jacobian = callables.public(jacobian)
hessian = callables.public(hessian)


# the derivatives of function values, made when they run (runtime/function_values.py):
# complex adjoints in the convention inside a derivative (JAX's: no conjugation)
function_values.use_transforms(
    lambda func, wrt: _derivative(func, "reverse", tuple(wrt), False, True, 0, kind="vjp",
                                  public=False), jvp)
