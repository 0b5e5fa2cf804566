"""The public transforms: grad, value_and_grad, vjp, jvp, autodiff and
show_source (hvp, jacobian and hessian, built on them, are in matrices.py).

Each returns a generated Python function (see ``show_source``). Results
are cached: asking twice for the same derivative of the same function
with the same options returns the same function object.
"""
import dataclasses
import functools
import inspect

from tangent_ad import callables, live, loader, pipeline, progress, second_order
from tangent_ad.compiled import compiler
from tangent_ad.display import SourceText
from tangent_ad.errors import CompileError
from tangent_ad.naming import label
from tangent_ad.staging import dispatch as staging
from tangent_ad.registry import REGISTRY
from tangent_ad.runtime import function_values

_CACHE = {}


def wrt_names(func, wrt):
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
    return derivative(func, mode, wrt, preserve_result, optimized, verbose)


def derivative(func, mode, wrt, preserve_result, optimized, verbose, kind=None,
                public=True, has_aux=False, scalar=False, compile=None, fallback=False):
    """`autodiff`, with the kind of the requested function (see pipeline).

    What it returns is cached, and reused while what it was generated
    from is unchanged (``live.py``). A `public` derivative (one the user
    holds) is a dispatcher that generates itself again, in place, on the
    first call after such a change; the others are the generated
    functions themselves.
    """
    options = (mode, bool(preserve_result), bool(optimized), kind, public, bool(has_aux),
               bool(scalar), compile, bool(fallback))
    try:  # as asked: a hit costs no look at the signature
        cached = _CACHE.get((func, wrt) + options)
    except TypeError:  # an unhashable wrt, such as a list
        cached = None
    if cached is None:
        names = wrt_names(func, wrt)
        cached = _CACHE.get((func, names) + options)
    if cached is not None and _refreshed(cached):
        if verbose:
            print(cached.__tangent_ad__.source)
        return cached
    if second_order.is_wrapper(func):
        second_order.refuse_wrapper(func)
    compiling = compiler.compiling(compile, fallback, verbose) if public else None

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
                                  conjugate=public,  # internal products: JAX's convention
                                  inline_calls=compiling is not None)

    names = wrt_names(func, wrt)
    if public:
        with progress.timed(f"differentiating {getattr(func, '__qualname__', func)}", verbose):
            fn = generate()
    else:
        fn = generate()
    if compiling is not None:  # copies compiled for the argument kinds
        fn = _compiled(fn, generate, compiling)
    elif public and optimized and mode == "reverse" and kind is None:
        fn = staging.staged(fn, generate)  # copies specialized to the argument kinds
    if public and not hasattr(fn, "__tangent_ad_stager__"):
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
    if not hasattr(staged, "__tangent_ad_stager__"):
        code = getattr(fn.__tangent_ad__.primal, "__code__", None)
        compiler.give_up(CompileError(
            f"{fn.__name__} cannot be compiled with numba: its parameters are keyword-only "
            f"or variadic, or it calls functions of other modules that read their globals",
            filename=getattr(code, "co_filename", None),
            lineno=getattr(code, "co_firstlineno", None),
            hint="compile=None runs it as Python"), compiling, fn.__name__)
    return staged


def _refreshed(fn):
    """True when `fn` is current, or a dispatcher now brought up to date."""
    if hasattr(fn, "__tangent_ad_refresh__"):
        live.behind(fn)
        return True
    return live.current(fn)


def _product(func, mode, wrt, kind):
    return derivative(func, mode, wrt, False, True, 0, kind=kind, public=False)


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
        return derivative(func, "reverse", wrt, False, optimized, verbose,
                           compile=compile, fallback=fallback)
    both = derivative(func, "reverse", wrt, True, optimized, verbose, has_aux=True,
                       compile=compile, fallback=fallback)

    def gradient_and_aux(*args, **kwargs):
        (_, aux), gradient = both(*args, **kwargs)
        return gradient, aux

    return named_wrapper(gradient_and_aux, both, func, "grad")


def value_and_grad(func=None, wrt=(0,), *, has_aux=False, optimized=True, compile=None,
                   fallback=False, verbose=0):
    """Like `grad`, but the function returns ``(func(*args), gradient)``;
    with ``has_aux=True``, ``((loss, aux), gradient)``."""
    if func is None:
        return functools.partial(value_and_grad, wrt=wrt, has_aux=has_aux,
                                 optimized=optimized, compile=compile, fallback=fallback,
                                 verbose=verbose)
    return derivative(func, "reverse", wrt, True, optimized, verbose, has_aux=has_aux,
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
    return derivative(func, "forward", wrt, False, optimized, verbose, compile=compile,
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
    return derivative(func, "reverse", wrt, False, optimized, verbose, kind="vjp",
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


def named_wrapper(fn, generated, func, what, extra=None):
    """`fn`, named after `func`, carrying the `Generated` record of the
    generated function it calls (so that ``show_source`` shows its code),
    with the code of the record `extra` after it."""
    info = generated.__tangent_ad__
    if extra is not None:
        info = dataclasses.replace(info, source=info.source.rstrip("\n") + "\n\n\n" +
                                   extra.source, trees=(), loads=info.loads + extra.loads,
                                   defines=info.defines + extra.defines)
    fn.__name__ = fn.__qualname__ = f"{what}_{label(func)}"
    fn.__doc__ = f"The {what} of {func.__qualname__}, computed by the generated " \
                 f"function {generated.__name__} (see tangent_ad.show_source)."
    fn.__tangent_ad__ = info
    fn.__wrapped_derivative__ = generated
    return fn


# ---- every callable, and functions of objects (see callables.py) -------------------

# the transforms themselves, for the ones built on them
plain_grad, plain_jvp, plain_vjp = grad, jvp, vjp
autodiff = callables.public(autodiff, lambda names, options: len(names)
                            if options.get("mode", "reverse") == "forward" else None)
grad = callables.public(grad)
value_and_grad = callables.public(value_and_grad)
jvp = callables.public(jvp, lambda names, options: len(names))
vjp = callables.public(vjp, lambda names, options: 1)


# the derivatives of function values, made when they run (runtime/function_values.py):
# complex adjoints in the convention inside a derivative (JAX's: no conjugation)
function_values.use_transforms(
    lambda func, wrt: derivative(func, "reverse", tuple(wrt), False, True, 0, kind="vjp",
                                  public=False), jvp)
