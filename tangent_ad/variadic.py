"""Functions given to a transform that take ``*args``, ``**kwargs`` or
keyword-only parameters: differentiated call by call.

Such a function's parameters are known only when it is called
(``loss(w, *batches)``, ``energy(x, *, beta=1.0)``). `at_call` waits for
the call: it writes a plain function whose parameters are that call's
arguments, one per value, and differentiates it. For
``loss(w, a, b)`` of ``def loss(w, *batches)`` that is::

    def loss_call(w, batches_0, batches_1):
        return loss(w, batches_0, batches_1)

The function it calls is the user's, unchanged, so its body (with its
``*args``) is differentiated as any called function is. Calls with the
same number of positional arguments and the same keywords share one
derivative. ``wrt`` counts the call's positional arguments (as JAX's
``argnums`` does) or names a parameter that is not variadic.
"""
import inspect
import itertools
import keyword

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.naming import label
from tangent_ad import texts

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD,
             inspect.Parameter.KEYWORD_ONLY)
_COUNTER = itertools.count(1)


def takes_variadic(func):
    """True for a plain function with ``*args`` or keyword-only parameters
    (and no ``**kwargs``, which called functions cannot take yet: the
    transform refuses it at the user's line)."""
    if not inspect.isfunction(func) or hasattr(func, "__tangent_ad__"):
        return False
    if not hasattr(func, "__wrapped__") and not hasattr(func, "__signature__"):
        # its signature is its code's: read from the flags, as a cache hit of
        # every transform asks this (inspect.signature was most of one)
        code = func.__code__
        return not code.co_flags & inspect.CO_VARKEYWORDS and bool(
            code.co_flags & inspect.CO_VARARGS or code.co_kwonlyargcount)
    try:
        kinds = {p.kind for p in inspect.signature(func).parameters.values()}
    except (TypeError, ValueError):
        return False
    return inspect.Parameter.VAR_KEYWORD not in kinds and bool(kinds & set(_VARIADIC))


def at_call(func, make, wrt, what, trailing=None):
    """A function that, called with `func`'s arguments (then `trailing(wrt)`
    more that the derivative takes: tangents, a cotangent), differentiates
    `func` for that call with ``make(plain_function, wrt_names)`` and runs
    the derivative."""
    signature = inspect.signature(func)
    made = {}

    def call(*args, **kwargs):
        extra = 0 if trailing is None else trailing(_items(wrt))
        primal, rest = args[:len(args) - extra], args[len(args) - extra:]
        params, values, source = _shape(signature, func, primal, kwargs)
        key = (len(primal), tuple(sorted(kwargs)))
        derivative = made.get(key)
        if derivative is None:
            plain = _plain(func, params, source)
            derivative = made[key] = make(plain, _names(func, wrt, params))
            call.__tangent_ad__ = getattr(derivative, "__tangent_ad__", None)
        return derivative(*values, *rest)

    call.__name__ = call.__qualname__ = f"{what}_{label(func)}"
    call.__doc__ = (f"The {what} of {func.__qualname__}, generated for the arguments "
                    "of each call, as its parameters are variadic (see tangent_ad.show_source).")
    call.__tangent_ad__ = None
    call.__tangent_ad_per_call__ = True  # not differentiated again (yet)
    return call


def _items(wrt):
    return (wrt,) if isinstance(wrt, (int, str)) else tuple(wrt)


def _shape(signature, func, args, kwargs):
    """The parameters of the plain function for a call of `func` with
    `args` and `kwargs`, its arguments in their order, and the call it
    makes (source text)."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{func.__qualname__}(): {exc}") from None
    params, values, passed = [], [], []
    taken = set(signature.parameters)

    def fresh(base):
        name = base if base.isidentifier() and not keyword.iskeyword(base) else "arg"
        candidate, i = name, 2
        while candidate in params or (candidate in taken and candidate != base):
            candidate, i = f"{name}_{i}", i + 1
        return candidate
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            for i, item in enumerate(value):
                params.append(fresh(f"{name}_{i}"))
                values.append(item)
                passed.append(params[-1])
        elif kind == inspect.Parameter.VAR_KEYWORD:
            for key, item in value.items():
                params.append(fresh(key if key not in taken else f"{name}_{key}"))
                values.append(item)
                passed.append(f"{key}={params[-1]}")
        else:
            params.append(name)
            values.append(value)
            passed.append(f"{name}={name}" if kind == inspect.Parameter.KEYWORD_ONLY else name)
    return params, values, ", ".join(passed)


def _names(func, wrt, params):
    """`wrt` (positions of the call's arguments, or parameter names) as
    parameters of the plain function."""
    items = _items(wrt)
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise TypeError(f"wrt entries must be ints or parameter names, not {item!r}")
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise ValueError(f"wrt={item} is out of range: this call of "
                                 f"{func.__qualname__} passes {len(params)} arguments")
            names.append(params[item])
        elif item in params:
            names.append(item)
        else:
            raise UnsupportedSyntaxError(
                f"wrt={item!r} names no argument of this call of {func.__qualname__}",
                hint="give positions of the call's arguments, e.g. wrt=(0, 1) for the "
                     "first two (the entries of *args count one by one)")
    return tuple(names)


def _plain(func, params, call):
    """``def <name>_call(params): return <name>(call)``, loaded so that
    ``inspect.getsource`` reads it, calling `func` by its name."""
    name = label(func)
    if not name.isidentifier() or keyword.iskeyword(name):
        name = "function"
    header = f"{name}_call"
    source = f"def {header}({', '.join(params)}):\n    return {name}({call})\n"
    filename = f"<tangent_ad call of {name} #{next(_COUNTER)}>"
    texts.register(filename, source)
    namespace = {name: func, "__name__": getattr(func, "__module__", None) or "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[header]
