"""Reverse mode over a gradient: ``grad(grad(f))`` and calls to gradients.

A gradient ``g = tad.grad(f, wrt=W)`` maps the arguments ``p`` of `f`
(and the seed ``bresult``) to ``bresult * grad_W f(p)``. Its pullback, for
a cotangent ``u`` of that output (one entry per argument in `W`), gives
each argument ``v`` of `f` the adjoint

    bresult * d/dv <u, grad_W f(p)>  =  bresult * (H u)_v,

a block of the Hessian of `f` applied to ``u``: a Hessian-vector
product, which tangent_ad computes exactly by forward mode over the
gradient of `f` with respect to ``v`` (``tad.hvp``'s construction; the
Hessian is symmetric, so no reverse pass over generated code is needed).
The seed's own adjoint is ``<u, grad_W f(p)>``.

A jvp ``F = tad.jvp(f, wrt=W)`` gets a rule the same way (``_jvp_rule``):
its pullback is made of vjps of `f` and forward mode over them.

This module turns that into an ordinary reverse rule of `g`, written as a
template like every other rule::

    def rule_of_dfdx(result, x, bresult=1.0):
        d[x] = hvp_f_dx(x, bresult, d[result])
        d[bresult] = seed_adjoint_f_dx(x, d[result])

so a function that calls a gradient is differentiated like any other
call, and ``grad(g)`` differentiates ``caller(g)``, a one-line function
that returns ``g(...)``. The products are generated on their first call
(by the `derivative` function given to `rule`), not when the rule is made.
"""
import inspect
import linecache
import types

import numpy as np

from tangent_ad.errors import NonScalarOutputError


def _generated(fn):
    """The record of the generated function `fn`; None for other functions
    and for the wrappers of ``tad.hvp``, ``tad.jacobian`` and
    ``tad.hessian``, which carry the record of the function they call."""
    if is_wrapper(fn):
        return None
    return getattr(fn, "__tangent_ad__", None)


def is_wrapper(fn):
    """True for a function made by ``tad.hvp``, ``tad.jacobian`` or
    ``tad.hessian`` (plain Python around generated code)."""
    return hasattr(fn, "__wrapped_derivative__")


def refuse_wrapper(fn, where=None):
    """Raise UnsupportedSyntaxError for differentiating `fn`, a wrapper."""
    from tangent_ad.errors import UnsupportedSyntaxError
    raise UnsupportedSyntaxError(
        f"{fn.__name__} was made by tangent_ad.hvp, tangent_ad.jacobian or "
        "tangent_ad.hessian, whose results cannot be differentiated",
        hint="differentiate the transforms they are built from instead: "
             "tangent_ad.grad(tangent_ad.grad(f)), tangent_ad.jvp(tangent_ad.grad(f)), "
             "tangent_ad.vjp(tangent_ad.grad(f)) or tangent_ad.vjp(tangent_ad.jvp(f))",
        **(where or {}))


def is_gradient(fn):
    """True for a function made by ``tad.grad`` (not value_and_grad, vjp
    or a pullback): the only generated functions with a reverse rule here."""
    info = _generated(fn)
    return info is not None and info.mode == "reverse" and \
        info.kind == "gradient" and not info.preserve_result


def is_vjp(fn):
    """True for a function made by ``tad.vjp``."""
    info = _generated(fn)
    return info is not None and info.mode == "reverse" and info.kind == "vjp"


def is_jvp(fn):
    """True for a function made by ``tad.jvp``."""
    info = _generated(fn)
    return info is not None and info.mode == "forward" and info.kind == "jvp"


def has_rule(fn):
    """True for the generated functions this module gives a reverse rule."""
    return is_gradient(fn) or is_jvp(fn) or is_vjp(fn)


COTANGENT = "cotangent"  # a vjp's `bresult`, renamed in its caller


def caller(g, keep_seed=False):
    """``def <g's name>(<g's parameters>): return g(<parameters>)``, with
    g's defaults: the function whose derivative is the derivative of `g`.
    A gradient's seed stays 1.0 (unless `keep_seed`: it is differentiated)
    and a vjp's is called ``cotangent``: the derivative has a seed
    ``bresult`` of its own."""
    params = [p for p in inspect.signature(g).parameters.values()
              if p.name != "bresult" or not is_gradient(g) or keep_seed]
    names = [caller_name(p.name) for p in params]
    namespace, header = {}, []
    for name, p in zip(names, params):
        header.append(_with_default(name, p, namespace))
    source = (f"def {g.__name__}({', '.join(header)}):\n"
              f"    return {g.__name__}({', '.join(names)})\n")
    wrapper = _load(source, f"<tangent_ad caller of {g.__name__} #{id(g)}>", namespace,
                    g.__name__)
    namespace[g.__name__] = g  # the body calls g, under g's own name
    wrapper.__tangent_ad_caller__ = True
    # the products of a gradient's rule check that the output is a scalar
    # (``_Product``), so the derivative need not compute it for the check
    wrapper.__tangent_ad_checked_output__ = is_gradient(g)
    return wrapper


def caller_name(param):
    """The name of `param` of a generated function in its `caller`."""
    return COTANGENT if param == "bresult" else param


def rule(fn, derivative):
    """The reverse template of the gradient or jvp `fn` (None for other
    functions).

    ``derivative(func, mode, wrt, kind)`` is ``tad.autodiff`` with a kind:
    it makes the vector-Jacobian and forward-over-reverse products.
    """
    if is_wrapper(fn):
        refuse_wrapper(fn)
    if is_jvp(fn):
        return _jvp_rule(fn, derivative)
    if is_gradient(fn):
        return _gradient_rule(fn, derivative)
    if is_vjp(fn):
        return _vjp_rule(fn, derivative)
    return None


def _gradient_rule(g, derivative):
    """``d[v] = bresult * (H u)_v`` for each argument v of f (module docstring)."""
    info = g.__tangent_ad__
    f, wrt = info.primal, tuple(info.wrt)
    signature = inspect.signature(g)
    params = list(signature.parameters)
    primal = [p for p in params if p != "bresult"]
    if len(params) != len(primal) + 1:
        return None  # a parameter of f named bresult: no rule, refused as before
    spread = _spread(len(wrt))
    namespace, lines = {}, []
    for v in primal:
        product = f"hvp_{f.__name__}_d{'_'.join(wrt)}" + ("" if wrt == (v,) else f"_d{v}")
        namespace[product] = _Product(product, derivative, f, (v,), wrt)
        lines.append(f"    d[{v}] = {product}({', '.join(params)}, {spread})")
    seed = f"seed_adjoint_{f.__name__}_d{'_'.join(wrt)}"
    namespace[seed] = _SeedAdjoint(seed, g)
    lines.append(f"    d[bresult] = {seed}({', '.join(primal)}, d[result])")
    header = ", ".join(["result"] + [_with_default(p, v, namespace)
                                     for p, v in signature.parameters.items()])
    name = f"rule_of_{g.__name__}"
    source = f"def {name}({header}):\n" + "\n".join(lines) + "\n"
    return _load(source, f"<tangent_ad rule of {g.__name__} #{id(g)}>", namespace, name)


def _spread(count):
    """The cotangent of a gradient or vjp of `count` arguments as that many
    arguments: ``d[result]``, or ``d[result][0], d[result][1], ...`` (not
    ``*d[result]``: forward mode over the derivative, a third derivative,
    binds each of them to a parameter of the product it calls)."""
    if count == 1:
        return "d[result]"
    return ", ".join(f"d[result][{i}]" for i in range(count))


def _with_default(name, param, namespace):
    """`name` with the default of the parameter `param` (of a generated
    function), for the header of a function that takes the same arguments:
    a number or string written out, another value bound in `namespace` as
    ``default_<name>``, from where generated code calling it loads it."""
    if name == "bresult":
        return "bresult=1.0"
    value = param.default
    if value is param.empty:
        return name
    if type(value) in (int, float, bool, str, complex, type(None)):
        return f"{name}={value!r}"
    namespace[f"default_{name}"] = value
    return f"{name}=default_{name}"


def _jvp_rule(F, derivative):
    """``F = jvp(f, wrt=W)`` maps (p, t) to (f(p), J_W(p) t). For the
    cotangent (a, c) of that pair, an argument v of f gets
    ``J_v^T a + d/dv <c, J_W t>`` (a vjp, plus forward mode over the vjp
    ``J_v^T c`` along t), and the tangent of w gets ``J_w^T c``."""
    info = F.__tangent_ad__
    f, wrt = info.primal, tuple(info.wrt)
    params = list(inspect.signature(F).parameters)
    primal = params[:len(params) - len(wrt)]
    namespace, lines = {}, []
    for i, p in enumerate(params):
        name = f"adjoint_{F.__name__}_{p}"
        namespace[name] = _JvpAdjoint(name, derivative, f, wrt, len(primal), i)
        lines.append(f"    d[{p}] = {name}({', '.join(params)}, d[result])")
    name = f"rule_of_{F.__name__}"
    source = f"def {name}({', '.join(['result'] + params)}):\n" + "\n".join(lines) + "\n"
    return _load(source, f"<tangent_ad rule of {F.__name__} #{id(F)}>", namespace, name)


def _vjp_rule(V, derivative):
    """``V = vjp(f, wrt=W)`` maps (p, c) to J_W(p)^T c. For a cotangent u
    of that (one entry per argument in W), an argument v of f gets
    ``d/dv <J_W u, c>``, forward mode over the vjp ``J_v^T c`` along u, and
    the cotangent c gets ``J_W u``, a jvp of f."""
    info = V.__tangent_ad__
    f, wrt = info.primal, tuple(info.wrt)
    params = list(inspect.signature(V).parameters)
    primal, seed = params[:-1], params[-1]
    spread = _spread(len(wrt))
    namespace, lines = {}, []
    for v in primal:
        name = f"forward_vjp_{f.__name__}_d{v}_along_{'_'.join(wrt)}"
        namespace[name] = _Product(name, derivative, f, (v,), wrt, kind="vjp")
        lines.append(f"    d[{v}] = {name}({', '.join(params)}, {spread})")
    name = f"tangent_{f.__name__}_d{'_'.join(wrt)}"
    namespace[name] = _Tangent(name, derivative, f, wrt)
    lines.append(f"    d[{seed}] = {name}({', '.join(primal)}, {spread})")
    rule_name = f"rule_of_{V.__name__}"
    source = f"def {rule_name}({', '.join(['result'] + params)}):\n" + "\n".join(lines) + "\n"
    return _load(source, f"<tangent_ad rule of {V.__name__} #{id(V)}>", namespace, rule_name)


class _Tangent:
    """The tangent part of ``jvp(f, wrt)``, generated when first called."""

    def __init__(self, name, derivative, f, wrt):
        self.__name__ = self.__qualname__ = name
        self.derivative, self.f, self.wrt = derivative, f, wrt
        self.fn = None

    def __call__(self, *args):
        if self.fn is None:
            self.fn = self.derivative(self.f, "forward", self.wrt, None)
        return self.fn(*args)[1]


class _JvpAdjoint:
    """The adjoint of argument `index` of ``jvp(f, wrt)`` (see _jvp_rule);
    its vjps and products are generated on first use."""

    def __init__(self, name, derivative, f, wrt, count, index):
        self.__name__ = self.__qualname__ = name
        self.derivative, self.f, self.wrt = derivative, f, wrt
        self.count, self.index = count, index
        self.parts = None

    def _build(self):
        params = list(inspect.signature(self.f).parameters)
        if self.index < self.count:
            v = (params[self.index],)
            vjp = self.derivative(self.f, "reverse", v, "vjp")
            return vjp, self.derivative(vjp, "forward", self.wrt, "hvp")
        w = (self.wrt[self.index - self.count],)
        return None, self.derivative(self.f, "reverse", w, "vjp")

    def __call__(self, *args):
        if self.parts is None:
            self.parts = self._build()
        primal, tangents, (a, c) = args[:self.count], args[self.count:-1], args[-1]
        vjp, other = self.parts
        terms = []
        if self.index < self.count:
            if a is not None:
                terms.append(vjp(*primal, a))
            if c is not None:
                terms.append(other(*primal, c, *tangents))
        elif c is not None:
            terms.append(other(*primal, c))
        if not terms:
            return np.zeros_like(args[self.index]) if isinstance(args[self.index], np.ndarray) \
                else 0.0
        return terms[0] if len(terms) == 1 else terms[0] + terms[1]


class _Product:
    """``bresult * (H u)_v``: forward mode over ``grad(f, wrt=v)`` along
    ``u`` on the arguments `wrt`, generated when first called (over
    ``vjp(f, wrt=v)`` for `kind` "vjp": ``d/dv <J_wrt u, bresult>``)."""

    def __init__(self, name, derivative, f, v, wrt, kind=None):
        self.__name__ = self.__qualname__ = name
        self.derivative, self.f, self.v, self.wrt, self.kind = derivative, f, v, wrt, kind
        self.fn = self.positions = None

    def __call__(self, *args):
        seed = args[-1]
        if self.kind is None and (type(seed) is float or np.ndim(seed) == 0):
            self._check_scalar_output(args)
        return (self.fn or self.__tangent_ad_function__())(*args)

    def _check_scalar_output(self, args):
        """A scalar cotangent is the seed of ``grad(grad(f))``: the
        gradient it seeds must be a scalar, so must its argument."""
        if self.positions is None:
            params = list(inspect.signature(self.f).parameters)
            self.positions = [params.index(w) for w in self.wrt]
        sizes = [1 if type(args[i]) is float else np.size(args[i]) for i in self.positions]
        if sizes != [1]:
            raise NonScalarOutputError(
                f"grad needs a function with a scalar output, but the gradient of "
                f"{self.f.__name__} with respect to {', '.join(self.wrt)} has "
                f"{sum(sizes)} entries", hint="for a Hessian use tangent_ad.hessian(f); "
                "for a Hessian-vector product, tangent_ad.hvp(f)")

    def __tangent_ad_function__(self):
        """The generated product (forward mode over it, for a derivative of
        order three, reads its source)."""
        if self.fn is None:
            gradient = self.derivative(self.f, "reverse", self.v, self.kind)
            self.fn = self.derivative(gradient, "forward", self.wrt, "hvp")
        return self.fn


class _SeedAdjoint:
    """``<u, grad_W f(p)>``: the adjoint of the seed ``bresult``."""

    def __init__(self, name, g):
        self.__name__ = self.__qualname__ = name
        self.g = g

    def __call__(self, *args):
        cotangent = args[-1]
        gradient = self.g(*args[:-1], 1.0)
        if isinstance(gradient, tuple):
            return sum(np.sum(np.multiply(u, x)) for u, x in zip(cotangent, gradient))
        return np.sum(np.multiply(cotangent, gradient))


def _load(source, filename, namespace, name):
    """Define `name` from `source`, readable by inspect.getsource."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace["__name__"] = "tangent_ad.second_order"
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    assert isinstance(fn, types.FunctionType)
    return fn
