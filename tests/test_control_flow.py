"""Branches and loops: gradients against finite differences, loops kept as loops."""
import contextlib
import signal

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import numerical_grad
from control_flow_functions import ALL_MODES, CASES, loop_branch
from corpus import (check_against_finite_differences, check_all_modes,
                    check_optimizer_keeps_values)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(4))
def test_gradient_matches_finite_differences(name, seed):
    check_against_finite_differences(CASES[name], seed)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unoptimized_derivative_agrees(name):
    check_optimizer_keeps_values(CASES[name])


def test_zero_iterations_give_the_identity():
    assert tad.grad(loop_branch)(0.3, 0) == 1.0


def test_loops_are_not_unrolled():
    source = tad.show_source(tad.grad(loop_branch))
    code = [l for l in source.splitlines() if not l.strip().startswith("#")]
    assert sum("for i in" in l for l in code) == 2
    assert "for i in reversed(range(n)):" in source


def test_value_that_is_never_overwritten_is_not_saved():
    def scale(x, w, n):
        for i in range(n):
            x = x * w
        return x
    source = tad.show_source(tad.grad(scale, wrt=(0, 1)))
    assert "stack.append(w)" not in source


def test_generated_size_does_not_depend_on_trip_count():
    df = tad.grad(loop_branch)
    assert df(0.3, 3) != df(0.3, 300)  # same code, different counts


def test_value_and_grad_returns_the_final_value():
    value, grad = tad.value_and_grad(loop_branch)(0.7, 4)
    assert value == pytest.approx(loop_branch(0.7, 4))
    assert grad == pytest.approx(tad.grad(loop_branch)(0.7, 4))


# ---- empty bodies (Python has no empty block: `pass`, or a body the transform empties) ----

def pass_in_for(x, n):
    for i in range(n):
        pass
    return np.sum(x * x)


def pass_in_while(x, n):
    i = 0
    while i < n:
        i = i + 1
    while i > 100:
        pass
    return np.sum(x * x)


def pass_in_branches(x, n):
    if n > 1:
        pass
    else:
        pass
    if n > 2:
        pass
    else:
        x = x * 2.0
    return np.sum(x * x)


def pass_in_nested_loops(x, n):
    for i in range(n):
        for j in range(n):
            pass
        if i > 0:
            pass
    return np.sum(np.sin(x))


def loop_without_active_statements(x, n):
    s = 0.0
    for i in range(n):
        s = s + 1.0
    return np.sum(x * x) + s


@pytest.mark.parametrize("func", [pass_in_for, pass_in_while, pass_in_branches,
                                  pass_in_nested_loops, loop_without_active_statements])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_empty_bodies_in_every_mode(func, n):
    check_all_modes(func, (np.array([0.3, -0.8]), n))


# ---- for/while ... else: the else clause runs unless a break left the loop -------------

def for_else_without_break(x, n):
    for i in range(n):
        x = x * 1.5
    else:
        x = np.sin(x)
    return np.sum(x)


def for_else_with_break(x, n):
    for i in range(n):
        if i >= 2:
            break
        x = x * np.cos(x)
    else:
        x = x * 3.0
    return np.sum(x * x)


def while_else_with_data_dependent_break(x, n):
    i = 0
    while i < n:
        x = np.sin(x) + x
        if np.sum(x) > 1.0:
            break
        i = i + 1
    else:
        x = x * x
    return np.sum(x)


def nested_loops_with_else(x, n):
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            x = x * 1.1
        else:
            x = np.tanh(x)
    else:
        x = x + 1.0
    return np.sum(x)


def return_skips_the_else(x, n):
    for i in range(n):
        x = x * 2.0
        if i == 1:
            return np.sum(x * x)
    else:
        x = np.sin(x)
    return np.sum(x)


@pytest.mark.parametrize("func", [for_else_without_break, for_else_with_break,
                                  while_else_with_data_dependent_break,
                                  nested_loops_with_else, return_skips_the_else])
@pytest.mark.parametrize("n", [0, 1, 2, 4])
def test_loop_else_in_every_mode(func, n):
    check_all_modes(func, (np.array([0.3, -0.2]), n))


def test_loop_else_runs_exactly_when_python_runs_it():
    x = np.array([0.3, -0.2])
    for n in range(5):
        for func in (for_else_with_break, while_else_with_data_dependent_break):
            value, _ = tad.value_and_grad(func)(x, n)
            assert value == pytest.approx(func(x, n))


# ---- enumerate(xs, start) ----------------------------------------------------------------

def enumerate_with_start_keyword(xs):
    s = 0.0
    for i, v in enumerate(xs, start=2):
        s = s + i * v
    return np.sum(s)


def enumerate_with_start_argument(xs, k):
    s = 0.0
    for i, v in enumerate(xs, k + 1):
        s = s + i * np.sin(v)
    return np.sum(s)


def enumerate_a_list_from_a_negative_start(x):
    xs = [x, x * 2.0, np.cos(x)]
    s = 0.0
    for j, v in enumerate(xs, start=-1):
        s = s + j * v * v
    return np.sum(s)


def enumerate_start_is_read_once(xs, k):
    s = 0.0
    for i, v in enumerate(xs, k):
        k = k + 10
        s = s + i * v * v
    return np.sum(s) + k


def test_enumerate_start_is_not_dropped():
    # d/dxs of sum_i (i + 2) * xs[i] is [2, 3, 4].
    grad = tad.grad(enumerate_with_start_keyword)(np.array([0.5, -1.0, 2.0]))
    np.testing.assert_allclose(grad, [2.0, 3.0, 4.0])


@pytest.mark.parametrize("func, args", [
    (enumerate_with_start_keyword, (np.array([0.5, -1.0, 2.0]),)),
    (enumerate_with_start_argument, (np.array([0.5, -1.0, 2.0]), 3)),
    (enumerate_a_list_from_a_negative_start, (np.array([0.3, 0.4]),)),
    (enumerate_start_is_read_once, (np.array([0.5, -1.0, 2.0]), 3)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_enumerate_with_start_in_every_mode(func, args):
    check_all_modes(func, args)


# ---- the iterable is evaluated once, though the body rebinds it ----------------------

def loop_rebinding_what_it_iterates(x):
    out = 0.0
    for row in x:
        x = x * 0.5
        out = out + np.sum(row * row)
    return out + np.sum(x)


def test_loop_over_a_rebound_array_reads_the_original_rows():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    # rows of the original x: 2 x; plus sum(x / 4): 0.25
    np.testing.assert_allclose(tad.grad(loop_rebinding_what_it_iterates)(x), 2 * x + 0.25)
    check_all_modes(loop_rebinding_what_it_iterates, (x,))


@pytest.mark.parametrize("name", sorted(ALL_MODES))
def test_every_mode_matches_finite_differences(name):
    func, arguments, wrt = ALL_MODES[name]
    with _within(300):
        for args in arguments:
            check_all_modes(func, args, wrt)


@contextlib.contextmanager
def _within(seconds):
    """Fail, rather than hang, when the block takes over `seconds`."""
    def timeout(signum, frame):
        raise TimeoutError(f"not done in {seconds} s")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_an_early_return_in_a_helper_transforms_in_bounded_time():
    # issue 19: this used to hang in the simplifier (two names each other's
    # shape source); the alarm makes a regression fail instead of hang
    from control_flow_functions import early_return_in_helper

    with _within(60):
        df = tad.grad(early_return_in_helper)
    # d/dv sum(1.5 + tanh(v)) = 1 - tanh(v)**2 where sum(v) > 0
    v = np.array([0.3, 0.4])
    np.testing.assert_allclose(df(v), 1.0 - np.tanh(v) ** 2, rtol=1e-12)
    np.testing.assert_array_equal(df(-v), np.zeros(2))


def test_a_nested_exit_followed_by_statements_reads_as_a_flag():
    from control_flow_functions import break_nested_then_more
    source = tad.show_source(tad.grad(break_nested_then_more))
    assert "breaking = True" in source
    assert "if breaking:" in source


USE_V = False  # a module constant that switches a branch off


def v_switched_off(x, v):
    s = np.sum(x * x)
    if USE_V:
        u = v * v
    if USE_V:
        s = s + np.sum(u)
    return s


def test_a_wrt_argument_that_does_not_reach_the_output_gets_zeros():
    # u is assigned only in a branch that does not run: the zero adjoint
    # of u on that path used to read u (UnboundLocalError)
    x, v = np.array([0.3, 0.4]), np.array([0.5, -0.2, 0.1], dtype=np.float32)
    check_all_modes(v_switched_off, (x, v), wrt=(1,))
    check_all_modes(v_switched_off, (x, v), wrt=(0, 1))
    gradient = tad.grad(v_switched_off, wrt="v")(x, v)
    assert gradient.shape == v.shape and gradient.dtype == v.dtype
    assert not gradient.any()
    np.testing.assert_array_equal(tad.hvp(v_switched_off, wrt="v")(x, v, v), np.zeros(3))


def _skips_every_iteration(x, n):
    for i in range(n):
        continue
    return np.sum(np.sin(x))


def test_a_loop_whose_body_is_only_continue():
    # the body is empty once the tail `continue` goes: `for` with no body
    # (IndentationError) in the unoptimized derivative
    check_all_modes(_skips_every_iteration, (np.array([0.3, -0.4]), 3))


# ---- loops over what a call returns (issue 13: autograd's bayesian_neural_net) ----

def _two_layers(params):
    return [(params[0], params[1]), (params[2], params[3])]


def _through_layers(params, x):
    for W, b in _two_layers(params):
        x = np.tanh(W @ x + b)
    return np.sum(x)


def _over_split(x):
    s = 0.0
    for part in np.split(x, 2):
        s = s + np.sum(np.sin(part)) * np.sum(part)
    return s


def _over_rows_of_a_result(x):
    s = 0.0
    for row in np.tanh(x):
        s = s + np.sum(row * row[0])
    return s


def _pieces(w):
    for i in range(2):
        yield w[2 * i:2 * i + 2]


def _over_a_generator(w):
    s = 0.0
    for p in _pieces(w):
        s = s + np.sum(p ** 2)
    return s


def test_a_loop_over_the_list_a_call_returns_in_every_mode():
    rng = np.random.default_rng(7)
    params = [rng.normal(size=(3, 3)), rng.normal(size=3), rng.normal(size=(3, 3)),
              rng.normal(size=3)]
    x = rng.normal(size=3)
    got = tad.grad(_through_layers)(params, x)
    for i in range(4):
        want = numerical_grad(lambda p: _through_layers(params[:i] + [p] + params[i + 1:], x),
                              (params[i],), 0)
        np.testing.assert_allclose(got[i], want, rtol=1e-6, atol=1e-8)
    for f, arg in ((_over_split, rng.normal(size=4)), (_over_rows_of_a_result,
                                                        rng.normal(size=(2, 3)))):
        np.testing.assert_allclose(tad.grad(f)(arg), numerical_grad(f, (arg,), 0), rtol=1e-6)
        t = rng.normal(size=arg.shape)
        _, tangent = tad.jvp(f)(arg, t)
        np.testing.assert_allclose(tangent, (f(arg + 1e-6 * t) - f(arg - 1e-6 * t)) / 2e-6,
                                   rtol=1e-6)


def _pieces_until(w):
    s = 0.0
    for p in _pieces(w):
        s = s + np.sum(p ** 2)
        if s > 1.0:
            break
    return s


def _yield_as_a_value(x):
    y = yield x
    return y


def _over_yield_as_a_value(x):
    s = 0.0
    for p in _yield_as_a_value(x):
        s = s + p
    return s


def test_a_loop_over_a_generator_reads_its_items_in_every_mode():
    w, t = np.array([0.5, -1.0, 2.0, 0.25]), np.array([1.0, 0.5, -1.0, 2.0])
    np.testing.assert_allclose(tad.grad(_over_a_generator)(w), 2 * w)
    _, tangent = tad.jvp(_over_a_generator)(w, t)
    np.testing.assert_allclose(tangent, 2 * w @ t)
    np.testing.assert_allclose(tad.hvp(_over_a_generator)(w, t), 2 * t)


def test_a_generator_the_derivative_cannot_read_as_a_list_is_refused():
    # a loop with break may stop early (the generator could be endless)
    with pytest.raises(tad.UnsupportedSyntaxError, match="generator _pieces") as info:
        tad.grad(_pieces_until)(np.arange(4.0))
    assert "return a list" in str(info.value)
    with pytest.raises(tad.UnsupportedSyntaxError, match="'yield' used as a value"):
        tad.grad(_over_yield_as_a_value)(1.0)
