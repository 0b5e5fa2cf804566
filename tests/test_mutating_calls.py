"""A called function that writes into its parameters in place (autograd's
fluidsim: ``vx -= ...`` in ``project(vx, vy)``) is differentiated when
every call binds the result back to the name it passes, so that nothing
sees the old object; other calls are refused at the caller's line
(frontend/mutation.py)."""
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import numerical_grad


def project_(vx, vy):
    vx -= 0.5 * (np.roll(vy, 1) - np.roll(vy, -1))
    vy *= 2.0
    vy[0] = vy[0] + vx[1]
    return vx, vy


def binds_back(x, y):
    for _ in range(2):
        x, y = project_(x, y)
    return np.sum(x * y) + np.sum(np.sin(x))


def passes_fresh_values(x, y):
    a, b = project_(x * 1.0, y + 0.0)
    return np.sum(a * b) + np.sum(x)


def reads_the_old_object(x, y):
    a, b = project_(x, y)
    return np.sum(a * b) + np.sum(x)


def normalize_(y):
    y /= np.sum(y)
    return y


def apply(fn, v):
    z = fn(v)
    return np.sum(z * v)


def passes_it_as_a_value(x):
    x = normalize_(x)
    return apply(normalize_, x * 1.0 + 1.0)


@pytest.mark.parametrize("f", [binds_back, passes_fresh_values])
def test_bound_back_or_fresh_arguments_in_every_mode(f):
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=4), rng.normal(size=4)
    got = tad.grad(f, wrt=(0, 1))(x.copy(), y.copy())
    # (f writes into its arguments: each evaluation gets copies)
    for i, want in enumerate([numerical_grad(lambda a: f(a.copy(), y.copy()), (x,), 0),
                              numerical_grad(lambda b: f(x.copy(), b.copy()), (y,), 0)]):
        np.testing.assert_allclose(got[i], want, rtol=1e-6, atol=1e-8)
    t = rng.normal(size=4)
    _, tangent = tad.jvp(f)(x.copy(), y.copy(), t)
    np.testing.assert_allclose(tangent, (f(x + 1e-6 * t, y.copy()) - f(x - 1e-6 * t, y.copy()))
                               / 2e-6, rtol=1e-6)


def test_a_caller_that_sees_the_change_is_refused_at_its_line():
    with pytest.raises(tad.UnsupportedSyntaxError, match="passes 'x' to project_") as info:
        tad.grad(reads_the_old_object)
    assert info.value.lineno == reads_the_old_object.__code__.co_firstlineno + 1
    assert "bind the result back" in str(info.value)


def test_a_writer_passed_as_a_value_is_refused_where_it_writes():
    # apply's call fn(v) cannot be checked: the write itself is refused
    with pytest.raises(tad.UnsupportedSyntaxError, match="changes the parameter 'y' in place"):
        tad.grad(passes_it_as_a_value)


def _halved(f):
    size = f.shape[0]
    return np.reshape(f * 0.5, (size,))  # a view, but of a new array


def _recursive_view(x, n):
    if n == 0:
        return x[1:]
    return _recursive_view(x, n - 1)


def writes_a_result_of_a_helper(x, y):
    # fluidsim's pattern: vx_updated = advect(vx, ...); vx, vy = project(vx_updated, ...)
    for _ in range(2):
        x_new = _halved(x)
        y_new = _halved(y)
        x, y = project_(x_new, y_new)
    return np.sum(x * y) + np.sum(x)


def writes_a_view_a_helper_returns(x, y):
    v = _recursive_view(x, 2)
    a, b = project_(v, y[1:] * 1.0)
    return np.sum(a * b) + np.sum(x)


def test_a_helpers_new_result_may_be_written_when_nothing_reads_it_again():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=4), rng.normal(size=4)
    f = writes_a_result_of_a_helper
    got = tad.grad(f)(x.copy(), y.copy())
    np.testing.assert_allclose(got, numerical_grad(lambda a: f(a.copy(), y.copy()), (x,), 0),
                               rtol=1e-6, atol=1e-8)
    # a helper that may return (a view of) its argument: x would change too
    with pytest.raises(tad.UnsupportedSyntaxError, match="may share its object with 'x'"):
        tad.grad(writes_a_view_a_helper_returns)


def _bump_(obj, y):
    y *= 2.0
    return y


class _WithBump:
    bump_ = _bump_  # the same function, called as a method too


def _plain_and_method(x, m):
    x = _bump_(None, x)  # checked: bound back
    z = x * 1.0
    w = m.bump_(z)  # a method call: not checked, and z is read again
    return np.sum(w) + np.sum(z)


def test_a_writer_also_called_as_a_method_is_refused():
    with pytest.raises(tad.UnsupportedSyntaxError, match="in place"):
        tad.grad(_plain_and_method)(np.ones(3), _WithBump())
