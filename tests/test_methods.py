"""Methods of the user's classes called inside differentiated code.

``self.layer(x)``, ``model.forward(x)`` of a model passed as an argument,
properties, inheritance, class constants, a list of layer objects applied
in a loop and functions kept as attributes: each derivative against
central differences (float64), in reverse mode, forward mode and hvp, and
float32 dtypes kept.
"""
import dataclasses

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import numerical_grad

RNG = np.random.default_rng(5)
X = RNG.normal(size=(4, 3))
V = RNG.normal(size=(4, 3))


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return self.activate(x @ self.W + self.b)

    def activate(self, z):
        return np.tanh(z)


class Softplus(Dense):  # inheritance: __call__ from Dense, activate overridden
    def activate(self, z):
        return np.log1p(np.exp(z))


class Net:
    SCALE = 0.5  # a class constant

    def __init__(self, layers):
        self.layers = layers
        self.readout = np.sin  # a function kept as an attribute

    @property
    def first(self):
        return self.layers[0]

    @property
    def penalty(self):
        return np.sum(self.first.W ** 2)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.readout(x)

    def loss(self, x):
        return np.sum(self.forward(x) ** 2) * self.SCALE + 0.1 * self.penalty


def make_net(dtype=np.float64, kind=Dense):
    return Net([kind(RNG.normal(size=(3, 3)).astype(dtype), dtype(0.1)),
                kind(RNG.normal(size=(3, 2)).astype(dtype), dtype(-0.2))])


def loss_of(model, x):
    return model.loss(x)


def with_first_W(net, W):
    layers = list(net.layers)
    layers[0] = type(layers[0])(W, layers[0].b)
    return Net(layers)


def fd_x(f):
    return numerical_grad(f, (X,), 0)


@pytest.mark.parametrize("kind", [Dense, Softplus])
def test_a_bound_method_calling_methods_of_its_layers(kind):
    net = make_net(kind=kind)
    g = tad.grad(net.loss)(X)
    np.testing.assert_allclose(g, fd_x(net.loss), rtol=1e-6, atol=1e-9)
    value, tangent = tad.jvp(net.loss)(X, V)
    assert value == pytest.approx(net.loss(X))
    assert tangent == pytest.approx(np.sum(g * V), rel=1e-6)
    eps = 1e-5
    expected = (tad.grad(net.loss)(X + eps * V) - tad.grad(net.loss)(X - eps * V)) / (2 * eps)
    np.testing.assert_allclose(tad.hvp(net.loss)(X, V), expected, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("kind", [Dense, Softplus])
def test_a_model_passed_as_an_argument_gets_a_gradient_of_its_type(kind):
    net = make_net(kind=kind)
    g = tad.grad(loss_of)(net, X)
    assert type(g) is Net and [type(l) for l in g.layers] == [kind, kind]
    assert g.readout is np.sin  # a function keeps its value
    W = net.layers[0].W
    expected = numerical_grad(lambda W: loss_of(with_first_W(net, W), X), (W,), 0)
    np.testing.assert_allclose(g.layers[0].W, expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(tad.grad(loss_of, wrt=1)(net, X),
                               numerical_grad(loss_of, (net, X), 1), rtol=1e-6, atol=1e-9)


def test_jvp_along_a_model_tangent_and_hvp_in_the_data():
    net = make_net()
    direction = make_net()
    direction.readout = np.sin
    _, tangent = tad.jvp(loss_of)(net, X, direction)
    g = tad.grad(loss_of)(net, X)
    expected = sum(np.sum(gl.W * dl.W) + gl.b * dl.b for gl, dl in zip(g.layers, direction.layers))
    assert tangent == pytest.approx(expected, rel=1e-6)
    eps = 1e-5
    gx = tad.grad(loss_of, wrt=1)
    expected = (gx(net, X + eps * V) - gx(net, X - eps * V)) / (2 * eps)
    np.testing.assert_allclose(tad.hvp(loss_of, wrt=1)(net, X, V), expected, rtol=1e-5, atol=1e-8)


def test_float32_models_keep_their_dtype():
    net = make_net(np.float32)
    g = tad.grad(loss_of)(net, X.astype(np.float32))
    assert g.layers[0].W.dtype == np.float32 and g.layers[1].W.shape == (3, 2)
    gx = tad.grad(net.loss)(X.astype(np.float32))
    assert gx.dtype == np.float32


def test_other_classes_get_their_own_derivative():
    df = tad.grad(loss_of, wrt=1)
    a, b = make_net(kind=Dense), make_net(kind=Softplus)
    np.testing.assert_allclose(df(a, X), numerical_grad(loss_of, (a, X), 1), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(df(b, X), numerical_grad(loss_of, (b, X), 1), rtol=1e-6, atol=1e-9)
    a.layers = [Softplus(l.W, l.b) for l in a.layers]  # the same object, other classes inside
    np.testing.assert_allclose(df(a, X), numerical_grad(loss_of, (a, X), 1), rtol=1e-6, atol=1e-9)
    a.readout = np.cos  # another function kept as an attribute
    np.testing.assert_allclose(df(a, X), numerical_grad(loss_of, (a, X), 1), rtol=1e-6, atol=1e-9)


def test_layers_of_different_classes_by_index_and_in_a_loop():
    net = Net([Dense(RNG.normal(size=(3, 3)), 0.1), Softplus(RNG.normal(size=(3, 2)), 0.0)])

    def by_index(net, x):
        first, second = net.layers[0], net.layers[1]
        return np.sum(second(first(x)) ** 2)

    np.testing.assert_allclose(tad.grad(by_index, wrt=1)(net, X),
                               numerical_grad(by_index, (net, X), 1), rtol=1e-6, atol=1e-9)
    with pytest.raises(tad.UnsupportedSyntaxError, match="different classes") as info:
        tad.grad(loss_of, wrt=1)(net, X)
    assert "first = layers[0]" in info.value.hint and info.value.filename == __file__


def test_a_rebound_attribute_and_class_constant_are_read_when_it_runs():
    net = make_net()
    df = tad.grad(net.loss)
    df(X)
    net.layers[0].W = 2.0 * net.layers[0].W
    np.testing.assert_allclose(df(X), fd_x(net.loss), rtol=1e-6, atol=1e-9)
    Net.SCALE = 2.0
    try:
        np.testing.assert_allclose(df(X), fd_x(net.loss), rtol=1e-6, atol=1e-9)
    finally:
        Net.SCALE = 0.5


def test_a_method_redefined_on_its_class_is_seen():
    class Layer:
        def __init__(self, W):
            self.W = W

        def __call__(self, x):
            return np.sum(np.sin(x @ self.W))

    layer = Layer(RNG.normal(size=(3, 2)))

    def f(layer, x):
        return layer(x)

    df = tad.grad(f, wrt=1)
    np.testing.assert_allclose(df(layer, X), numerical_grad(f, (layer, X), 1), rtol=1e-6)

    def cubed(self, x):
        return np.sum((x @ self.W) ** 3)

    Layer.__call__ = cubed
    np.testing.assert_allclose(df(layer, X), numerical_grad(f, (layer, X), 1), rtol=1e-6)


def test_a_dataclass_model_with_a_method_and_a_staticmethod():
    @dataclasses.dataclass
    class Linear:
        W: np.ndarray
        b: float

        @staticmethod
        def act(z):
            return np.tanh(z)

        def predict(self, x):
            return self.act(x @ self.W + self.b)

    def loss(model, x):
        return np.mean(model.predict(x) ** 2)

    model = Linear(RNG.normal(size=(3, 1)), 0.2)
    g = tad.grad(loss)(model, X)
    assert type(g) is Linear
    np.testing.assert_allclose(g.W, numerical_grad(lambda W: loss(Linear(W, 0.2), X),
                                                   (model.W,), 0), rtol=1e-6)
    assert g.b == pytest.approx(numerical_grad(lambda b: loss(Linear(model.W, b), X), (0.2,), 0),
                                rel=1e-6)


def test_a_helper_function_given_an_object():
    def apply(layer, x):
        return layer(x)

    def f(net, x):
        return np.sum(apply(net.layers[0], x) ** 2)

    net = make_net()
    np.testing.assert_allclose(tad.grad(f, wrt=1)(net, X), numerical_grad(f, (net, X), 1),
                               rtol=1e-6, atol=1e-9)


def test_a_global_model_inside_a_lambda():
    net = make_net()
    f = lambda x: net.loss(x) + 1.0  # noqa: E731
    np.testing.assert_allclose(tad.grad(f)(X), fd_x(f), rtol=1e-6, atol=1e-9)
    _, tangent = tad.jvp(f)(X, V)
    assert tangent == pytest.approx(np.sum(fd_x(f) * V), rel=1e-6)


def test_show_source_after_the_first_call():
    df = tad.grad(loss_of)
    with pytest.raises(TypeError, match="when it is first called"):
        tad.show_source(df)
    df(make_net(), X)
    source = tad.show_source(df)
    assert "pullback_Net_forward_dself" in source and "field(self, 'layers')" in source
    assert "pullback_Dense_call_dself_x(layer, x)" in source


GLOBAL_NET = make_net()


def uses_the_global_net(x):
    return GLOBAL_NET.loss(x)


def test_rebinding_a_global_model_to_another_class_generates_again():
    global GLOBAL_NET
    df = tad.grad(uses_the_global_net)
    saved = GLOBAL_NET
    try:
        np.testing.assert_allclose(df(X), fd_x(uses_the_global_net), rtol=1e-6, atol=1e-9)
        GLOBAL_NET = make_net(kind=Softplus)
        np.testing.assert_allclose(df(X), fd_x(uses_the_global_net), rtol=1e-6, atol=1e-9)
    finally:
        GLOBAL_NET = saved


def test_the_command_line_says_it_cannot_know_the_classes(tmp_path, monkeypatch, capsys):
    from tangent_ad import cli
    (tmp_path / "model.py").write_text(
        "import numpy as np\n\n\n"
        "def loss(model, x):\n"
        "    return np.sum(model.forward(x))\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["model.py:loss"]) == 1
    assert "depend on their classes" in capsys.readouterr().err


def test_hvp_with_respect_to_objects():
    @dataclasses.dataclass
    class Lin:
        W: np.ndarray
        b: float

    def f(p, x):
        return np.sum(np.tanh(x @ p.W + p.b) ** 2)

    p, v = Lin(RNG.normal(size=(3, 2)), 0.3), Lin(RNG.normal(size=(3, 2)), 0.5)
    h = tad.hvp(f)(p, X, v)
    g, eps = tad.grad(f), 1e-5
    up = g(Lin(p.W + eps * v.W, p.b + eps * v.b), X)
    down = g(Lin(p.W - eps * v.W, p.b - eps * v.b), X)
    assert type(h) is Lin
    np.testing.assert_allclose(h.W, (up.W - down.W) / (2 * eps), rtol=1e-5, atol=1e-8)
    assert h.b == pytest.approx((up.b - down.b) / (2 * eps), rel=1e-5)

    net, direction = make_net(), make_net()
    h = tad.hvp(loss_of)(net, X, direction)
    g = tad.grad(loss_of)

    def moved(sign):
        return Net([type(l)(l.W + sign * eps * d.W, l.b + sign * eps * d.b)
                    for l, d in zip(net.layers, direction.layers)])

    up, down = g(moved(1), X), g(moved(-1), X)
    for i in range(2):
        np.testing.assert_allclose(h.layers[i].W, (up.layers[i].W - down.layers[i].W) / (2 * eps),
                                   rtol=1e-5, atol=1e-8)


def test_hessian_of_a_lambda_calling_a_function_with_a_global_model():
    f = lambda x: loss_of(GLOBAL_NET, x)  # noqa: E731
    x = X[0]
    H = tad.hessian(f)(x)
    g, eps = tad.grad(f), 1e-5
    expected = np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(H, expected, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(g(x), numerical_grad(f, (x,), 0), rtol=1e-6, atol=1e-9)


def test_a_derivative_made_for_classes_is_not_differentiated_again():
    df = tad.grad(loss_of, wrt=1)
    with pytest.raises(tad.UnsupportedSyntaxError, match="cannot be differentiated again") as info:
        tad.jvp(df, wrt=1)
    assert "lambda x: loss(model, x)" in info.value.hint
    net = make_net()  # what the hint says works
    f = lambda x: loss_of(net, x)  # noqa: E731
    V1 = RNG.normal(size=X.shape)
    _, tangent = tad.jvp(tad.grad(f))(X, 1.0, V1)  # the seed bresult, then dx
    g, eps = tad.grad(f), 1e-5
    np.testing.assert_allclose(tangent, (g(X + eps * V1) - g(X - eps * V1)) / (2 * eps),
                               rtol=1e-5, atol=1e-8)


def test_a_global_model_whose_layers_change_class_is_differentiated_again():
    global GLOBAL_NET
    saved, GLOBAL_NET = GLOBAL_NET, make_net(kind=Dense)
    try:
        df = tad.grad(uses_the_global_net)
        np.testing.assert_allclose(df(X), fd_x(uses_the_global_net), rtol=1e-6, atol=1e-9)
        GLOBAL_NET.layers = [Softplus(l.W, l.b) for l in GLOBAL_NET.layers]  # the same object
        np.testing.assert_allclose(df(X), fd_x(uses_the_global_net), rtol=1e-6, atol=1e-9)
        GLOBAL_NET.layers[0].W = 0.5 * GLOBAL_NET.layers[0].W  # data: read when it runs
        np.testing.assert_allclose(df(X), fd_x(uses_the_global_net), rtol=1e-6, atol=1e-9)
    finally:
        GLOBAL_NET = saved


def test_tangent_ad_objects_such_as_checkpoint_are_not_user_classes():
    block = tad.checkpoint(lambda W, h: np.tanh(h @ W))
    W = RNG.normal(size=(3, 3))

    def f(W, x):
        return np.sum(block(W, x) ** 2)

    np.testing.assert_allclose(tad.grad(f)(W, X), numerical_grad(f, (W, X), 0), rtol=1e-6)
