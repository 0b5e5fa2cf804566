"""The save seam (tangent_ad/saves.py): every push and pop of a reverse-mode
derivative is declared with its site, the pairs hold on copies, and the
passes that drop saves read them (dead-code elimination, on the general
derivative and on the copies staging writes)."""
import copy

import gast
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import saves
from tangent_ad.nodes import clone, copy_tree, is_pop, is_push, walk
from tangent_ad.optimize import dce
from tangent_ad.staging import dispatch as staging
from tangent_ad.testing import check_grads
from control_flow_functions import CASES


def stack_traffic(tree):
    """The pushes, restores and replays of `tree`, by their printed form."""
    return [n for n in walk(tree) if is_push(n)
            or (isinstance(n, gast.Assign) and is_pop(n.value))
            or (isinstance(n, gast.If) and is_pop(n.test))]


def trees_of(func, wrt, optimized=True):
    return tad.grad(func, wrt=wrt, optimized=optimized).__tangent_ad__.trees


@pytest.mark.parametrize("optimized", (True, False))
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_save_and_restore_is_declared_and_paired(name, optimized):
    func, _, wrt = CASES[name]
    for tree in trees_of(func, wrt, optimized):
        traffic = stack_traffic(tree)
        assert all(saves.site_of(s) is not None for s in traffic), name
        pairs = saves.pairs(tree)
        assert set(pairs) == {s for s in traffic if not is_push(s)}
        for take, pushes in pairs.items():
            site = saves.site_of(take)
            assert pushes and all(saves.site_of(p) is site for p in pushes)
            values = [p.value.args[0] for p in pushes]
            if site.kind == "branch":
                assert isinstance(take, gast.If)
                assert {v.value for v in values} <= {True, False}
            else:
                assert take.targets[0].id == site.variable
                assert [v.id for v in values] == [site.variable]


def test_the_pairs_hold_on_every_kind_of_copy():
    func, _, wrt = CASES["loop_branch"]
    tree = trees_of(func, wrt, optimized=False)[0]
    original = {saves.site_of(t): len(p) for t, p in saves.pairs(tree).items()}
    assert original
    for copied in (copy_tree(tree), clone(tree), copy.deepcopy(tree)):
        pairs = saves.pairs(copied)
        assert {saves.site_of(t): len(p) for t, p in pairs.items()} == original
        mine = set(map(id, walk(copied)))
        assert all(id(t) in mine and {id(p) for p in ps} <= mine for t, ps in pairs.items())


def test_dead_code_elimination_drops_a_dead_restore_with_its_pushes_on_a_copy():
    func, _, wrt = CASES["loop_branch"]
    tree = copy_tree(trees_of(func, wrt, optimized=False)[0])
    takes = [t for t in saves.pairs(tree) if isinstance(t, gast.Assign)]
    assert takes
    target = takes[0].targets[0].id
    renamed = 0
    for node in walk(tree):  # nothing reads the restored value any more
        if isinstance(node, gast.Name) and node.id == target and \
                isinstance(node.ctx, gast.Load) and not any(
                    node is p.value.args[0] for p in saves.pairs(tree)[takes[0]]):
            node.id, renamed = "unrelated_constant", renamed + 1
    before = len(stack_traffic(tree))
    site = saves.site_of(takes[0])
    dce.run(tree, None)
    assert all(saves.site_of(s) is not site for s in stack_traffic(tree))
    assert len(stack_traffic(tree)) < before


def helper(x, a):
    for _ in range(3):
        x = x + a       # x is saved: its adjoint reads it, but only for a shape
        x = np.sin(x)
    return x


def calls_helper(x, a):
    return np.sum(helper(x, a))


def test_staging_drops_the_saves_a_pullback_needs_only_for_shapes():
    # x's old value is restored in back for `unbroadcast(bx, x)`: once the
    # copy for float64 vectors knows the shapes, nothing reads it, and its
    # push in the pullback goes with the restore in back
    df = tad.grad(calls_helper, wrt=(0, 1))
    x, a = np.linspace(0.1, 1.0, 4), 0.3
    for _ in range(3):
        check_grads(calls_helper, df, (x, a), wrt=(0, 1))
    general = df.__tangent_ad__.source
    (copy_source,) = staging.variants(df).values()
    assert copy_source.count("stack.append(") == general.count("stack.append(") - 1
    assert copy_source.count("stack.pop()") == general.count("stack.pop()") - 1


def looped(x):
    for _ in range(2):
        if x > 0.0:
            x = np.sin(x) * x
        else:
            x = x * 0.5
    return x


def test_a_jvp_of_a_gradient_declares_its_tangents_saves_and_drops_the_dead_ones():
    # jvp of a gradient reads the gradient's stored tree, sites included:
    # each tangent pushed beside a saved value gets a site of its own, so
    # the tangents nothing reads go, with their pushes
    gradient = tad.grad(looped)
    kept = tad.jvp(gradient, optimized=False).__tangent_ad__.trees[0]
    (tree,) = tad.jvp(gradient).__tangent_ad__.trees
    for each in (kept, tree):
        assert all(saves.site_of(s) is not None for s in stack_traffic(each))
        for take, pushes in saves.pairs(each).items():
            assert pushes and {saves.site_of(p) for p in pushes} == {saves.site_of(take)}
    assert {saves.site_of(s).kind for s in stack_traffic(kept)} >= {"value", "tangent"}
    assert len(stack_traffic(tree)) < len(stack_traffic(kept))
    x, h = 0.7, 1e-6
    numerical = (gradient(x + h) - gradient(x - h)) / (2 * h)
    np.testing.assert_allclose(tad.jvp(gradient)(x, 1.0, 1.0)[1], numerical, rtol=1e-6)


def invariant_in_loop(x, k, n):
    for _ in range(n):
        x = np.sin(x) * -k      # -k: the same value in every iteration
    return x


def changing_in_loop(x, k, n):
    for _ in range(n):
        x = np.sin(x) * -k
        k = k * 0.9             # now -k changes from one iteration to the next
    return x


def invariant_in_a_branch(x, k, n):
    for i in range(n):
        if i % 2:
            x = np.cos(x) * (k * 2.0)
        else:
            x = x * x
    return x


# changing_in_loop's -k is not saved either: k is saved and restored, and
# the adjoint computes -k again from it (ad/rematerialize.py)
@pytest.mark.parametrize("func, saved", [(invariant_in_loop, False), (changing_in_loop, False),
                                         (invariant_in_a_branch, False)])
def test_a_value_a_loop_recomputes_unchanged_is_not_saved(func, saved):
    df = tad.grad(func, wrt=(0, 1))
    (tree,) = df.__tangent_ad__.trees
    negated = {n.targets[0].id for n in walk(tree) if isinstance(n, gast.Assign)
               and isinstance(n.value, (gast.UnaryOp, gast.BinOp))
               and {a.id for a in walk(n.value) if isinstance(a, gast.Name)} == {"k"}}
    assert negated  # the temporary holding -k (or k * 2.0)
    pushed = {p.value.args[0].id for p in stack_traffic(tree)
              if is_push(p) and isinstance(p.value.args[0], gast.Name)}
    assert bool(negated & pushed) == saved
    for n in (0, 1, 4):
        check_grads(func, df, (0.4, 0.8, n), wrt=(0, 1))
