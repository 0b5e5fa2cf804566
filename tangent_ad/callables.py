"""Callables that are not plain functions: what a transform differentiates for them.

A bound method, a classmethod, an object with ``__call__`` and a
``functools.partial`` all call a plain Python function with some arguments
already bound: ``model.loss(w)`` runs ``Model.loss(model, w)``,
``partial(loss, s=3.0)(w)`` runs ``loss(w, s=3.0)``. `bound` finds that
function and those arguments; the transforms differentiate the function
(so one derivative serves every instance: the bound object is an argument
of it, whose attributes are read when the derivative runs, as Python reads
them) and `Bound.wrap` puts the bound arguments back in at each call.
``wrt`` counts (and names) the parameters the caller still passes.
"""
import functools
import inspect

from tangent_ad import variadic
from tangent_ad.errors import InternalError, TangentADError, UnsupportedSyntaxError
from tangent_ad.frontend import class_specs, classes
from tangent_ad.naming import label


class Bound:
    """`function` with `args` bound before the caller's arguments and
    `keywords` bound by name (see the module docstring)."""

    def __init__(self, function, args=(), keywords=None, what=None):
        self.function = function
        self.args = tuple(args)
        self.keywords = dict(keywords or {})
        self.what = what or getattr(function, "__qualname__", repr(function))
        params = list(inspect.signature(function).parameters.values())
        self.params = [p.name for p in params]
        # the parameters the caller still passes, in order (a keyword bound
        # by a partial may be passed again, as partial allows)
        self.free = [p.name for p in params[len(self.args):]
                     if p.name not in self.keywords and
                     p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.defaults = {p.name: p.default for p in params if p.default is not p.empty}

    def names(self, wrt):
        """`wrt` (indices of the free parameters, or names) as parameter names
        of `function`."""
        items = (wrt,) if isinstance(wrt, (int, str)) else tuple(wrt)
        names = []
        for item in items:
            if isinstance(item, int) and not isinstance(item, bool):
                if not -len(self.free) <= item < len(self.free):
                    raise ValueError(f"wrt={item} is out of range: {self.what} takes "
                                     f"{len(self.free)} arguments")
                names.append(self.free[item])
            elif isinstance(item, str) and item in self.params[len(self.args):]:
                names.append(item)
            elif isinstance(item, str):
                raise ValueError(f"wrt={item!r} is not a parameter of {self.what} "
                                 f"(parameters: {', '.join(self.free)})")
            else:
                raise TypeError(f"wrt entries must be ints or parameter names, "
                                f"not {item!r}")
        return tuple(names)

    def wrap(self, derivative, what, trailing=None):
        """A function taking the caller's arguments (then the `trailing`
        ones the derivative takes after them: a cotangent, tangents,
        vectors) that calls `derivative` with the bound ones put back in.
        Parameters with defaults may be left out, as `derivative` allows."""
        count = len(self.free)
        later = self.params[len(self.args):]

        def call(*args, **kwargs):
            split = count if trailing is None else len(args) - trailing
            given = dict(zip(self.free, args[:split]))
            extra = args[split:]
            keywords = dict(self.keywords)
            for key in list(kwargs):
                if key in later:
                    given[key] = kwargs.pop(key)
            values = list(self.args)
            for param in later:
                if param in given:
                    values.append(given[param])
                elif param in keywords:
                    values.append(keywords[param])
                elif param in self.defaults:
                    values.append(self.defaults[param])
                else:
                    raise TypeError(f"{what} of {self.what} is missing the "
                                    f"argument '{param}'")
            out = derivative(*values, *extra, **kwargs)
            call.__tangent_ad__ = getattr(derivative, "__tangent_ad__", None)
            return out

        functools.update_wrapper(call, derivative, assigned=("__doc__",), updated=())
        call.__name__ = call.__qualname__ = f"{what}_{label(self.function)}"
        call.__tangent_ad__ = getattr(derivative, "__tangent_ad__", None)
        call.__wrapped_derivative__ = derivative
        call.__tangent_ad_bound__ = self
        return call


def bound(func):
    """The `Bound` form of a bound method, classmethod, callable object or
    ``functools.partial`` (nested ones too); None for anything else (a
    plain function, a staticmethod, which is one, or a generated derivative)."""
    if isinstance(func, functools.partial):
        inner = bound(func.func)
        function, args, keywords = (func.func, (), {}) if inner is None else \
            (inner.function, inner.args, inner.keywords)
        return Bound(function, args + func.args, {**keywords, **func.keywords},
                     what=f"functools.partial({_name(func.func)}, ...)")
    if inspect.ismethod(func) and inspect.isfunction(func.__func__):
        return Bound(func.__func__, (func.__self__,), what=func.__qualname__)
    if inspect.isfunction(func) or inspect.isclass(func) or inspect.isroutine(func) \
            or hasattr(func, "__tangent_ad__") or not callable(func):
        return None
    call = getattr(type(func), "__call__", None)
    if inspect.isfunction(call):
        return Bound(call, (func,), what=f"{type(func).__qualname__} object")
    return None


def _name(func):
    return getattr(func, "__qualname__", None) or type(func).__name__


def by_classes(func, make, what):
    """A derivative of `func` generated when it is called, for the classes
    of the objects among its arguments (``frontend/classes.py``), and
    again for other classes: ``make(copy of func for those classes)`` is
    the transform. What `func` does with an object's methods and
    properties depends on its class, which is known only then."""
    params = list(inspect.signature(func).parameters)
    made = {}

    def call(*args, **kwargs):
        specs = {}
        for param, value in zip(params, args):
            spec = class_specs.spec_of(value)
            if spec is not None:
                specs[param] = spec
        for param, value in kwargs.items():
            spec = class_specs.spec_of(value) if param in params else None
            if spec is not None:
                specs[param] = spec
        key = tuple(sorted(specs.items(), key=lambda item: item[0]))
        derivative = made.get(key)
        if derivative is None:
            derivative = made[key] = make(class_specs.specialized(func, key))
            call.__tangent_ad__ = getattr(derivative, "__tangent_ad__", None)
        return derivative(*args, **kwargs)

    call.__name__ = call.__qualname__ = f"{what}_{label(func)}"
    call.__doc__ = (f"The {what} of {func.__qualname__}, generated for the classes of "
                    "its arguments when it is called (see tangent_ad.show_source).")
    call.__tangent_ad__ = None
    call.__tangent_ad_by_classes__ = True
    return call


def public(transform, trailing=None):
    """The public form of `transform` (``grad``, ``jvp``...): for a bound
    method, callable object or partial, the transform of its function with
    the bound arguments put back in (`trailing(names, options)` counts the
    arguments the derivative takes after `func`'s); for a function that
    uses methods or properties of its arguments, `by_classes`."""
    signature = inspect.signature(transform)

    @functools.wraps(transform)
    def call(func=None, *args, **kwargs):
        if func is None:  # a decorator with options: @grad(wrt=(0, 1))
            return transform(None, *args, **kwargs)
        if getattr(func, "__tangent_ad_by_classes__", False):
            raise UnsupportedSyntaxError(
                f"{func.__name__} is generated for the classes of its arguments when "
                "it is called, so it cannot be differentiated again yet",
                hint="differentiate a function of arrays that calls the original, "
                     "e.g. lambda x: loss(model, x)")
        if getattr(func, "__tangent_ad_per_call__", False):
            raise UnsupportedSyntaxError(
                f"{func.__name__} is generated for each call's arguments (its function "
                "takes *args, **kwargs or keyword-only parameters), so it cannot be "
                "differentiated again yet",
                hint="differentiate a function with plain parameters that calls the "
                     "original, e.g. lambda x, y: loss(x, y)")
        if variadic.takes_variadic(func):
            options = signature.bind(func, *args, **kwargs).arguments
            wrt = options.pop("wrt", signature.parameters["wrt"].default)
            options.pop("func")
            return variadic.at_call(
                func, lambda plain, names: call(plain, wrt=names, **options), wrt,
                transform.__name__, trailing and (lambda items: trailing(items, options)))
        bound_form = bound(func)
        if bound_form is not None:
            options = signature.bind(func, *args, **kwargs).arguments
            wrt = options.pop("wrt", signature.parameters["wrt"].default)
            options.pop("func")
            names = bound_form.names(wrt)
            derivative = call(bound_form.function, wrt=names, **options)
            return bound_form.wrap(derivative, transform.__name__,
                                   trailing and trailing(names, options))
        try:
            return transform(func, *args, **kwargs)
        except classes.UnknownClass:
            return by_classes(func, lambda target: transform(target, *args, **kwargs),
                              transform.__name__)
        except InternalError:
            raise  # a bug of ours: its frames are what a report needs
        except TangentADError as exc:
            # a refusal names the user's file and line itself: the frames of
            # the transformation behind it are not the user's to read
            raise exc.with_traceback(None) from exc.__cause__
    return call
