"""Objects as pytrees: attribute reads of named tuples, dataclasses and user
objects, and gradients of the argument's type (JAX's pytree behaviour).

Gradients are checked against central differences of each field, in
reverse mode, forward mode (jvp, with a tangent of the argument's type)
and hvp, and float32 fields keep their dtype.
"""
import collections
import dataclasses

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import numerical_grad

RNG = np.random.default_rng(11)
W0 = RNG.normal(size=(3, 2))
B0 = 0.3
X = RNG.normal(size=(4, 3))

Params = collections.namedtuple("Params", "W b")


@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: float
    name: str = "linear"
    width: int = 2


class Layer:
    SCALE = 1.5  # a class constant: read, not differentiated

    def __init__(self, W, b):
        self.W, self.b = W, b
        self.activation = np.tanh  # a function: keeps its value
        self.tag = None

    def forward(self, x):
        return np.tanh(x @ self.W + self.b) * self.SCALE


class Scaled(Layer):  # inheritance: the fields and constants of both
    SCALE = 0.5


def loss(p, x):
    return np.sum(np.tanh(x @ p.W + p.b) ** 2)


def loss_of_layer(layer, x):
    return np.sum(Layer.forward(layer, x) ** 2)


def make(kind, W=W0, b=B0):
    return {"namedtuple": lambda: Params(W, b), "dataclass": lambda: Linear(W, b),
            "object": lambda: Layer(W, b), "subclass": lambda: Scaled(W, b)}[kind]()


KINDS = ["namedtuple", "dataclass", "object", "subclass"]


def function_for(kind):
    return loss if kind in ("namedtuple", "dataclass") else loss_of_layer


def field_fd(f, kind, x):
    """Central differences with respect to W and b, one field at a time."""
    gW = numerical_grad(lambda W: f(make(kind, W, B0), x), (W0,), 0)
    gb = numerical_grad(lambda b: f(make(kind, W0, b), x), (B0,), 0)
    return gW, gb


@pytest.mark.parametrize("kind", KINDS)
def test_gradient_has_the_arguments_type(kind):
    f, p = function_for(kind), make(kind)
    g = tad.grad(f)(p, X)
    assert type(g) is type(p)
    gW, gb = field_fd(f, kind, X)
    np.testing.assert_allclose(g.W, gW, rtol=1e-6, atol=1e-9)
    assert g.b == pytest.approx(gb, rel=1e-6) and isinstance(g.b, float)
    if kind == "dataclass":
        assert g.name == "linear" and g.width == 2  # non-differentiable leaves keep their value
    if kind in ("object", "subclass"):
        assert g.activation is np.tanh and g.tag is None and g is not p
        assert p.W is W0  # the argument is not changed


@pytest.mark.parametrize("kind", KINDS)
def test_float32_fields_keep_their_dtype(kind):
    f, p = function_for(kind), make(kind, W0.astype(np.float32), np.float32(B0))
    g = tad.grad(f)(p, X.astype(np.float32))
    assert g.W.dtype == np.float32 and g.W.shape == W0.shape


@pytest.mark.parametrize("kind", KINDS)
def test_gradient_with_respect_to_the_data_and_jvp(kind):
    f, p = function_for(kind), make(kind)
    gx = tad.grad(f, wrt=1)(p, X)
    np.testing.assert_allclose(gx, numerical_grad(f, (p, X), 1), rtol=1e-6, atol=1e-9)
    V = RNG.normal(size=X.shape)
    value, tangent = tad.jvp(f, wrt=1)(p, X, V)
    assert value == pytest.approx(f(p, X))
    assert tangent == pytest.approx(np.sum(gx * V), rel=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_jvp_along_a_tangent_of_the_arguments_type(kind):
    f, p = function_for(kind), make(kind)
    dW = RNG.normal(size=W0.shape)
    direction = make(kind, dW, 0.7)
    _, tangent = tad.jvp(f)(p, X, direction)
    gW, gb = field_fd(f, kind, X)
    assert tangent == pytest.approx(np.sum(gW * dW) + gb * 0.7, rel=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_hvp_with_respect_to_the_data(kind):
    f, p = function_for(kind), make(kind)
    V = RNG.normal(size=X.shape)
    g = tad.grad(f, wrt=1)
    eps = 1e-5
    expected = (g(p, X + eps * V) - g(p, X - eps * V)) / (2 * eps)
    np.testing.assert_allclose(tad.hvp(f, wrt=1)(p, X, V), expected, rtol=1e-6, atol=1e-8)


def test_a_bound_method_reads_self_and_a_class_constant():
    layer = Scaled(W0, B0)
    f = lambda x: np.sum(layer.forward(x) ** 2)  # noqa: E731
    np.testing.assert_allclose(tad.grad(f)(X), numerical_grad(f, (X,), 0), rtol=1e-6)
    V = RNG.normal(size=X.shape)
    _, tangent = tad.jvp(f)(X, V)
    assert tangent == pytest.approx(np.sum(numerical_grad(f, (X,), 0) * V), rel=1e-6)
    g, eps = tad.grad(f), 1e-5
    np.testing.assert_allclose(tad.hvp(f)(X, V), (g(X + eps * V) - g(X - eps * V)) / (2 * eps),
                               rtol=1e-6, atol=1e-8)
    layer.W = 2.0 * W0  # an attribute rebound later is read when the derivative runs
    np.testing.assert_allclose(g(X), numerical_grad(f, (X,), 0), rtol=1e-6)


def test_a_list_of_layer_objects_applied_in_a_loop():
    layers = [Layer(RNG.normal(size=(3, 3)), 0.1), Layer(RNG.normal(size=(3, 3)), -0.2)]

    def net(layers, x):
        for layer in layers:
            x = np.tanh(x @ layer.W + layer.b)
        return np.sum(x ** 2)

    g = tad.grad(net)(layers, X)
    assert type(g) is list and all(type(gi) is Layer for gi in g)
    for i in range(2):
        def of_W(W, i=i):
            copy = list(layers)
            copy[i] = Layer(W, layers[i].b)
            return net(copy, X)
        np.testing.assert_allclose(g[i].W, numerical_grad(of_W, (layers[i].W,), 0), rtol=1e-6)
    np.testing.assert_allclose(tad.grad(net, wrt=1)(layers, X), numerical_grad(net, (layers, X), 1),
                               rtol=1e-6)


def test_a_nested_object():
    @dataclasses.dataclass
    class Model:
        first: Linear
        second: Linear

    def f(m, x):
        h = np.tanh(x @ m.first.W + m.first.b)
        return np.sum((h @ m.second.W.T) ** 2)

    m = Model(Linear(W0, B0), Linear(RNG.normal(size=(3, 2)), 0.0))
    g = tad.grad(f)(m, X)
    assert type(g) is Model and type(g.first) is Linear
    expected = numerical_grad(lambda W: f(Model(Linear(W, B0), m.second), X), (W0,), 0)
    np.testing.assert_allclose(g.first.W, expected, rtol=1e-6)


def test_a_property_is_differentiated_through_its_getter():
    class WithProperty(Layer):
        @property
        def doubled(self):
            return 2.0 * self.W

    def f(p, x):
        return np.sum(x @ p.doubled)

    p = WithProperty(W0, B0)
    np.testing.assert_allclose(tad.grad(f, wrt=1)(p, X), numerical_grad(f, (p, X), 1), rtol=1e-6)
    g = tad.grad(f)(p, X)  # through the getter: a property of a class it knows
    np.testing.assert_allclose(g.W, numerical_grad(lambda W: f(WithProperty(W, B0), X), (W0,), 0),
                               rtol=1e-6)


def test_a_method_of_a_value_of_unknown_class_is_refused_with_a_hint():
    def make(W):
        return Layer(W, 0.0)

    def f(W, x):
        layer = make(W)
        return np.sum(layer.forward(x))

    # the bound method is a function value made from the differentiated W
    # (runtime/function_values.py): refused at the call, with the class's way
    with pytest.raises(tad.TangentADError, match="made from the differentiated") as info:
        tad.grad(f)(W0, X)
    assert "Layer.forward(obj" in info.value.hint
    assert info.value.lineno == f.__code__.co_firstlineno + 2


def test_tree_map_steps_every_kind_of_pytree():
    layers = [Layer(W0, B0), Layer(2.0 * W0, -B0)]
    params = {"layers": layers, "lin": Linear(W0, B0), "pt": Params(W0, B0), "steps": 3}

    def f(params, x):
        total = np.sum(x @ params["lin"].W) + params["pt"].b
        layers = params["layers"]
        for layer in layers:
            total = total + np.sum(np.tanh(x @ layer.W + layer.b))
        return total

    g = tad.grad(f)(params, X)
    new = tad.tree_map(lambda p, g: p - 0.1 * g, params, g)
    assert type(new["lin"]) is Linear and type(new["pt"]) is Params and new["steps"] == 3
    assert [type(l) for l in new["layers"]] == [Layer, Layer] and new["layers"][0] is not layers[0]
    np.testing.assert_allclose(new["layers"][1].W, layers[1].W - 0.1 * g["layers"][1].W)
    assert new["lin"].name == "linear" and new["layers"][0].activation is np.tanh
    assert layers[0].W is W0  # the old tree is unchanged
    assert f(new, X) < f(params, X)  # a descent step


def test_a_back_reference_and_slots():
    class Node:
        def __init__(self, W):
            self.W, self.parent = W, None

    class Tree:
        def __init__(self, W):
            self.child = Node(W)
            self.child.parent = self  # a cycle

    def f(t, x):
        return np.sum(np.sin(x @ t.child.W))

    t = Tree(W0)
    g = tad.grad(f)(t, X)
    assert g.child.parent is t  # kept: its derivative is the outer object
    np.testing.assert_allclose(g.child.W, numerical_grad(lambda W: f(Tree(W), X), (W0,), 0),
                               rtol=1e-6)

    class Slotted:
        __slots__ = ("W",)

        def __init__(self, W):
            self.W = W

    with pytest.raises(tad.UnsupportedSyntaxError, match="__slots__"):
        tad.grad(lambda s, x: np.sum(x @ s.W))(Slotted(W0), X)


# ---- records made in the code: built(Params, (W, b)) ---------------------------

def _made_inside(w):
    p = Params(W=w * 2.0, b=np.sum(w))  # keywords, in another order than the fields
    layer = Linear(np.sin(w), p.b)
    return np.sum(p.W * layer.W) * layer.b + np.sum(p[0])


def _made_and_passed(w):
    return _loss_of(Linear(np.outer(w, w), w[0]), w)


def _loss_of(layer, x):
    return np.sum(np.tanh(layer.W @ x + layer.b))


@pytest.mark.parametrize("func", [_made_inside, _made_and_passed], ids=lambda f: f.__name__)
def test_a_named_tuple_or_dataclass_made_in_the_code(func):
    from corpus import check_all_modes
    w = np.array([0.3, -0.6, 0.8])
    check_all_modes(func, (w,))
    gradient = tad.grad(func)(w.astype(np.float32))
    assert gradient.dtype == np.float32 and gradient.shape == (3,)


def test_a_record_returned_by_the_function_has_a_record_tangent():
    def make(w):
        return Params(W=w * 3.0, b=2)
    value, tangent = tad.jvp(make)(np.ones(2), np.array([1.0, -1.0]))
    assert isinstance(tangent, Params) and tangent.b == 2
    np.testing.assert_allclose(tangent.W, [3.0, -3.0])
