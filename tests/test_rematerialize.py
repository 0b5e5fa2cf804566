"""Rematerialization (tangent_ad/ad/rematerialize.py): a value bound once in
a loop by arithmetic on values the adjoint restores anyway is computed
again in the adjoint sweep instead of being pushed and popped; where that
cannot be shown right, it is still saved. Every case is checked against
finite differences, on the general derivative and on the staged copy."""
import sys
from pathlib import Path

import gast
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.nodes import is_push, walk
from tangent_ad.staging import dispatch as staging
from tangent_ad.testing import check_grads, check_jvp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from workloads import ode  # noqa: E402


def lotka_volterra(a, b, x, y, n):
    for _ in range(n):
        p = b * x               # b never rebound, x saved and restored
        q = a * y
        x = x + 0.01 * (x - p * y)
        y = y + 0.01 * (q * x - y)
    return x * x + y


def chained(a, x, n):
    for _ in range(n):
        p = a * x
        q = p * x               # reads p, itself recomputed: p's recompute comes first
        r = -q
        x = x + r * x * 0.1
    return x


def chain_read_after_a_rebinding(a, x, y, n):
    for _ in range(n):
        p = a * x
        q = p * y
        x = x + q * x * 0.1
        y = y + q * y * 0.1     # q read after x changed: p = a * x would be another value
    return x + y


def operand_rebound_before_use(a, x, n):
    for _ in range(n):
        p = a * x
        x = np.sin(x)
        x = x * p               # a * x of the new x would be another value
    return x


def carried_to_next_iteration(a, x, n):
    p = 1.0                     # (validation refuses a read before any binding)
    for i in range(n):
        x = x * p               # the previous iteration's p
        p = a * x
    return x


def read_after_the_loop(a, x, n):
    for _ in range(n):
        p = a * x
        x = x + 0.1 * p
    return x * p


def nested_loops(a, x, n, m):
    for _ in range(n):
        for _ in range(m):
            p = a * x
            x = x - p * x * 0.1
    return x


def read_in_an_inner_loop(a, x, y, n, m):
    for i in range(n):
        p = a * x
        for j in range(m):
            y = y + 0.1 * p * y
        x = x + 0.1 * y * x
    return x + y


def while_loop(a, x):
    k = 0
    while k < 4:
        p = a * x
        x = x + p * x * 0.1
        k = k + 1
    return x


def read_in_a_branch(a, x, y, n):
    for i in range(n):
        p = a * x
        if i % 2 == 0:
            y = y - p * y * 0.1
        else:
            y = y + 0.2 * p
        x = x + 0.1 * y
    return x + y


def operand_rebound_in_the_branch(a, x, n):
    for i in range(n):
        p = a * x
        if i % 2 == 0:
            x = x - p * x * 0.1     # read before x changes, in each branch
        else:
            x = x + 0.2 * p
    return x


def bound_in_a_branch(a, x, n):
    for i in range(n):
        if i % 2 == 0:
            p = a * x
            x = x - p * x * 0.1
        else:
            x = x * 1.1
    return x


def nested_branches(a, x, n):
    for i in range(n):
        p = a * x
        if i % 2 == 0:
            if i % 4 == 0:
                x = x - p * x * 0.1
            else:
                x = x + p * 0.3
        else:
            x = x * 1.1 + p * 0.01
    return x


def a_branch_without_a_read(a, x, n):
    for i in range(n):
        p = a * x
        if i % 2 == 0:
            x = x - p * x * 0.1
        else:
            x = x * 1.1         # its adjoint ends with bp = zeros_like(p)
    return x


def growing_state(a, x, n):
    for i in range(n):
        p = a * x
        if i % 2 == 0:
            x = x - p * x * 0.1
        else:
            x = np.concatenate([x, x[:1]])  # bp = zeros_like(p) here needs this p's shape
    return np.sum(x * x)


def read_after_the_branch_rebinds(a, x, n):
    for i in range(n):
        p = a * x
        if i % 2 == 0:
            x = x * 0.9
            x = x + p * x * 0.1     # a * x of this x would be another value
        else:
            x = x + 0.2 * p
    return x


def loop_with_break(a, x, n):
    for i in range(n):
        p = a * x
        x = x + p * x * 0.1
        if x > 3.0:
            break
    return x


def checkpointed_loop(a, x, n):
    for _ in tad.checkpointed(range(n)):
        p = a * x
        x = x + p * x * 0.1
    return x


def loop_index_operand(a, x, n):
    for i in range(n):
        p = a * i               # i is rebound by the adjoint loop: not an operand
        x = x + p * x * 0.1
    return x


def from_a_temporary(a, x, n):
    for i in range(n):
        s = a * i               # saved: i is the loop index
        p = s * 0.5             # recomputing p would only save s in its place
        x = x + p * x * 0.1
    return x


def broadcast_arrays(w, x, n):
    for _ in range(n):
        p = w * x               # (3,) times (2, 3): unbroadcast reads p's shape
        x = x + np.tanh(p) * p * 0.1
    return np.sum(x * x)


def matrix_product(W, x, n):
    for _ in range(n):
        p = x @ W               # dearer to compute again than to save
        x = np.tanh(p * p)
    return np.sum(x)


def helper_with_a_loop(a, x, n):
    for _ in range(n):
        p = a * x
        x = x + p * x * 0.1
    return x


def calls_helper(a, x):
    return helper_with_a_loop(a, x, 3) ** 2


A, X, Y = 0.7, 0.4, 0.9
ARRAYS = (np.array([0.3, -0.5, 0.8]), np.array([[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]]), 3)
CASES = {
    # name: (function, arguments, wrt, names recomputed, names still saved)
    "lotka_volterra": (lotka_volterra, (A, 0.8, X, Y, 5), (0, 1, 2, 3), {"p", "q"}, set()),
    "chained": (chained, (A, X, 4), (0, 1), {"p", "q", "r"}, set()),
    "chain_read_after_a_rebinding": (chain_read_after_a_rebinding, (A, X, Y, 4), (0, 1, 2),
                                     {"p"}, {"q"}),
    "operand_rebound_before_use": (operand_rebound_before_use, (A, X, 3), (0, 1),
                                   set(), {"p"}),
    "carried_to_next_iteration": (carried_to_next_iteration, (A, X, 4), (0, 1), set(), {"p"}),
    "read_after_the_loop": (read_after_the_loop, (A, X, 3), (0, 1), set(), {"p"}),
    "nested_loops": (nested_loops, (A, X, 3, 2), (0, 1), {"p"}, set()),
    "read_in_an_inner_loop": (read_in_an_inner_loop, (A, X, Y, 3, 2), (0, 1, 2), {"p"}, set()),
    "while_loop": (while_loop, (A, X), (0, 1), {"p"}, set()),
    "read_in_a_branch": (read_in_a_branch, (A, X, Y, 5), (0, 1, 2), {"p"}, set()),
    # computed again in each branch, before the branch rebinds x
    "operand_rebound_in_the_branch": (operand_rebound_in_the_branch, (A, X, 5), (0, 1),
                                      {"p"}, set()),
    "bound_in_a_branch": (bound_in_a_branch, (A, X, 5), (0, 1), {"p"}, set()),
    "nested_branches": (nested_branches, (A, X, 6), (0, 1), {"p"}, set()),
    "a_branch_without_a_read": (a_branch_without_a_read, (A, X, 5), (0, 1), set(), {"p"}),
    "growing_state": (growing_state, (A, np.array([0.3, -0.2]), 5), (0, 1), set(), {"p"}),
    "read_after_the_branch_rebinds": (read_after_the_branch_rebinds, (A, X, 5), (0, 1),
                                      set(), {"p"}),
    "loop_with_break": (loop_with_break, (A, X, 6), (0, 1), set(), {"p"}),
    "checkpointed_loop": (checkpointed_loop, (A, X, 9), (0, 1), set(), {"p"}),
    "loop_index_operand": (loop_index_operand, (A, X, 4), (0, 1), set(), {"p"}),
    "from_a_temporary": (from_a_temporary, (A, X, 4), (0, 1), set(), {"p"}),
    "broadcast_arrays": (broadcast_arrays, ARRAYS, (0, 1), {"p"}, set()),
    "matrix_product": (matrix_product, (np.eye(3) * 0.5 + 0.1, np.array([0.2, -0.1, 0.4]), 3),
                       (0, 1), set(), {"p"}),
}


def pushed(tree):
    return {n.value.args[0].id for n in walk(tree)
            if is_push(n) and isinstance(n.value.args[0], gast.Name)}


def bound_twice(tree):
    """The names a derivative assigns by arithmetic twice or more: the
    primal binding and its recompute in the adjoint sweep."""
    seen, twice = set(), set()
    for node in walk(tree):
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name) \
                and isinstance(node.value, (gast.BinOp, gast.UnaryOp)):
            target = node.targets[0].id
            (twice if target in seen else seen).add(target)
    return twice


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_gradient_matches_finite_differences_general_and_staged(name):
    func, args, wrt, _, _ = CASES[name]
    df = tad.grad(func, wrt=wrt)
    for _ in range(3):  # the second call writes the staged copy, the third runs it
        check_grads(func, df, args, wrt=wrt)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recomputed_where_it_can_be_shown_right_and_saved_elsewhere(name):
    func, _, wrt, recomputed, saved = CASES[name]
    (tree,) = tad.grad(func, wrt=wrt).__tangent_ad__.trees
    assert not recomputed & pushed(tree)
    assert recomputed <= bound_twice(tree)
    assert saved <= pushed(tree)


def test_a_pullbacks_back_recomputes_what_its_loop_computed():
    df = tad.grad(calls_helper, wrt=(0, 1))
    source = tad.show_source(df)
    assert "stack.append(p)" not in source
    back = source[source.index("def back"):]
    assert "p = a * x" in back
    for _ in range(3):
        check_grads(calls_helper, df, (A, X), wrt=(0, 1))


@pytest.mark.parametrize("name", ["lotka_volterra", "chained", "read_in_a_branch",
                                  "bound_in_a_branch", "operand_rebound_in_the_branch",
                                  "nested_branches", "while_loop", "broadcast_arrays"])
def test_forward_over_reverse_differentiates_the_recomputes(name):
    func, args, wrt, _, _ = CASES[name]
    for k in wrt:
        gradient = tad.grad(func, wrt=(k,))
        product = tad.jvp(gradient, wrt=(k,))
        check_jvp(gradient, lambda *a: product(*a[:-1], 1.0, a[-1]), args, wrt=(k,))
        if np.ndim(args[k]) == 0:
            hvp = tad.hvp(func, wrt=k)
            check_jvp(gradient, lambda *a: (gradient(*a[:-1]), hvp(*a)), args, wrt=(k,))


def ode_gradient():
    return tad.grad(ode.loss, wrt=(0, 1, 2, 3))


def test_the_ode_step_saves_the_two_states_only():
    df = ode_gradient()
    args = (1.1, 0.4, 0.4, 0.1, 1.2, 0.8, 0.01, 5)
    for _ in range(3):
        check_grads(ode.loss, df, args, wrt=(0, 1, 2, 3))
    staged = tad.show_source(df, *args)
    assert staged.count("stack.append(") == 2  # x and y, as by hand (was four)
    assert "stack.append(x)" in staged and "stack.append(y)" in staged
    assert "t2 = b * x" in staged.split("reversed(")[1]  # computed again, not popped
    (copy_source,) = staging.variants(df).values()
    assert copy_source.count("stack.append(") == 2
    general = tad.show_source(ode_gradient())
    # the general derivative reads every temporary for unbroadcast; it still
    # saves dy (x changes before dy is read) and t9 = dt * dy (its operand
    # dy, a temporary saved anyway, would be saved in its place)
    assert general.count("stack.append(") == 4
