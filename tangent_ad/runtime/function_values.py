"""Calls of function values known only when the code runs.

``h = pick(kind); y = h(x)``, ``maker(ans, x)(g)``, ``grad(f)(x)`` through
a library's wrapper: the function called is a value the transformer
cannot see, so the front end writes such a call as ``call_value(h, (x,))``
and the derivative asks for the derivative of that value when it runs:

    bt = call_value(vjp_function(h, t), (by, t))         # reverse mode, t = (x,)
    dy = call_value(jvp_function(h, t), (t, dt))         # forward mode

``vjp_function(h, t)`` is a readable function of ``(cotangent, args)``
that returns the adjoints of the arguments (None for a bool, a string or
another value without a derivative), made with ``tad.vjp`` the first time
`h` is seen with arguments of that count and kind; ``jvp_function``
likewise with ``tad.jvp``. Keyword arguments are values of `args` too,
named by the third argument of ``call_value``.
Both are ordinary functions with source, so their own calls are
differentiated the same way: reverse over reverse and forward over
reverse (templates/function_values.py) work to any order. The value `h`
itself must not depend on the differentiated arguments (a closure over
them would hide a path of the derivative): the transformer refuses that.

tangent_ad.api hands this module its transforms when it loads
(``use_transforms``): the runtime imports nothing above it, and generated
code that calls no function value needs NumPy only.
"""
import itertools
import weakref

import numpy as np

from tangent_ad import texts

__all__ = ["call_value", "vjp_function", "jvp_function"]

_COUNTER = itertools.count(1)
_MADE = weakref.WeakKeyDictionary()  # function -> {(kind, count, names, wrt): derivative}
_PLAIN = {}  # the same for values that take no weak reference (builtins, ufuncs)
_TRANSFORMS = {}  # "vjp", "jvp": given by tangent_ad.api (use_transforms)


def call_value(function, args, names=()):
    """``function(*args)``: the call as the user wrote it; the last
    ``len(names)`` values of `args` are passed by those keywords.

    >>> call_value(max, (2.0, 3.0))
    3.0
    >>> call_value(round, (2.567, 2), ("ndigits",))
    2.57
    """
    if not names:
        return function(*args)
    split = len(args) - len(names)
    return function(*args[:split], **dict(zip(names, args[split:])))


# what the transformer says when the function itself carries a derivative
call_value.__tangent_ad_refusal__ = (
    "the function called here is made from the differentiated arguments (a closure "
    "over them, say), so its derivative cannot be taken when the code runs",
    "pass those values to the function as arguments, or call a function defined "
    "at module level by its name; for a method of an object made from them, call "
    "it through its class: Layer.forward(obj, x)")


def vjp_function(function, args, names=()):
    """``(cotangent, args) -> adjoints of args`` for ``call_value(function,
    args, names)`` (a tuple, also for one; None for an argument that
    carries no derivative, a bool or a string).

    >>> import math, tangent_ad.api  # which gives this module its transforms
    >>> vjp_function(math.sin, (0.0,))(2.0, (0.0,))
    (2.0,)
    """
    return _made(function, "vjp", args, tuple(names))


def jvp_function(function, args, names=()):
    """``(args, tangents) -> tangent of call_value(function, args, names)``."""
    return _made(function, "jvp", args, tuple(names))


def _made(function, kind, args, names):
    count = len(args)
    wrt = tuple(i for i, a in enumerate(args) if _differentiable(a))
    try:
        table = _MADE.setdefault(function, {})
    except TypeError:  # no weak reference (a builtin): kept, found by equality
        try:
            table = _PLAIN.setdefault(function, {})
        except TypeError:  # unhashable: made again for each call
            table = {}
    key = (kind, count, names, wrt)
    if key not in table:
        from tangent_ad.errors import TangentADError
        try:
            table[key] = _derivative_of(function, kind, count, names, wrt)
        except TangentADError as exc:
            raise _at_the_call(exc, function) from None
    return table[key]


def _at_the_call(exc, function):
    """`exc`, raised while differentiating `function` when the derivative
    runs, told at the user's line that called the value (when the file
    of `exc` is not the user's already)."""
    from tangent_ad import tracebacks
    import sys

    if exc.filename is not None and not str(exc.filename).startswith(tracebacks.GENERATED_PREFIX):
        return exc  # in the function's own code: its line says it best
    frame = tracebacks.generated_frame(sys._getframe(1))
    place = tracebacks.user_line(frame) if frame is not None else None
    what = getattr(function, "__qualname__", None) or type(function).__name__
    message = f"the function value called here ({what}) has no derivative: {exc.message}"
    if place is None:
        return type(exc)(message, hint=exc.hint)
    return type(exc)(message, filename=place[0], lineno=place[1], source_line=place[2],
                     hint=exc.hint)


def use_transforms(vjp, jvp):
    """Take the transforms that make values' derivatives: ``vjp(f, wrt)``
    (in the convention derivatives use inside) and ``jvp(f, wrt=)``.
    tangent_ad.api gives them when it loads; the runtime imports nothing
    above it, so that the pipeline's imports flow one way."""
    _TRANSFORMS.update(vjp=vjp, jvp=jvp)


def _derivative_of(function, kind, count, names, wrt):
    if not _TRANSFORMS:
        from tangent_ad.errors import SourceUnavailableError
        raise SourceUnavailableError(
            "this derivative calls a function value, whose derivative tangent_ad makes "
            "when it runs", hint="import tangent_ad.api before running it")
    params = [f"a{i}" for i in range(count)]
    split = count - len(names)
    passed = params[:split] + [f"{n}={p}" for n, p in zip(names, params[split:])]
    caller = _readable(
        "call_function_value",
        f"def call_function_value({', '.join(params)}):\n"
        f"    return function({', '.join(passed)})\n",
        {"function": function})
    values = ", ".join(f"args[{i}]" for i in range(count))
    if kind == "vjp":
        derivative = _TRANSFORMS["vjp"](caller, wrt)  # JAX's complex convention, as inside
        got = f"derivative({values}, cotangent)"
        got = f"({got},)" if len(wrt) == 1 else got
        spread = ", ".join(f"g[{wrt.index(i)}]" if i in wrt else "None" for i in range(count))
        return _readable("vjp_of_function_value",
                         f"def vjp_of_function_value(cotangent, args):\n"
                         f"    g = {got}\n    return ({spread},)\n",
                         {"derivative": derivative})
    derivative = _TRANSFORMS["jvp"](caller, wrt=wrt)
    tangents = ", ".join(f"tangents[{i}]" for i in wrt)
    return _readable("jvp_of_function_value",
                     f"def jvp_of_function_value(args, tangents):\n"
                     f"    return derivative({values}, {tangents})[1]\n",
                     {"derivative": derivative})


def _differentiable(value):
    """Whether an argument can carry a derivative: a float, a complex, a
    float array, or a container or object holding one. An int (an axis, a
    count: a differentiated value is a float by then), a bool, a string,
    None, a function cannot: they are left out of the derivative's wrt."""
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return False
    if isinstance(value, (float, complex, np.inexact)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc"
    if isinstance(value, (tuple, list)):
        return any(_differentiable(v) for v in value)
    if isinstance(value, dict):
        return any(_differentiable(v) for v in value.values())
    return hasattr(value, "__array__") or hasattr(value, "__dict__") and not callable(value)


def _readable(name, source, namespace):
    """The function `name` defined by `source`, its text in ``linecache``
    (tangent_ad reads the source of what it differentiates)."""
    filename = f"<tangent_ad function value {next(_COUNTER)}>"
    texts.register(filename, source)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]
