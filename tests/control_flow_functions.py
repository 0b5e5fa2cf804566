"""Functions with branches and loops, differentiated by tests/test_control_flow.py.

Each entry of CASES is (function, argument builder, wrt). Builders take a
seeded generator and return the arguments; loop counts are drawn at random
and include zero.
"""
import numpy as np


def loop_branch(x, n):
    for i in range(n):
        if x > 0.5:
            x = x * 0.9 + 0.05
        else:
            x = np.sin(x) + 0.3
    return x


def if_elif_else(x):
    if x > 1.0:
        y = x * x
    elif x > 0.0:
        y = np.sin(x)
    else:
        y = -x * 3.0
    return y


def branch_on_shape(x):
    if np.size(x) > 2:
        y = np.sum(x ** 2)
    else:
        y = np.sum(x)
    return y


def conditional_expression(x, y):
    z = x * y if np.sum(x) > 0 else x - y
    return np.sum(z * z)


def bool_ops(x, a):
    if a > 0 and not a > 10 or a < -5:
        x = x * a
    if 0 < a < 3:
        x = np.tanh(x)
    return np.sum(x)


def nested_loops(x, n, m):
    s = 0.0
    for i in range(n):
        for j in range(m):
            s = s + np.sum(np.sin(x * (i + 1) + j))
            x = x * 0.95
    return s


def computed_bounds(x, n):
    total = 0.0
    for i in range(1, 2 * n + 1, 2):
        total = total + x ** 2 / i
    return total


def while_counter(x, n):
    i = 0
    while i < n:
        x = np.cos(x) + x * 0.5
        i = i + 1
    return np.sum(x)


def while_convergence(x):
    y = x
    while np.abs(y - np.cos(y)) > 1e-9:
        y = y - (y - np.cos(y)) / (1.0 + np.sin(y))
    return y * x


def loop_with_break(x, n):
    for i in range(n):
        x = x * 1.1
        if x > 2.0:
            break
        x = x + np.sin(x)
    return x


def loop_with_continue(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + np.exp(x * 0.1 * i)
    return s


def early_return(x):
    if x > 0.5:
        return x * x
    y = np.exp(x)
    return y * 2.0


def return_from_loop(x, n):
    for i in range(n):
        x = x * 1.3
        if x > 3.0:
            return x * 10.0
    return x


def rnn(W, U, x0, n):
    h = x0
    for t in range(n):
        h = np.tanh(W @ h + U @ x0 * t)
    return np.sum(h)


def loop_over_tuple(x):
    s = 0.0
    for c in (0.5, 1.0, 2.0):
        s = s + np.sum(np.sin(x * c))
    return s


def loop_enumerate_zip(x, ws):
    s = 0.0
    for i, w in enumerate(ws):
        s = s + np.sum(x * w) * i
    for a, b in zip(ws, ws):
        s = s + np.sum(x * a * b)
    return s


def accumulate_array(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
        acc = np.tanh(acc)
    return np.sum(acc)


def loop_over_rows(x):
    s = 0.0
    for row in x:
        s = s + np.sum(np.sin(row)) * row[0]
    return s


def rnn_over_sequence(W, xs, h):
    for t in range(len(xs)):
        h = np.tanh(W @ h + xs[t])
    return h.sum()


def enumerate_zip_active(xs, w):
    s = 0.0
    for i, x in enumerate(xs):
        s = s + np.sum(x * w) * i
    for a, b in zip(xs, xs[::-1]):
        s = s + np.sum(a * b)
    return s


def _scalar(rng):
    return float(rng.uniform(0.1, 1.0))


def _count(rng):
    return int(rng.integers(0, 6))



# ---- exits nested in branches, rebound operands (issues 19, 20) -----------

def positive_tail(v):
    if np.sum(v) > 0.0:
        v = 1.5 + np.tanh(v)  # v's temporary is read from v: no cycle
        return np.sum(v)
    return 1.0


def early_return_in_helper(u):
    return positive_tail(u)


def loop_over_rebound_rows(x):
    out = 0.0
    for row in x:  # the rows of x as it was before the loop
        x = x * 0.5
        out = out + np.sum(row * row)
    return out + np.sum(x)


def enumerate_rebound(x, w):
    out = 0.0
    for i, row in enumerate(x):
        x = x * w
        out = out + np.sum(np.sin(row) * x[i])
    return out


def zip_rebound(x, y):
    out = 0.0
    for a, b in zip(x, y):
        x, y = y * 0.5, x * 3.0
        out = out + np.sum(a * b) + np.sum(x * y)
    return out


def conditional_expression_rebinding(x):
    x = x * x if np.sum(x) > 0 else x
    return np.sum(x)


def return_nested_in_two_ifs(x, n):
    for i in range(n):
        x = x * 1.3
        if np.sum(x) > 0:
            x = np.sin(x)
            if np.sum(x) > 1:
                return np.sum(x * x)
            x = x + 0.2
    return np.sum(x)


def return_in_two_ifs_ending_the_loop(x, n):
    for i in range(n):
        x = np.sin(x) * 1.5
        if np.sum(x) > 0:
            if np.sum(x) > 1:
                return np.sum(x * x)
    return np.sum(x)


def two_returns_in_a_loop(x, n):
    for i in range(n):
        if np.sum(x) > 2:
            return np.sum(x * x)
        x = x * 1.5
        if np.sum(x) < -2:
            return np.sum(np.sin(x))
        x = x + 0.1
    return np.sum(x)


def break_nested_then_more(x, n):
    s = 0.0
    for i in range(n):
        if np.sum(x) > 0:
            if np.sum(x) > 3:
                break
            x = x * 1.5
        s = s + np.sum(np.sin(x))
        x = x + 0.5
    return s


def continue_nested_then_more(x, n):
    s = 0.0
    for i in range(n):
        x = x * 1.1
        if i % 2 == 0:
            if np.sum(x) > 0:
                continue
            x = x - 0.3
        s = s + np.sum(x * x)
    return s


def exits_of_every_kind(x, n):
    s = 0.0
    i = 0
    while i < n:
        i = i + 1
        if np.sum(x) > 0:
            if np.sum(x) > 4:
                break
            if i == 2:
                continue
            x = x * 1.4
        elif np.sum(x) < -3:
            return s + np.sum(x)
        s = s + np.sum(np.tanh(x))
        x = x + 0.3
    return s


def return_nested_then_more(x):
    if np.sum(x) > 0:
        y = x * 3.0
        if np.sum(y) > 1:
            return np.sum(y * y)
        x = np.cos(y)
    z = x * 2.0
    return np.sum(z)


def loop_index_after_the_loop(x, n):
    i = 0.5
    for i in range(n):  # with n == 0, i keeps 0.5
        x = x * 1.5
    return np.sum(x) * i


_VECTORS = [np.array(v) for v in ([0.3, 0.4], [-0.3, 0.1], [-2.0, -1.8], [1.5, 2.0],
                                  [0.1, -0.05])]
_WITH_COUNTS = [(v, n) for v in _VECTORS for n in (0, 1, 3, 6)]

# name -> (function, list of argument tuples, wrt): checked in every mode
# (grad, jvp, hvp; optimized or not) by tests/test_control_flow.py; the
# arguments take every branch and exit
ALL_MODES = {
    "early_return_in_helper": (early_return_in_helper, [(v,) for v in _VECTORS], (0,)),
    "loop_over_rebound_rows": (loop_over_rebound_rows, [
        (np.array([[1.0, 2.0], [3.0, 4.0], [0.5, 0.2]]),), (np.zeros((0, 2)),)], (0,)),
    "enumerate_rebound": (enumerate_rebound, [
        (np.array([[0.3, -0.2], [0.5, 0.1], [0.4, 0.9]]), 0.7)], (0, 1)),
    "zip_rebound": (zip_rebound, [(np.array([0.3, -0.2, 0.5]), np.array([0.5, 0.1, 0.4]))],
                    (0, 1)),
    "conditional_expression_rebinding": (conditional_expression_rebinding,
                                         [(np.array([0.5, 0.9]),), (np.array([-0.5, 0.1]),)],
                                         (0,)),
    "return_nested_in_two_ifs": (return_nested_in_two_ifs, _WITH_COUNTS, (0,)),
    "return_in_two_ifs_ending_the_loop": (return_in_two_ifs_ending_the_loop, _WITH_COUNTS,
                                          (0,)),
    "two_returns_in_a_loop": (two_returns_in_a_loop, _WITH_COUNTS, (0,)),
    "break_nested_then_more": (break_nested_then_more, _WITH_COUNTS, (0,)),
    "continue_nested_then_more": (continue_nested_then_more, _WITH_COUNTS, (0,)),
    "exits_of_every_kind": (exits_of_every_kind, _WITH_COUNTS, (0,)),
    "return_nested_then_more": (return_nested_then_more, [(v,) for v in _VECTORS], (0,)),
    "loop_index_after_the_loop": (loop_index_after_the_loop,
                                  [(_VECTORS[0], 0), (_VECTORS[0], 2)], (0,)),
}


def is_none_default(x, s=None):
    # identity against None is kept: the optimizer cannot change it
    if s is None:
        s = 2.0
    return np.sum(s * x * x)


CASES = {
    "loop_branch": (loop_branch, lambda r: (_scalar(r), _count(r)), (0,)),
    "if_elif_else": (if_elif_else, lambda r: (float(r.uniform(-2, 2)),), (0,)),
    "branch_on_shape": (branch_on_shape, lambda r: (r.normal(size=int(r.integers(1, 5))),), (0,)),
    "conditional_expression": (conditional_expression,
                               lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "bool_ops": (bool_ops, lambda r: (r.normal(size=3), float(r.uniform(-8, 8))), (0,)),
    "nested_loops": (nested_loops, lambda r: (r.normal(size=3), _count(r), _count(r)), (0,)),
    "computed_bounds": (computed_bounds, lambda r: (_scalar(r), _count(r)), (0,)),
    "while_counter": (while_counter, lambda r: (r.normal(size=2), _count(r)), (0,)),
    "while_convergence": (while_convergence, lambda r: (_scalar(r),), (0,)),
    "loop_with_break": (loop_with_break, lambda r: (_scalar(r), _count(r) + 3), (0,)),
    "loop_with_continue": (loop_with_continue, lambda r: (_scalar(r), _count(r)), (0,)),
    "early_return": (early_return, lambda r: (float(r.uniform(0, 1)),), (0,)),
    "return_from_loop": (return_from_loop, lambda r: (_scalar(r), _count(r) + 1), (0,)),
    "rnn": (rnn, lambda r: (r.normal(size=(3, 3)) * 0.5, r.normal(size=(3, 3)) * 0.5,
                            r.normal(size=3), _count(r)), (0, 1, 2)),
    "loop_over_tuple": (loop_over_tuple, lambda r: (r.normal(size=3),), (0,)),
    "loop_enumerate_zip": (loop_enumerate_zip,
                           lambda r: (r.normal(size=3), (0.5, 1.5, -1.0)), (0,)),
    "loop_over_rows": (loop_over_rows, lambda r: (r.normal(size=(int(r.integers(0, 4)), 3)),), (0,)),
    "rnn_over_sequence": (rnn_over_sequence, lambda r: (
        r.normal(size=(3, 3)) * 0.5, r.normal(size=(int(r.integers(0, 5)), 3)),
        r.normal(size=3)), (0, 1, 2)),
    "enumerate_zip_active": (enumerate_zip_active,
                             lambda r: (r.normal(size=(4, 3)), r.normal(size=3)), (0, 1)),
    "accumulate_array": (accumulate_array, lambda r: (r.normal(size=(2, 2)), _count(r)), (0,)),
    "is_none_default": (is_none_default, lambda r: (r.normal(size=3), None), (0,)),
}
