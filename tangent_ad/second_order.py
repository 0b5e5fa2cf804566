"""Derived reverse rules for generated gradients, jvps and vjps: how
``grad(grad(f))``, derivatives of any order, and functions that call a
gradient, a jvp or a vjp are differentiated.

A gradient ``g = tad.grad(f, wrt=W)`` maps the arguments ``p`` of `f`
(and the seed ``bresult``) to ``bresult * grad_W f(p)``. Its pullback, for
a cotangent ``u`` of that output (one entry per argument in `W`), gives
each argument ``v`` of `f` the adjoint

    bresult * d/dv <u, grad_W f(p)>  =  bresult * (H u)_v,

a block of the Hessian of `f` applied to ``u``: a Hessian-vector
product, which tangent_ad computes exactly by forward mode over the
gradient of `f` with respect to ``v`` (``tad.hvp``'s construction; the
Hessian is symmetric, so no reverse pass over generated code is needed).
The seed's own adjoint is ``<u, grad_W f(p)>``. A ``value_and_grad``
returns ``(f(p), gradient)``: for a cotangent ``(a, u)``, the value's part
adds ``a * df/dv`` (a vjp of `f`). A jvp or a vjp of `f` gets a rule the
same way, from vjps of `f` and forward mode over them.

This module writes each as an ordinary reverse template::

    def rule_of_df_dx(result, x, bresult=1.0):
        d[x] = hvp_f_dx(x, bresult, d[result])
        d[bresult] = seed_adjoint_f_dx(x, d[result])

so a function that calls a gradient is differentiated like any other
call, and ``grad(g)`` differentiates ``caller(g)``, a one-line function
that returns ``g(...)``. The functions a rule calls (``hvp_f_dx``) are
generated on their first call, by the `derivative` function given to
`rule`. They are generated code, so forward mode can read them: that
makes the next order (``resolve`` hands forward mode the generated
function behind ``__tangent_ad_function__``).
"""
import inspect

import numpy as np

from tangent_ad.errors import NonScalarOutputError, UnsupportedSyntaxError
from tangent_ad.live import LIVE_KEY, LIVE_NAMES_KEY, current
from tangent_ad.naming import label
from tangent_ad.runtime.core import conj_complex
from tangent_ad import nodes
from tangent_ad.function_trees import (
    adjoint, assigned, calling, define, function, item, returned, total)


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


def refuse_wrapper(fn):
    """Raise UnsupportedSyntaxError for differentiating `fn`, a wrapper."""
    raise UnsupportedSyntaxError(
        f"{fn.__name__} was made by tangent_ad.hvp, tangent_ad.jacobian or "
        "tangent_ad.hessian, whose results cannot be differentiated",
        hint="differentiate the transforms they are built from instead: "
             "tangent_ad.grad(tangent_ad.grad(f)), tangent_ad.jvp(tangent_ad.grad(f)), "
             "tangent_ad.vjp(tangent_ad.grad(f)) or tangent_ad.vjp(tangent_ad.jvp(f))")


def is_gradient(fn):
    """True for a function made by ``tad.grad`` (not value_and_grad, vjp
    or a pullback): the only generated functions with a reverse rule here."""
    info = _generated(fn)
    return info is not None and info.mode == "reverse" and \
        info.kind == "gradient" and not info.preserve_result


def is_value_and_grad(fn):
    """True for a function made by ``tad.value_and_grad`` (no aux)."""
    info = _generated(fn)
    return info is not None and info.mode == "reverse" and \
        info.kind == "gradient" and info.preserve_result


def _seeded(fn):
    """A gradient or a value_and_grad: its seed ``bresult`` scales the
    gradient and stays 1.0 when the function itself is differentiated."""
    return is_gradient(fn) or is_value_and_grad(fn)


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
    return is_gradient(fn) or is_value_and_grad(fn) or is_jvp(fn) or is_vjp(fn)


COTANGENT = "cotangent"  # a vjp's `bresult`, renamed in its caller


def caller(g, keep_seed=False, name=None):
    """``def <name>(<g's parameters>): return g(<parameters>)``, with g's
    defaults: the function whose derivative is the derivative of `g`
    (`name` is g's name unless given). A gradient's seed stays 1.0 (unless
    `keep_seed`: it is differentiated) and a vjp's is called ``cotangent``
    (``cotangent2``... when g has a parameter of that name): the
    derivative has a seed ``bresult`` of its own."""
    params = [p for p in inspect.signature(g).parameters.values()
              if p.name != "bresult" or not _seeded(g) or keep_seed]
    names = caller_names(g, [p.name for p in params])
    name = name or label(g)
    namespace, header = {}, []
    live = g.__tangent_ad__.namespace.get(LIVE_KEY)
    if live is not None:  # its derivative reads the user's globals live, as g does
        namespace[LIVE_KEY] = live
        namespace[LIVE_NAMES_KEY] = frozenset()
    for new, p in zip(names, params):
        header.append(_with_default(new, p, namespace))
    fdef = function(name, header, [returned(calling(label(g), names))])
    wrapper = define(fdef, f"<tangent_ad caller of {g.__name__}>", namespace)
    namespace[label(g)] = g  # the body calls g, under g's own name
    wrapper.__tangent_ad_caller_of__ = g
    # the products of a gradient's rule check that the output is a scalar
    # (``_Product``), so the derivative need not compute it for the check
    # (one wrt argument: several make a tuple, which ensure_scalar refuses;
    # and not when the seed is differentiated: maybe alone, with no product)
    wrapper.__tangent_ad_checked_output__ = is_gradient(g) and not keep_seed and \
        len(g.__tangent_ad__.wrt) == 1
    return wrapper


def caller_names(g, params):
    """The names, in its `caller`, of the parameters `params` of the
    generated function `g`: the same, but for the seed ``bresult``, which
    becomes ``cotangent`` or, if g has a parameter of that name already
    (a vjp of a vjp), the first free ``cotangent<n>``."""
    taken = set(inspect.signature(g).parameters)
    fresh, i = COTANGENT, 2
    while fresh in taken:
        fresh, i = f"{COTANGENT}{i}", i + 1
    return [fresh if p == "bresult" else p for p in params]


def rule(fn, derivative):
    """The reverse template of the gradient, jvp or vjp `fn` (None for
    other functions).

    ``derivative(func, mode, wrt, kind)`` is ``tad.autodiff`` with a kind:
    it makes the vector-Jacobian and forward-over-reverse products.
    """
    if is_wrapper(fn):
        refuse_wrapper(fn)
    if is_jvp(fn):
        return _jvp_rule(fn, derivative)
    if is_gradient(fn) or is_value_and_grad(fn):
        return _gradient_rule(fn, derivative)
    if is_vjp(fn):
        return _vjp_rule(fn, derivative)
    return None


def _gradient_rule(g, derivative):
    """``d[v] = bresult * (H u)_v`` for each argument v of f (module docstring).

    A ``value_and_grad`` returns ``(f(p), gradient)``: the gradient's
    cotangent is ``d[result][1]``, and the value's, a, adds ``a * df/dv``
    (a vjp of f, in the convention of the products) to each argument v."""
    info = g.__tangent_ad__
    f, wrt = info.primal, tuple(info.wrt)
    valued = info.preserve_result
    signature = inspect.signature(g)
    params = list(signature.parameters)
    primal = [p for p in params if p != "bresult"]
    if len(params) != len(primal) + 1:
        return None  # a parameter of f named bresult: no rule, refused as before
    namespace, body = {}, []

    def cotangent():
        return item(adjoint("result"), 1) if valued else adjoint("result")

    for i, v in enumerate(primal):
        if valued:  # the value's part: a vjp of f, independent of the seed
            body.append(assigned(adjoint(v), calling(
                _vjp(f, i, derivative, namespace),
                primal + [item(adjoint("result"), 0)])))
        # the name forward mode gives it (``ad.forward.hvp_name``)
        product = f"hvp_{label(f)}_d{'_'.join(wrt)}" if wrt == (v,) else \
            f"hvp_d{label(f)}_d{v}_d{'_'.join(wrt)}"
        namespace[product] = _cached(("hvp", f, v, wrt), lambda: _Product(
            product, derivative, f, (v,), wrt))
        spread = _spread(len(wrt), info.conjugated, namespace, cotangent)
        body.append(assigned(adjoint(v), calling(product, params + spread)))
    seed = f"seed_adjoint_{label(f)}_d{'_'.join(wrt)}"
    namespace[seed] = _cached(("seed", g), lambda: _seed_adjoint(seed, g, primal))
    body.append(assigned(adjoint("bresult"), calling(seed, primal + [cotangent()])))
    header = [("result", None)] + [_with_default(p, v, namespace)
                                   for p, v in signature.parameters.items()]
    fdef = function(f"rule_of_{label(g)}", header, body)
    return define(fdef, f"<tangent_ad rule of {g.__name__}>", namespace)


def _spread(count, conjugated, namespace, cotangent=lambda: adjoint("result")):
    """The cotangent of a gradient or vjp of `count` arguments as that many
    argument nodes: ``d[result]`` (or what `cotangent()` makes), or
    ``d[result][0], d[result][1], ...`` (not
    ``*d[result]``: forward mode over the derivative, a third derivative,
    binds each of them to a parameter of the product it calls).

    A derivative that went through a non-holomorphic step returns the
    conjugate of JAX's adjoints (`conjugated`): it is ``conj(W)`` for the
    transpose W the products are made from (they keep JAX's convention,
    ``api._product``), so its cotangent u is W's cotangent ``conj(u)``."""
    parts = [cotangent()] if count == 1 else [item(cotangent(), i) for i in range(count)]
    if conjugated:
        namespace["conj_complex"] = conj_complex
        parts = [nodes.call("conj_complex", p) for p in parts]
    return parts


def _with_default(name, param, namespace):
    """(`name`, the node of the default of the parameter `param` of a
    generated function, or None), for the header of a function that takes
    the same arguments: a number or string as a constant, another value
    bound in `namespace` as ``default_<name>``, from where generated code
    calling it loads it."""
    if name == "bresult":
        return name, nodes.const(1.0)
    value = param.default
    if value is param.empty:
        return name, None
    if type(value) in (int, float, bool, str, complex, type(None)):
        return name, nodes.const(value)
    namespace[f"default_{name}"] = value
    return name, nodes.name(f"default_{name}")


def _jvp_rule(F, derivative):
    """``F = jvp(f, wrt=W)`` maps (p, t) to (f(p), J_W(p) t). For the
    cotangent (a, c) of that pair, an argument v of f gets
    ``J_v^T a + d/dv <c, J_W t>`` (a vjp, plus forward mode over the vjp
    ``J_v^T c`` along t), and the tangent of w gets ``J_w^T c``.

    `f` may itself be generated (``jvp(grad(g))``, ``jvp(vjp(g))``): its
    derivatives are asked for by position, since the caller they are made
    from renames a vjp's seed, and a gradient's seed is an argument of F
    like any other (see `_with_seed`)."""
    info = F.__tangent_ad__
    f, wrt = info.primal, tuple(info.wrt)
    params = list(inspect.signature(F).parameters)
    primal, tangents = params[:len(params) - len(wrt)], params[len(params) - len(wrt):]
    along = _positions(f, wrt)
    namespace, body = {}, []

    def part(i):
        return item(adjoint("result"), i)

    for i, v in enumerate(primal):
        vjp = _vjp(f, i, derivative, namespace)
        forward = _forward_vjp(f, i, along, derivative, namespace)
        # two contributions, added up by the caller's reverse pass (entry by
        # entry when v may be a list, tuple or dict)
        body.append(assigned(adjoint(v), calling(vjp, primal + [part(0)])))
        body.append(assigned(adjoint(v), calling(forward, primal + [part(1)] + tangents)))
    for w, t in zip(along, tangents):
        body.append(assigned(adjoint(t), calling(
            _vjp(f, w, derivative, namespace), primal + [part(1)])))
    fdef = function(f"rule_of_{label(F)}", [(p, None) for p in ["result"] + params], body)
    return define(fdef, f"<tangent_ad rule of {F.__name__}>", namespace)


def _positions(f, names):
    """The positions of the parameters `names` of `f`."""
    params = list(inspect.signature(f).parameters)
    return tuple(params.index(n) for n in names)


def _with_seed(f):
    """`f`, or for a gradient, the `caller` that keeps its seed as a
    parameter (named after it, ``<f>_seeded``): a rule passes every
    argument of `f`, the seed too, to the derivatives of `f` it calls."""
    if not _seeded(f):
        return f
    return _cached(("seeded", f), lambda: caller(f, keep_seed=True,
                                                  name=f"{label(f)}_seeded"))


def _names(g):
    """The parameters of `g` as the derivatives of `g` name them: those
    of its `caller` when it has a rule (a vjp's seed is ``cotangent``)."""
    params = list(inspect.signature(g).parameters)
    return caller_names(g, params) if has_rule(g) else params


def _vjp(f, i, derivative, namespace):
    """``vjp_<f>_d<v>`` for the parameter `v` of `f` at position `i`, made
    on first use, bound in `namespace`."""
    g = _with_seed(f)
    name = f"vjp_{label(g)}_d{_names(g)[i]}"
    namespace[name] = _cached(("vjp", g, i), lambda: _Lazy(
        name, lambda: derivative(g, "reverse", (i,), "vjp")))
    return name


def _forward_vjp(f, i, along, derivative, namespace):
    """Forward mode along the parameters at positions `along` over
    ``vjp(f, wrt=i)``, bound in `namespace`."""
    g = _with_seed(f)
    names = _names(g)
    name = f"forward_vjp_{label(g)}_d{names[i]}_along_" + "_".join(names[w] for w in along)
    namespace[name] = _cached(("forward_vjp", g, i, along), lambda: _Product(
        name, derivative, g, (i,), along, kind="vjp"))
    return name


def _vjp_rule(V, derivative):
    """``V = vjp(f, wrt=W)`` maps (p, c) to J_W(p)^T c. For a cotangent u
    of that (one entry per argument in W), an argument v of f gets
    ``d/dv <J_W u, c>``, forward mode over the vjp ``J_v^T c`` along u, and
    the cotangent c gets ``J_W u``, a jvp of f."""
    info = V.__tangent_ad__
    f, wrt = info.primal, tuple(info.wrt)
    params = list(inspect.signature(V).parameters)
    primal, seed = params[:-1], params[-1]
    along = _positions(f, wrt)
    namespace, body = {}, []
    for i, v in enumerate(primal):
        name = _forward_vjp(f, i, along, derivative, namespace)
        spread = _spread(len(wrt), info.conjugated, namespace)
        body.append(assigned(adjoint(v), calling(name, params + spread)))
    name = f"tangent_{label(f)}_d{'_'.join(wrt)}"
    namespace[name] = _cached(("tangent", f, wrt), lambda: _Lazy(
        name, lambda: derivative(f, "forward", wrt, "hvp")))
    spread = _spread(len(wrt), info.conjugated, namespace)
    body.append(assigned(adjoint(seed), calling(name, primal + spread)))
    fdef = function(f"rule_of_{label(V)}", [(p, None) for p in ["result"] + params], body)
    return define(fdef, f"<tangent_ad rule of {V.__name__}>", namespace)


_LAZIES = {}  # key -> the one lazy function for it, shared by every rule


def _cached(key, make):
    """The lazy function for `key`, made by `make()` the first time."""
    if key not in _LAZIES:
        _LAZIES[key] = make()
    return _LAZIES[key]


class _Lazy:
    """A generated function made when first called (``build()``). Forward
    mode over code that calls it reads the generated function's source
    (``__tangent_ad_function__``): that is how the next order is made."""

    def __init__(self, name, build):
        self.__name__ = self.__qualname__ = name
        self.build, self.fn = build, None

    def __call__(self, *args):
        return self.__tangent_ad_function__()(*args)

    def __tangent_ad_function__(self):
        if self.fn is None or not current(self.fn):
            self.fn = self.build()
        return self.fn


class _Product(_Lazy):
    """``bresult * (H u)_v``: forward mode over ``grad(f, wrt=v)`` along
    ``u`` on the arguments `wrt`, generated when first called (over
    ``vjp(f, wrt=v)`` for `kind` "vjp": ``d/dv <J_wrt u, bresult>``)."""

    def __init__(self, name, derivative, f, v, wrt, kind=None):
        super().__init__(name, lambda: derivative(
            derivative(f, "reverse", v, kind), "forward", wrt, "hvp"))
        self.f, self.wrt, self.kind, self.positions = f, wrt, kind, None

    def __call__(self, *args):
        seed = args[-1]
        if self.kind is None and len(self.wrt) == 1 and \
                not isinstance(seed, (list, tuple, dict)) and \
                (type(seed) is float or np.ndim(seed) == 0):  # (np.ndim of a dict is 0)
            self._check_scalar_output(args)
        return super().__call__(*args)

    def _check_scalar_output(self, args):
        """A scalar cotangent is the seed of ``grad(grad(f))``: the
        gradient it seeds must be a scalar, so must its argument."""
        if self.positions is None:
            params = list(inspect.signature(self.f).parameters)
            self.positions = [w if isinstance(w, int) else params.index(w)
                              for w in self.wrt]
        (i,) = self.positions
        arg = args[i]
        if isinstance(arg, (list, tuple, dict)):  # its gradient is a container too
            what = f"is a {type(arg).__name__}"
        else:
            size = 1 if type(arg) is float else np.size(arg)
            what = None if size == 1 else f"has {size} entries"
        if what is not None:
            raise NonScalarOutputError(
                f"grad needs a function with a scalar output, but the gradient of "
                f"{self.f.__name__} with respect to {self.wrt[0]} {what}",
                hint="for a Hessian use tangent_ad.hessian(f); "
                     "for a Hessian-vector product, tangent_ad.hvp(f)")


def _seed_adjoint(name, g, primal):
    """``<u, grad_W f(p)>``, the adjoint of the seed ``bresult`` of the
    gradient `g`, as a function of the `primal` arguments and ``u``,
    built as a tree so that forward and reverse mode can read it (a
    third derivative differentiates it: ``jvp(vjp(grad(f)))``)."""
    u = caller_names(g, ["bresult"])[0]
    taken = set(primal) | {u}

    def fresh(base):
        while base in taken:
            base += "_"
        taken.add(base)
        return base

    t = fresh("gradient")
    gradient = calling(label(g), primal + [nodes.const(1.0)])
    if g.__tangent_ad__.preserve_result:  # value_and_grad's
        gradient = item(gradient, 1)
    body = [assigned(t, gradient)]
    count = len(g.__tangent_ad__.wrt)

    def inner(a, b):
        return nodes.call("np.sum", nodes.call("np.multiply", a, b))

    if count == 1:
        body.append(returned(inner(nodes.name(u), nodes.name(t))))
    else:  # a statement per argument: one line each
        parts = [fresh(f"part{i}") for i in range(count)]
        body += [assigned(p, inner(item(nodes.name(u), i), item(nodes.name(t), i)))
                 for i, p in enumerate(parts)]
        body.append(returned(total([nodes.name(p) for p in parts])))
    fdef = function(name, [(p, None) for p in primal + [u]], body)
    namespace = {"np": np, label(g): g}
    return define(fdef, f"<tangent_ad seed adjoint of {g.__name__}>", namespace)
