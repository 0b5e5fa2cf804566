"""A stand-in for the `autograd` package, built on tangent_ad's public API,
so that autograd's own test suite can run, unchanged, against tangent_ad
(benchmarks/peer_suites/autograd_tests.py).

``autograd.numpy`` is NumPy and ``autograd.scipy`` is SciPy: tangent_ad
differentiates calls of the real functions. The transforms below keep
autograd's signatures (``argnum``, nary functions, keyword arguments) and
its complex convention; each is a few calls of ``tangent_ad``.
"""
import builtins
import functools
import inspect
import sys
import weakref

import numpy
import numpy.fft
import numpy.linalg
import numpy.random

import tangent_ad as tad

from autograd import _convert
from autograd._convert import argnums, closed, conjugates, readable, to_autograd

for _name, _module in [("numpy", numpy), ("numpy.random", numpy.random),
                       ("numpy.linalg", numpy.linalg), ("numpy.fft", numpy.fft)]:
    sys.modules[f"{__name__}.{_name}"] = _module
numpy_module = numpy
del _name, _module

list = builtins.list
tuple = builtins.tuple
dict = builtins.dict
isinstance = builtins.isinstance


def _unpack(argnum, results):
    """tangent_ad returns one value for one wrt argument; autograd returns
    a tuple whenever `argnum` is a tuple."""
    if builtins.isinstance(argnum, (builtins.tuple, builtins.list)) and len(argnum) == 1:
        return (results,)
    return results


def make_vjp(fun, argnum=0):
    """``make_vjp(fun)(*args) == (vjp, fun(*args))``; ``vjp(g)`` is the
    cotangent of the argument(s) `argnum` for the output cotangent `g`."""
    def vjp_maker(*args, **kwargs):
        target = closed(fun, len(args), kwargs)
        derivative = tad.vjp(target, wrt=argnums(argnum))
        ans = target(*args)

        def vjp(g):
            return _unpack(argnum, to_autograd(derivative(*args, g), derivative))
        return vjp, ans
    return vjp_maker


def make_jvp(fun, argnum=0):
    """``make_jvp(fun)(*args)(v) == (fun(*args), J @ v)``."""
    def jvp_maker(*args, **kwargs):
        target = closed(fun, len(args), kwargs)
        derivative = tad.jvp(target, wrt=argnums(argnum))

        def jvp(v):
            tangents = v if builtins.isinstance(argnum, (builtins.tuple, builtins.list)) else (v,)
            return derivative(*args, *tangents)
        return jvp
    return jvp_maker


def grad(fun, argnum=0):
    """The gradient of real-scalar-valued `fun` (autograd's convention for a
    complex argument: d/dRe - i d/dIm)."""
    def gradient(*args, **kwargs):
        target = closed(fun, len(args), kwargs)
        try:
            derivative = tad.grad(target, wrt=argnums(argnum))
            result = derivative(*args)
        except tad.NonScalarOutputError as exc:  # autograd's error for it
            raise TypeError(str(exc)) from exc
        return _unpack(argnum, to_autograd(result, derivative))
    def form(nargs):
        derivative = tad.grad(closed(fun, nargs, {}), wrt=(argnum,))
        return readable(f"grad_{_label(fun)}", nargs, _in_autograd_convention(derivative, "({params})"),
                        {"derivative": derivative})
    if builtins.isinstance(argnum, int):
        gradient.tangent_ad_form = form
        return _readable_now(fun, form, gradient, ("grad", argnum))
    return gradient


_MADE_NOW = weakref.WeakKeyDictionary()  # fun -> {(transform, argnum): its readable form}


def _readable_now(fun, form, gradient, key):
    """`form` for `fun`'s own number of parameters, made now, when `fun`
    is a plain function (positional parameters without defaults): a
    readable function that calls tangent_ad's derivative, so that code
    which calls the gradient can itself be differentiated (the gradient
    is then a function value tangent_ad differentiates when it runs).
    Otherwise, or if tangent_ad refuses `fun` now, the `gradient` closure,
    which raises the same refusal when it is called, as autograd would.
    The form is made once per function and `key` (the transform and its
    argnum): code that calls ``grad(f)`` at each step pays a look-up."""
    try:
        made = _MADE_NOW.get(fun, {}).get(key)
    except TypeError:  # no weak reference to it
        made = None
    if made is not None:
        return made
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return gradient
    if not _convert._fits(fun, len(params)) or any(p.default is not p.empty for p in params):
        return gradient
    try:
        made = form(len(params))
    except tad.TangentADError:
        return gradient
    made.tangent_ad_form = form
    try:
        _MADE_NOW.setdefault(fun, {})[key] = made
    except TypeError:
        pass
    return made


def _in_autograd_convention(derivative, call):
    """The body of a form: the call of `derivative`, conjugated where the
    shim's gradient conjugates its result (to_autograd). `conj_leaf`
    conjugates an array or number and leaves a container as it is: a
    form's gradient of a pytree of complex leaves would not be conjugated
    (autograd's suite and examples have none; the closure's conj_tree,
    which the form replaces, would)."""
    return f"conj_leaf(derivative{call})" if conjugates(derivative) else f"derivative{call}"


def _label(fun):
    name = getattr(fun, "__name__", "fun")
    return name if name.isidentifier() else "fun"


def value_and_grad(fun, argnum=0):
    """``(fun(*args), grad(fun)(*args))`` from one pass."""
    def both(*args, **kwargs):
        target = closed(fun, len(args), kwargs)
        try:
            derivative = tad.value_and_grad(target, wrt=argnums(argnum))
            value, result = derivative(*args)
        except tad.NonScalarOutputError as exc:
            raise TypeError(str(exc)) from exc
        return value, _unpack(argnum, to_autograd(result, derivative))

    def form(nargs):  # one pass, differentiable (tangent_ad has value_and_grad's rule)
        target = closed(fun, nargs, {})
        both = tad.value_and_grad(target, wrt=(argnum,))
        if not conjugates(both):
            return readable(f"value_and_grad_{_label(fun)}", nargs, "both({params})",
                            {"both": both})
        derivative = tad.grad(target, wrt=(argnum,))  # two calls, the gradient conjugated
        gradient = _in_autograd_convention(derivative, "({params})")
        return readable(f"value_and_grad_{_label(fun)}", nargs,
                        f"(target({{params}}), {gradient})",
                        {"derivative": derivative, "target": target})
    if builtins.isinstance(argnum, int):
        return _readable_now(fun, form, both, ("value_and_grad", argnum))
    return both


def grad_and_aux(fun, argnum=0):
    """The gradient of the first of `fun`'s two outputs, and the second
    (a vjp with cotangents (1, 0))."""
    def both(*args, **kwargs):
        vjp, (ans, aux) = make_vjp(fun, argnum)(*args, **kwargs)
        return vjp((numpy.ones_like(ans), numpy.zeros_like(aux))), aux
    return both


def elementwise_grad(fun, argnum=0):
    """The vjp of `fun` with a cotangent of ones (the diagonal of a diagonal
    Jacobian)."""
    def gradient(*args, **kwargs):
        vjp, ans = make_vjp(fun, argnum)(*args, **kwargs)
        if numpy.iscomplexobj(ans):
            raise TypeError("Elementwise_grad only applies to real-output functions.")
        return vjp(numpy.ones_like(ans))

    def form(nargs):
        target = closed(fun, nargs, {})
        derivative = tad.vjp(target, wrt=argnums(argnum))
        return readable(f"egrad_{_label(fun)}", nargs,
                        _in_autograd_convention(derivative, "({params}, np.ones_like(target({params})))"),
                        {"derivative": derivative, "target": target})
    if builtins.isinstance(argnum, int):
        gradient.tangent_ad_form = form
        return _readable_now(fun, form, gradient, ("elementwise_grad", argnum))
    return gradient


def deriv(fun, argnum=0):
    """The directional derivative of `fun` along a tangent of ones."""
    def derivative(*args, **kwargs):
        x = args[argnum]
        return make_jvp(fun, argnum)(*args, **kwargs)(numpy.ones_like(x) if numpy.ndim(x) else 1.0)[1]
    return derivative


def holomorphic_grad(fun, argnum=0):
    """f'(z) of a holomorphic `fun`: its vjp with a cotangent of one."""
    def derivative(*args, **kwargs):
        vjp, ans = make_vjp(fun, argnum)(*args, **kwargs)
        return vjp(numpy.ones_like(ans))
    return derivative


def jacobian(fun, argnum=0):
    """The dense Jacobian, of shape ``out.shape + in.shape``."""
    def dense(*args, **kwargs):
        return tad.jacobian(closed(fun, len(args), kwargs), wrt=argnum)(*args)
    return dense


def hessian(fun, argnum=0):
    """The dense Hessian of scalar-valued `fun`."""
    def dense(*args, **kwargs):
        return tad.hessian(closed(fun, len(args), kwargs), wrt=argnum)(*args)
    return dense


def make_hvp(fun, argnum=0):
    """``make_hvp(fun)(*args) == (hvp, grad(fun)(*args))``; ``hvp(v) == H @ v``."""
    def hvp_maker(*args, **kwargs):
        target = closed(fun, len(args), kwargs)
        product = tad.hvp(target, wrt=argnum)
        return (lambda v: product(*args, v)), grad(target, argnum)(*args)
    return hvp_maker


def hessian_tensor_product(fun, argnum=0):
    """``(*args, V) -> H @ V`` (contracting all of V's axes)."""
    def product(*args, **kwargs):
        args, vector = args[:-1], args[-1]
        return tad.hvp(closed(fun, len(args), kwargs), wrt=argnum)(*args, vector)
    return product


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun, argnum=0):
    """``(*args, V) -> tensordot(V, J, ndim(V))``: a vjp when V has the
    output's shape; when V has fewer axes (the output's leading ones), the
    Jacobian of ``tensordot(V, fun(*args), ndim(V))``."""
    def product(*args, **kwargs):
        args, vector = args[:-1], args[-1]
        vjp, out = make_vjp(fun, argnum)(*args, **kwargs)
        if numpy.shape(vector) == numpy.shape(out):
            return vjp(vector)
        target = closed(fun, len(args), kwargs)
        contracted = readable("contracted", len(args),
                              "np.tensordot(V, target({params}), axes=axes)",
                              {"V": vector, "target": target, "axes": numpy.ndim(vector)})
        return tad.jacobian(contracted, wrt=argnum)(*args)
    return product


vector_jacobian_product = tensor_jacobian_product


def make_ggnvp(f, g=None, f_argnum=0):
    """Generalized Gauss-Newton products ``J^T H_g J v``, from a jvp and a
    vjp of `f` and an hvp of `g`."""
    def ggnvp_maker(*args, **kwargs):
        f_vjp, f_x = make_vjp(f, f_argnum)(*args, **kwargs)
        f_jvp = make_jvp(f, f_argnum)(*args, **kwargs)
        if g is None:
            g_hvp = lambda v: v  # the Hessian of sum(x**2, axis=-1) / 2
        else:
            g_hvp = make_hvp(g)(f_x)[0]
        return lambda v: f_vjp(g_hvp(f_jvp(v)[1]))
    return ggnvp_maker


def checkpoint(fun):
    """tangent_ad's checkpoint: `fun`'s intermediates are recomputed in the
    backward pass instead of stored."""
    return tad.checkpoint(fun)


def _entry_point(transform):
    """`transform` as a library's entry point: a callable that is not a
    Python function (``functools.partial``), as a compiled library's would
    be. tangent_ad reads the Python functions that differentiated code
    calls, to refuse in-place writes to state they share; the shim's
    transforms write only their own caches (and ``linecache``), and what
    they return is a function value, which tangent_ad differentiates when
    the derivative runs (``grad(f)(x)`` inside a differentiated lambda)."""
    point = functools.partial(transform)
    point.__name__, point.__qualname__, point.__doc__ = \
        transform.__name__, transform.__qualname__, transform.__doc__
    return point


for _name in ("make_vjp", "make_jvp", "grad", "value_and_grad", "grad_and_aux",
              "elementwise_grad", "deriv", "holomorphic_grad", "jacobian", "hessian",
              "make_hvp", "hessian_tensor_product", "tensor_jacobian_product", "make_ggnvp"):
    globals()[_name] = _entry_point(globals()[_name])
hessian_vector_product = hessian_tensor_product
vector_jacobian_product = tensor_jacobian_product
del _name
