"""Tuples, lists and dicts as values, arguments and gradients."""
import numpy as np
import pytest

import tangent_ad as tad
from corpus import check_against_finite_differences, check_all_modes, \
    check_optimizer_keeps_values
from container_functions import (
    CASES, nested, params_dict, params_list, unused_entry, write_dict)
from tangent_ad.testing import check_jvp


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(2))
def test_gradient_matches_finite_differences(name, seed):
    check_against_finite_differences(CASES[name], seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unoptimized_derivative_agrees(name):
    check_optimizer_keeps_values(CASES[name])


def _numerical(f, tree, path, eps=1e-6):
    """Central difference of f(tree) along every element of the leaf at `path`."""
    def with_leaf(leaf):
        def put(node, keys):
            if not keys:
                return leaf
            copy = dict(node) if isinstance(node, dict) else list(node)
            copy[keys[0]] = put(node[keys[0]], keys[1:])
            return copy if not isinstance(node, tuple) else tuple(copy)
        return put(tree, path)
    leaf = tree
    for key in path:
        leaf = leaf[key]
    grad = np.zeros_like(leaf)
    for i in np.ndindex(leaf.shape):
        up, down = leaf.copy(), leaf.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(with_leaf(up)) - f(with_leaf(down))) / (2 * eps)
    return grad


def test_dict_parameters_get_a_dict_gradient(rng):
    params = {"W": rng.normal(size=(3, 3)), "b": rng.normal(size=3)}
    x = rng.normal(size=3)
    grads = tad.grad(params_dict)(params, x)
    assert sorted(grads) == ["W", "b"]
    for key in params:
        expected = _numerical(lambda p: params_dict(p, x), params, [key])
        np.testing.assert_allclose(grads[key], expected, rtol=1e-5, atol=1e-7)


def test_list_parameters_get_a_list_gradient(rng):
    layers = [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)]
    x = rng.normal(size=3)
    grads = tad.grad(params_list)(layers, x)
    assert isinstance(grads, list) and len(grads) == 3
    for i in range(3):
        expected = _numerical(lambda p: params_list(p, x), layers, [i])
        np.testing.assert_allclose(grads[i], expected, rtol=1e-5, atol=1e-7)


def test_nested_structures(rng):
    p = {"inner": (rng.normal(size=3), rng.normal(size=3)), "scale": rng.normal(size=3)}
    x = rng.normal(size=3)
    grads = tad.grad(nested)(p, x)
    np.testing.assert_allclose(grads["inner"][0], x)
    np.testing.assert_allclose(grads["inner"][1], p["scale"])
    np.testing.assert_allclose(grads["scale"], p["inner"][1])


def test_entries_that_do_not_matter_get_zeros(rng):
    p = {"used": rng.normal(size=2), "unused": rng.normal(size=(2, 2))}
    grads = tad.grad(unused_entry)(p, rng.normal(size=2))
    np.testing.assert_array_equal(grads["unused"], np.zeros((2, 2)))


def test_writing_into_a_dict(rng):
    p = {"a": rng.normal(size=3), "b": rng.normal(size=3)}
    x = rng.normal(size=3)
    grads = tad.grad(write_dict)(p, x)
    np.testing.assert_allclose(grads["a"], x)
    np.testing.assert_allclose(grads["b"], np.ones(3))


def test_writes_leave_the_caller_array_unchanged(rng):
    from container_functions import overwrite_slices
    x = rng.normal(size=4)
    before = x.copy()
    tad.grad(overwrite_slices)(x)
    np.testing.assert_array_equal(x, before)


# ---- for k in d: a loop over a dict goes through its keys ------------------------------

def loop_over_a_dict_argument(p):
    s = 0.0
    for k in p:
        s = s + np.sum(np.sin(p[k]) ** 2)
    return s


def loop_over_a_local_dict(x):
    d = {"a": x, "b": x * 2.0}
    s = 0.0
    for k in d:
        s = s + np.sum(d[k] * d[k])
    return s


def loop_over_integer_keys(x):
    d = {1: x, 3: x * x}
    s = 0.0
    for k in d:
        s = s + k * np.sum(d[k])   # a key is a constant factor
    return s


def enumerate_a_dict(x):
    d = {"a": x, "b": np.cos(x)}
    s = 0.0
    for i, k in enumerate(d):
        s = s + (i + 1.0) * np.sum(d[k])
    return s


def zip_a_dict_with_a_list(x):
    d = {"a": 1.0, "b": 2.0}
    ys = [x, x * x]
    s = 0.0
    for k, y in zip(d, ys):
        s = s + d[k] * np.sum(y)
    return s


def loop_over_a_sequence_argument(xs):
    s = 0.0
    for v in xs:
        s = s + np.sum(v * v)
    return s


def _check_jvp_and_hvp(func, args):
    for optimized in (True, False):
        check_jvp(func, tad.jvp(func, optimized=optimized), args)
        gradient, product = tad.grad(func), tad.hvp(func, optimized=optimized)
        check_jvp(gradient, lambda *a: (gradient(*a[:-1]), product(*a)), args)


def test_loop_over_a_dict_argument_goes_through_its_keys(rng):
    params = {"w": rng.normal(size=2), "b": rng.normal(size=1)}
    for optimized in (True, False):
        grads = tad.grad(loop_over_a_dict_argument, optimized=optimized)(params)
        assert sorted(grads) == ["b", "w"]
        for key in params:
            np.testing.assert_allclose(grads[key], np.sin(2 * params[key]))  # d sin^2
    _check_jvp_and_hvp(loop_over_a_dict_argument, (params,))


@pytest.mark.parametrize("func", [loop_over_a_local_dict, loop_over_integer_keys,
                                  enumerate_a_dict, zip_a_dict_with_a_list])
def test_loop_over_a_local_dict_in_every_mode(func):
    check_all_modes(func, (np.array([0.3, -0.5]),))


@pytest.mark.parametrize("xs", [[np.array([0.3, -0.5]), np.array([1.5, 0.2])],
                                (np.array([0.3, -0.5]), 0.7), np.array([[0.3, -0.5], [1.0, 2.0]])],
                         ids=["list", "tuple", "array"])
def test_loop_over_a_sequence_argument_in_every_mode(xs):
    for optimized in (True, False):
        grads = tad.grad(loop_over_a_sequence_argument, optimized=optimized)(xs)
        assert type(grads) is type(xs)
        for g, v in zip(grads, xs):
            np.testing.assert_allclose(g, 2.0 * np.asarray(v))
    _check_jvp_and_hvp(loop_over_a_sequence_argument, (xs,))


def test_loop_over_a_sequence_argument_at_higher_order():
    x = np.array([[0.5, 1.0], [2.0, -1.0]])

    def cubes(xs):
        s = 0.0
        for v in xs:
            s = s + np.sum(v * v * v)
        return s

    # f = sum x^3: the gradient is 3 x^2, its vjp with ones 6 x, and once more 6.
    np.testing.assert_allclose(tad.vjp(tad.grad(cubes))(x, np.ones_like(x)), 6 * x)
    np.testing.assert_allclose(
        tad.vjp(tad.vjp(tad.grad(cubes)))(x, np.ones_like(x), np.ones_like(x)), 6.0)
    # jvp(f)(x, dx) = (f, sum 3 x^2 dx); its vjp with (1, 1) at dx = x is 3 x^2 + 6 x^2.
    np.testing.assert_allclose(tad.vjp(tad.jvp(cubes))(x, x, (1.0, 1.0)), 9 * x * x)
    value, tangent = tad.jvp(tad.jvp(cubes))(x, x, x)
    np.testing.assert_allclose(tangent[1], np.sum(6 * x * x * x))  # d/dx (3 x^2 . x) . x


# ---- one container, several helpers: adjoints add up entry by entry ------------
# (a list's adjoints used to be concatenated, a dict's raised TypeError)

import shared_container_functions as shared  # noqa: E402

_INDEXED = ["two_helpers", "three_helpers", "nested_helpers", "helper_in_loop",
            "through_copy", "inside_literal"]
_KEYED = ["two_key_helpers", "three_key_helpers", "nested_key_helpers",
          "key_helper_in_loop"]


def _shared_cases():
    def indexed(kind):
        return lambda rng: kind([rng.normal(size=3), rng.normal(size=3)])

    def keyed(rng):
        return {"w": rng.normal(size=3), "b": rng.normal(size=3)}

    def layers(rng):
        return [{"W": rng.normal(size=(3, 3)), "b": rng.normal(size=3)} for _ in range(2)]

    def model(rng):
        return {"layers": [(rng.normal(size=(3, 3)), rng.normal(size=3)) for _ in range(2)],
                "scale": rng.normal(size=3)}

    cases = [(f"{name}-{kind.__name__}", getattr(shared, name), indexed(kind))
             for name in _INDEXED for kind in (list, tuple)]
    cases += [(f"{name}-dict", getattr(shared, name), keyed) for name in _KEYED]
    cases += [("network-list_of_dicts", shared.network, layers),
              ("network_in_loop-list_of_dicts", shared.network_in_loop, layers),
              ("model-dict_of_list_of_tuples", shared.model, model)]
    return {label: (func, make) for label, func, make in cases}


SHARED = _shared_cases()


def _leaves(tree):
    if isinstance(tree, dict):
        return [leaf for key in tree for leaf in _leaves(tree[key])]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


def _rebuilt(tree, leaves):
    """`tree` with its leaves taken, in order, from the iterator `leaves`."""
    if isinstance(tree, dict):
        return {key: _rebuilt(tree[key], leaves) for key in tree}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuilt(item, leaves) for item in tree)
    return next(leaves)


def _moved(tree, direction, step):
    return _rebuilt(tree, iter([a + step * d for a, d in zip(_leaves(tree), _leaves(direction))]))


def _central_gradient(f, p, eps=1e-6):
    """Central differences of scalar f along every entry of every leaf of p."""
    leaves = _leaves(p)
    grads = []
    for n, leaf in enumerate(leaves):
        g = np.zeros_like(leaf)
        for i in np.ndindex(leaf.shape):
            steps = [np.zeros_like(v) for v in leaves]
            steps[n][i] = 1.0
            direction = _rebuilt(p, iter(steps))
            g[i] = (f(_moved(p, direction, eps)) - f(_moved(p, direction, -eps))) / (2 * eps)
        grads.append(g)
    return _rebuilt(p, iter(grads))


def _assert_same_tree(got, want, rtol=1e-5, atol=1e-7):
    assert type(got) is type(want)
    if isinstance(want, dict):
        assert list(got) == list(want)
    else:
        assert len(_leaves(got)) == len(_leaves(want))
    for a, b in zip(_leaves(got), _leaves(want)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _direction(p, rng):
    return _rebuilt(p, iter([rng.normal(size=np.shape(v)) for v in _leaves(p)]))


@pytest.mark.parametrize("label", sorted(SHARED))
def test_shared_container_reverse(label, rng):
    func, make = SHARED[label]
    p, x = make(rng), rng.normal(size=3)
    want = _central_gradient(lambda q: func(q, x), p)
    _assert_same_tree(tad.grad(func)(p, x), want)
    _assert_same_tree(tad.grad(func, optimized=False)(p, x), want)


@pytest.mark.parametrize("label", sorted(SHARED))
def test_shared_container_forward(label, rng):
    func, make = SHARED[label]
    check_jvp(func, tad.jvp(func), (make(rng), rng.normal(size=3)))


@pytest.mark.parametrize("label", sorted(SHARED))
def test_shared_container_hvp(label, rng):
    """H v against central differences of the gradient along v."""
    func, make = SHARED[label]
    p, x = make(rng), rng.normal(size=3)
    v = _direction(p, rng)
    gradient, h = tad.grad(func), 1e-5
    up, down = _leaves(gradient(_moved(p, v, h), x)), _leaves(gradient(_moved(p, v, -h), x))
    want = _rebuilt(p, iter([(a - b) / (2 * h) for a, b in zip(up, down)]))
    _assert_same_tree(tad.hvp(func)(p, x, v), want, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("label", sorted(SHARED))
def test_shared_container_reverse_over_forward(label, rng):
    """vjp(jvp(f)) for the cotangent (c0, c1) of (value, tangent) is the
    gradient of c0 f(p) + c1 <grad f(p), dp> with respect to p."""
    func, make = SHARED[label]
    p, x = make(rng), rng.normal(size=3)
    dp, (c0, c1) = _direction(p, rng), rng.normal(size=2)
    jvp = tad.jvp(func)

    def paired(q):
        value, tangent = jvp(q, x, dp)
        return c0 * value + c1 * tangent

    got = tad.vjp(jvp)(p, x, dp, (c0, c1))
    _assert_same_tree(got, _central_gradient(paired, p), rtol=1e-4, atol=1e-6)


# ---- + and * of tuples and lists: concatenation and repetition -----------------

SEQUENCE_OPS = ["tuple_concatenation", "list_concatenation", "longer_concatenation",
                "tuple_repetition", "list_repetition"]


@pytest.mark.parametrize("name", SEQUENCE_OPS)
def test_sequence_arithmetic(name, rng):
    func = getattr(shared, name)
    args = (rng.normal(size=3), rng.normal(size=3))
    for wrt in (0, 1):
        want = _central_gradient(lambda a: func(*(args[:wrt] + (a,) + args[wrt + 1:])),
                                 args[wrt])
        np.testing.assert_allclose(tad.grad(func, wrt=wrt)(*args), want, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(tad.grad(func, wrt=wrt, optimized=False)(*args), want,
                                   rtol=1e-5, atol=1e-7)
    check_jvp(func, tad.jvp(func, wrt=(0, 1)), args, wrt=(0, 1))
    v = rng.normal(size=3)
    gradient, h = tad.grad(func), 1e-5
    want = (gradient(args[0] + h * v, args[1]) - gradient(args[0] - h * v, args[1])) / (2 * h)
    np.testing.assert_allclose(tad.hvp(func)(*args, v), want, rtol=1e-4, atol=1e-6)


def test_sequence_arithmetic_on_python_numbers():
    """The issue's repro: (a,) + (b,) then t[0] * t[1] is a product, not a
    sum (d/da = b, d/db = a); (a, b) * 2 then t[0] * t[3] + t[2] ** 2 is
    a * b + a ** 2 (d/da = b + 2a, d/db = a)."""
    assert tad.grad(shared.tuple_concatenation, wrt=(0, 1))(1.5, 2.0) == (2.0, 1.5)
    assert tad.grad(shared.tuple_repetition, wrt=(0, 1))(1.5, 2.0) == (2.0 + 3.0, 1.5)


@pytest.mark.parametrize("optimized", [True, False])
def test_sequence_arithmetic_the_code_does_not_show_is_refused(optimized):
    """Tuples that come in as arguments look like arrays to the transformer:
    their + and * are refused when the derivative runs, never differentiated
    as arithmetic (which gave a tuple-sized sum, or repetition of adjoints)."""
    two = (np.ones(2),), (2 * np.ones(2),)
    cases = [(tad.grad(shared.concatenated_parameters, wrt=(0, 1), optimized=optimized), two),
             (tad.grad(shared.doubled_parameter, optimized=optimized), ((1.5,),)),
             (tad.grad(shared.repeated_parameter, optimized=optimized), ((1.5,),)),
             (tad.vjp(shared.returned_repetition, optimized=optimized), ((1.5,), (1.0, 2.0)))]
    for derivative, args in cases:
        with pytest.raises(tad.UnsupportedSyntaxError, match="tuples or lists"):
            derivative(*args)
def write_parameter(x):
    x[0] = x[1] * x[2]
    return np.sum(x * x)


def test_a_write_into_the_requested_functions_parameter_is_right(rng):
    # f(x) = (x1 x2)^2 + x1^2 + x2^2 once x0 is overwritten, so by hand
    # df/dx = [0, 2 x1 x2^2 + 2 x1, 2 x2 x1^2 + 2 x2]; the caller's x is unchanged
    x = rng.normal(size=3)
    before = x.copy()
    grad = tad.grad(write_parameter)(x)
    np.testing.assert_array_equal(x, before)
    x0, x1, x2 = before
    np.testing.assert_allclose(grad, [0.0, 2 * x1 * x2 ** 2 + 2 * x1,
                                      2 * x2 * x1 ** 2 + 2 * x2], rtol=1e-12)
