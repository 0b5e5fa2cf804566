"""Calls of function values known only when the code runs.

``h = pick(kind); y = h(x)``, ``maker(ans, x)(g)``, ``grad(f)(x)`` through
a library's wrapper: the function called is a value the transformer
cannot see, so the front end writes such a call as ``call_value(h, (x,))``
and the derivative asks for the derivative of that value when it runs:

    bt = call_value(vjp_function(h, 1), (by, (x,)))      # reverse mode
    dy = call_value(jvp_function(h, 1), ((x,), (dx,)))   # forward mode

``vjp_function(h, n)`` is a readable function of ``(cotangent, args)``
that returns the adjoints of the `n` arguments, made with ``tad.vjp``
the first time `h` is seen; ``jvp_function`` likewise with ``tad.jvp``.
Both are ordinary functions with source, so their own calls are
differentiated the same way: reverse over reverse and forward over
reverse (templates/function_values.py) work to any order. The value `h`
itself must not depend on the differentiated arguments (a closure over
them would hide a path of the derivative): the transformer refuses that.

This module imports tangent_ad's transforms when a derivative of a value
is first needed, so generated code that calls no function value still
needs NumPy only.
"""
import itertools
import linecache
import weakref

__all__ = ["call_value", "vjp_function", "jvp_function"]

_COUNTER = itertools.count(1)
_MADE = weakref.WeakKeyDictionary()  # function -> {(kind, count): readable derivative}
_PLAIN = {}  # for values that take no weak reference (builtins, ufuncs)


def call_value(function, args):
    """``function(*args)``: the call as the user wrote it.

    >>> call_value(max, (2.0, 3.0))
    3.0
    """
    return function(*args)


# what the transformer says when the function itself carries a derivative
call_value.__tangent_ad_refusal__ = (
    "the function called here is made from the differentiated arguments (a closure "
    "over them, say), so its derivative cannot be taken when the code runs",
    "pass those values to the function as arguments, or call a function defined "
    "at module level by its name")


def vjp_function(function, count):
    """``(cotangent, args) -> adjoints of args`` for ``function(*args)``
    with `count` arguments (a tuple, also for one).

    >>> import math
    >>> vjp_function(math.sin, 1)(2.0, (0.0,))
    (2.0,)
    """
    return _made(function, "vjp", count)


def jvp_function(function, count):
    """``(args, tangents) -> tangent of function(*args)``."""
    return _made(function, "jvp", count)


def _made(function, kind, count):
    try:
        table = _MADE.setdefault(function, {})
    except TypeError:
        table = _PLAIN.setdefault(id(function), {})
    if (kind, count) not in table:
        from tangent_ad.errors import TangentADError
        try:
            table[(kind, count)] = _derivative_of(function, kind, count)
        except TangentADError as exc:
            raise _at_the_call(exc, function) from None
    return table[(kind, count)]


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


def _derivative_of(function, kind, count):
    from tangent_ad import api  # here: the package imports the runtime

    caller = _readable(
        "call_function_value",
        f"def call_function_value({_items('a', count, plain=True)}):\n"
        f"    return function({_items('a', count, plain=True)})\n",
        {"function": function})
    wrt = tuple(range(count))
    if kind == "vjp":
        derivative = api.inner_vjp(caller, wrt)  # JAX's complex convention, as inside
        call = f"derivative({_items('args', count)}, cotangent)"
        body = f"({call},)" if count == 1 else call
        return _readable("vjp_of_function_value",
                         f"def vjp_of_function_value(cotangent, args):\n    return {body}\n",
                         {"derivative": derivative})
    derivative = api.jvp(caller, wrt=wrt)
    call = f"derivative({_items('args', count)}, {_items('tangents', count)})"
    return _readable("jvp_of_function_value",
                     f"def jvp_of_function_value(args, tangents):\n    return {call}[1]\n",
                     {"derivative": derivative})


def _items(base, count, plain=False):
    """``a0, a1`` (plain) or ``args[0], args[1]``."""
    return ", ".join(f"{base}{i}" if plain else f"{base}[{i}]" for i in range(count))


def _readable(name, source, namespace):
    """The function `name` defined by `source`, its text in ``linecache``
    (tangent_ad reads the source of what it differentiates)."""
    filename = f"<tangent_ad function value {next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]
