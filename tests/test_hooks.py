"""insert_grad_code, stop_gradient, checkpoint and user-registered rules."""
import numpy as np
import pytest

import tangent_ad as tad
import hook_functions as hf
from corpus import check_all_modes
from tangent_ad.testing import check_grads


def test_clipping_hook_clips_every_step(rng):
    params, x = rng.normal(size=(3, 3)) * 2.0, rng.normal(size=3)
    dparams, dx = tad.grad(hf.clipped_rnn, wrt=(0, 1))(params, x)
    assert np.all(np.abs(dx) <= 0.1 + 1e-12)
    _, plain_dx = tad.grad(hf.plain_rnn, wrt=(0, 1))(params, x)
    assert not np.allclose(dx, plain_dx)


def test_hook_on_an_argument_scales_its_gradient(rng):
    x = rng.normal(size=4)
    np.testing.assert_allclose(tad.grad(hf.scaled_on_argument)(x), 10.0 * np.cos(x))


def test_hook_replacing_an_adjoint_with_zero(rng):
    x = rng.normal(size=3)
    # d/dx sum(3x * x) is 6x; with the adjoint of y = 3x zeroed only y remains
    np.testing.assert_allclose(tad.grad(hf.zeroed_temporary)(x), 3.0 * x)


def test_hook_inside_a_branch(rng):
    x = rng.normal(size=3)
    np.testing.assert_allclose(tad.grad(hf.hook_in_branch)(x, True), -np.cos(x))
    np.testing.assert_allclose(tad.grad(hf.hook_in_branch)(x, False), np.cos(x))


def test_several_hooks_in_one_function(rng):
    x = rng.normal(size=3)
    a = 2.0 * x
    expected = ((2 * a) * 0.5 + 1.0) * 2.0
    np.testing.assert_allclose(tad.grad(hf.two_hooks)(x), expected)


def test_hook_runs_in_the_backward_pass_only(rng):
    x = rng.normal(size=3)
    log = []
    hf.logging_hook(x, log)  # a direct call runs the block once, harmlessly
    log.clear()
    tad.grad(hf.logging_hook)(x, log)
    assert log == [pytest.approx(2.0 * 3)]


def test_inserted_code_is_shown_under_a_comment():
    source = tad.show_source(tad.grad(hf.clipped_rnn))
    assert "# Inserted grad code: with tad.insert_grad_code(h) as dh" in source
    assert "np.clip(" in source


def test_direct_call_still_works(rng):
    params, x = rng.normal(size=(3, 3)), rng.normal(size=3)
    assert hf.clipped_rnn(params, x) == pytest.approx(hf.plain_rnn(params, x))


def test_straight_through_estimator(rng):
    x = np.array([0.4, 1.6, -0.7])
    np.testing.assert_allclose(tad.grad(hf.straight_through)(x), 2.0 * np.round(x))


def test_checkpointed_gradients_equal_the_plain_ones(rng):
    W, h = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3)
    a = tad.grad(hf.checkpointed_net, wrt=(0, 1))(W, h, 4)
    b = tad.grad(hf.plain_net, wrt=(0, 1))(W, h, 4)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-12)
    check_grads(hf.checkpointed_net, tad.grad(hf.checkpointed_net, wrt=(0, 1)),
                (W, h, 3), wrt=(0, 1))


def test_checkpoint_recomputes_instead_of_saving():
    source = tad.show_source(tad.grad(hf.checkpointed_net, wrt=(0, 1)))
    forward = source.split("# Grad of")[0]
    assert "pullback_block" not in forward
    assert "_, back_t = pullback_block_dW_h(W, h)" in source


def cube(x):
    return x * x * x


def test_user_adjoint_wins_over_the_source(rng):
    with tad.registry.REGISTRY.scoped():
        @tad.adjoint(cube)
        def _(result, x):
            d[x] = d[result] * 3 * x * x * 2.0  # deliberately doubled

        def f(x):
            return np.sum(cube(x))
        x = rng.normal(size=3)
        np.testing.assert_allclose(tad.autodiff(f, optimized=False)(x), 6 * x * x)


@pytest.mark.parametrize("template, message", [
    ("def bad(x):\n    d[x] = d[result]\n", "first parameter must be 'result'"),
    ("def bad(result, y):\n    d[y] = d[result]\n", "'y' is not a parameter"),
    ("def bad(result, x):\n    d[x] = d[result] * nowhere(x)\n", "unknown name 'nowhere'"),
    ("def bad(result, x):\n    d[z] = d[result]\n", "cannot assign d[z]"),
    ("def bad(result, x):\n    print(x)\n", "only assignments"),
])
def test_malformed_templates_are_rejected_at_registration(tmp_path, template, message):
    import importlib.util
    path = tmp_path / "bad_rule.py"
    path.write_text(template)
    spec = importlib.util.spec_from_file_location("bad_rule", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tad.registry.REGISTRY.scoped():
        with pytest.raises(tad.TemplateError, match=message.replace("[", r"\[")):
            tad.adjoint(cube)(module.bad)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 50])
def test_checkpointed_loop_equals_the_plain_loop(rng, n):
    x, w = rng.normal(size=3), rng.normal(size=3)
    a = tad.grad(hf.checkpointed_loop, wrt=(0, 1))(x, w, n)
    b = tad.grad(hf.plain_loop, wrt=(0, 1))(x, w, n)
    for p, q in zip(a, b):
        np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-12)


def test_checkpointed_loop_matches_finite_differences(rng):
    x, w = rng.normal(size=3), rng.normal(size=3)
    check_grads(hf.checkpointed_loop, tad.grad(hf.checkpointed_loop, wrt=(0, 1)),
                (x, w, 12), wrt=(0, 1))


def test_checkpointed_loop_saves_snapshots_per_segment():
    source = tad.show_source(tad.grad(hf.checkpointed_loop, wrt=(0, 1)))
    assert "snapshots.append((s, x))" in source
    assert "s, x = snapshots.pop()" in source


def clipped_in_place(x):
    h = np.tanh(x * 3.0)
    with tad.insert_grad_code(h) as dh:
        np.clip(dh, -0.1, 0.1, out=dh)
    return np.sum(h ** 2)


def test_a_hook_changing_its_adjoint_in_place_leaves_a_direct_call_alone():
    x = np.array([0.5, -0.8, 0.2])
    assert clipped_in_place(x) == pytest.approx(np.sum(np.tanh(x * 3.0) ** 2))


def hooks_are_the_only_statements(x, n):
    for i in range(n):
        with tad.insert_grad_code(x) as dx:
            dx = np.clip(dx, -1e9, 1e9)
    if n > 1:
        with tad.insert_grad_code(x) as dx:
            dx = np.clip(dx, -1e9, 1e9)
    else:
        pass
    while n > 10:
        with tad.insert_grad_code(x) as dx:
            dx = np.clip(dx, -1e9, 1e9)
        n = n - 1
    return np.sum(x * x * x)


@pytest.mark.parametrize("n", [0, 2, 12])
def test_bodies_left_empty_by_moved_hooks(n):
    # The hooks clip at 1e9 (no effect), so the derivative is 3 x ** 2.
    check_all_modes(hooks_are_the_only_statements, (np.array([0.3, -0.8]), n))
