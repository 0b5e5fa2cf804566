"""Rules written once for both modes: a table row becomes two templates.

An elementwise function needs only its derivative. The row
``np.tanh: "1.0 - y * y"`` (in the argument ``x`` and the result ``y``)
registers the two templates one would write by hand::

    def tanh(result, x):              def tanh(result, x):
        d[x] = d[result] * (1.0 - result * result)
                                          d[result] = d[x] * (1.0 - result * result)

The seed multiplies the derivative's leading factor, so ``"1.0 / x"``
reads ``d[result] / x`` and ``"-np.sin(x)"`` reads ``-d[result] *
np.sin(x)``: the templates are the ones a person writes. A function of
several arguments gives one partial derivative per argument, in a dict
(parameter names as the function's, ``y`` the result); its reverse rule
sums each adjoint back to its argument's shape (``unbroadcast``) and it
is declared broadcasting; a key ``"loc=0.0"`` gives the parameter a
default. A partial written ``None`` has no closed form:
differentiating with respect to that argument raises NoDerivativeError
when the derivative is made (an integer order, a shape parameter). A
partial written ``"0"`` is zero: that argument gets no contribution.

A linear function's tangent is the function of the tangent:
``linear(globals(), "np.flip(m, axis=None)")`` registers the forward rule
``d[result] = np.flip(d[m], axis)``.

The templates are ordinary ones (parsed, checked, shown and expanded as
those of ``@adjoint``); their source is kept by ``texts`` under a name
that says which row wrote them.
"""
import ast
import itertools

from tangent_ad.registry import REGISTRY, adjoint, broadcasting, tangent
from tangent_ad import texts

_ROWS = itertools.count(1)
RESULT = "y"  # the name a table row gives the result
ZERO = "0"  # a partial derivative that is zero (wherever it exists)


def derivatives(namespace, rows):
    """Register reverse and forward rules for each ``func: derivative``
    of `rows`. `namespace` (the calling module's ``globals()``) resolves
    the names the derivatives use; a function of several arguments needs
    ``unbroadcast`` there."""
    for func, partials in rows.items():
        if isinstance(partials, str):
            partials = {"x": partials}
        label = _label(func)
        params = ", ".join(partials)  # "loc=0.0": a parameter and its default
        partials = {key.split("=")[0].strip(): partial for key, partial in partials.items()}
        several = len(partials) > 1
        reverse, forward = [], []
        for param, partial in partials.items():
            if partial is None or partial == ZERO:
                continue
            expr = _in_result(partial)
            seed = _times(_d("result"), expr)
            reverse.append(f"    d[{param}] = " + (
                f"unbroadcast({ast.unparse(seed)}, {param})" if several else ast.unparse(seed)))
            forward.append(ast.unparse(_times(_d(param), expr)))
        forward_line = "    d[result] = " + (_sum(forward) if forward else "0.0")
        assert reverse, f"{label}: a row needs one derivative that is not None"
        note = "; ".join(f"d/d{p} = {e}" for p, e in partials.items() if e is not None)
        adjoint(func)(_template(namespace, func, label, params, reverse, "reverse", note))
        tangent(func)(_template(namespace, func, label, params, [forward_line], "forward", note))
        refused = [p for p, partial in partials.items() if partial is None]
        if refused:
            REGISTRY.register_refused_arguments(func, refused)
        if several:
            broadcasting(func)


def linear(namespace, *signatures):
    """Register the forward rule of each linear function, written as its
    call with the parameters the rule binds: ``"np.roll(a, shift,
    axis=None)"`` gives ``d[result] = np.roll(d[a], shift, axis)``, the
    function applied to the tangent of its first parameter."""
    for signature in signatures:
        node = ast.parse(signature, mode="eval").body
        func = eval(compile(ast.Expression(node.func), "<rule>", "eval"), namespace)
        names = [a.id for a in node.args] + [k.arg for k in node.keywords]
        params = ", ".join([a.id for a in node.args] +
                           [f"{k.arg}={ast.unparse(k.value)}" for k in node.keywords])
        line = f"    d[result] = {ast.unparse(node.func)}(" + \
            ", ".join([f"d[{names[0]}]"] + names[1:]) + ")"
        tangent(func)(_template(namespace, func, _label(func), params, [line], "forward"))


def _sum(terms):
    """``a + b - c`` from the terms ``a``, ``b``, ``-c``."""
    text = terms[0]
    for term in terms[1:]:
        text += f" - {term[1:]}" if term.startswith("-") else f" + {term}"
    return text


def _label(func):
    return getattr(func, "__name__", "rule").replace(".", "_")


def _d(param):
    return ast.Subscript(value=ast.Name(id="d", ctx=ast.Load()),
                         slice=ast.Name(id=param, ctx=ast.Load()), ctx=ast.Load())


def _in_result(text):
    """The derivative `text` parsed, with the result ``y`` named ``result``."""
    tree = ast.parse(text, mode="eval").body
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == RESULT:
            node.id = "result"
    return tree


def _times(seed, expr):
    """``seed * expr``, with the seed on the leading factor of a product
    or quotient (``1.0 / x`` -> ``seed / x``, ``-e`` -> ``-seed * e``)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Div)):
        return ast.BinOp(left=_times(seed, expr.left), op=expr.op, right=expr.right)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _times(ast.UnaryOp(op=ast.USub(), operand=seed), expr.operand)
    if isinstance(expr, ast.Constant) and expr.value == 1.0 and type(expr.value) is float:
        return seed
    return ast.BinOp(left=seed, op=ast.Mult(), right=expr)


def _template(namespace, func, label, params, lines, mode, note=None):
    """A template function from its source lines, readable by
    ``inspect.getsource`` like one written in a file; `note` is its
    docstring (the coverage page shows it)."""
    source = f"def {label}(result, {params}):\n" + "\n".join(lines) + "\n"
    module = namespace.get("__name__", "rules")
    owner = getattr(getattr(func, "__self__", None), "name", None)  # scipy.stats.norm
    row = f"{owner}.{label}" if isinstance(owner, str) else label
    filename = f"<tangent_ad {mode} rule {module}.{row} #{next(_ROWS)}>"  # one per row
    texts.register(filename, source)
    scope = {}
    exec(compile(source, filename, "exec"), namespace, scope)
    scope[label].__doc__ = note
    return scope[label]
