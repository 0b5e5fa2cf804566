"""The optimizer's fixed point trusts each pass to count its rewrites.

``optimize/fixed_point.py`` stops once every pass has run in turn with
``ctx.rewrites`` unchanged. A pass that changed the tree without counting
would stop it early, and leave code a further round would have removed;
one that counted without a change would only cost a round. Both are
checked here against ``ast.dump`` of the tree before and after each run
of a pass, on the golden functions in both modes.
"""
import inspect
import sys
from pathlib import Path

import numpy as np
import pytest

import tangent_ad as tad
from golden_functions import GOLDEN
from tangent_ad import pipeline
from tangent_ad.optimize import fixed_point
from tangent_ad.staging import dispatch

FORWARD = ("tanh_sum", "mlp", "loop_branch", "rnn")


def recorded(opt, runs):
    """The pass `opt`, appending (its name, whether it changed the tree, the
    rewrites it counted) to `runs` at every run."""
    label = getattr(opt, "__name__", type(opt).__name__)

    class Recorded:
        __name__ = label

        @staticmethod
        def run(tree, ctx):
            before, count = fixed_point.fingerprint(tree), ctx.rewrites
            tree = opt.run(tree, ctx)
            runs.append((label, fixed_point.fingerprint(tree) != before, ctx.rewrites - count))
            return tree
    return Recorded


def transform_recording_passes(monkeypatch, name, mode):
    """Transform golden function `name`; return [(pass, changed, counted)]
    for every run of a pass, and the final trees with their contexts."""
    runs, finals = [], []
    original = fixed_point.run

    def run(tree, ctx):
        tree = original(tree, ctx)
        finals.append((tree, ctx))
        return tree

    monkeypatch.setattr(fixed_point, "PASSES",
                        tuple(recorded(p, runs) for p in fixed_point.PASSES))
    monkeypatch.setattr(fixed_point, "run", run)
    func, wrt = GOLDEN[name]
    params = list(inspect.signature(func).parameters)
    pipeline.transform(func, wrt=tuple(params[i] for i in wrt), mode=mode)
    monkeypatch.undo()
    return runs, finals


@pytest.mark.parametrize("name, mode", [(n, "reverse") for n in sorted(GOLDEN)]
                         + [(n, "forward") for n in FORWARD])
def test_passes_count_a_rewrite_exactly_when_they_change_the_tree(monkeypatch, name, mode):
    runs, _ = transform_recording_passes(monkeypatch, name, mode)
    assert runs
    for opt, changed, counted in runs:
        assert changed == (counted > 0), (opt, changed, counted)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_optimized_tree_is_a_fixed_point_of_every_pass(monkeypatch, name):
    _, finals = transform_recording_passes(monkeypatch, name, "reverse")
    for tree, ctx in finals:
        for opt in fixed_point.PASSES:
            before, count = fixed_point.fingerprint(tree), ctx.rewrites
            tree = opt.run(tree, ctx)
            assert fixed_point.fingerprint(tree) == before, opt.__name__
            assert ctx.rewrites == count, opt.__name__


def test_staging_passes_count_a_rewrite_exactly_when_they_change_the_tree(monkeypatch):
    """Staging runs the same loop with ``specialize`` in front: its count
    (nodes replaced, and the few changed in place) must see every change,
    or a copy would stop one round early, on every benchmark workload."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import workloads

    runs, original = [], fixed_point.run

    def staging_recorded(tree, ctx, passes=None):  # the general loop (passes=None) as it is
        return original(tree, ctx, passes and tuple(recorded(p, runs) for p in passes))

    monkeypatch.setattr(fixed_point, "run", staging_recorded)
    for module in workloads.EVERY:
        size = getattr(module, "SMALL", module.SIZES[0])
        args = module.make_inputs(size, np.random.default_rng(0))
        df = tad.grad(module.loss, wrt=module.WRT)
        for _ in range(3):
            df(*args)
        assert dispatch.variants(df), module.__name__
    assert {"_Specialize", "simplify"} <= {r[0].rsplit(".", 1)[-1] for r in runs}
    for opt, changed, counted in runs:
        assert changed == (counted > 0), (opt, changed, counted)


def test_a_pass_that_says_it_is_idempotent_is(monkeypatch):
    """The loop trusts ``IDEMPOTENT`` passes not to need a confirming run:
    each run of one that changes the tree is followed here by a second,
    which must change nothing, on every golden function in both modes."""
    idempotent = [p for p in fixed_point.PASSES if getattr(p, "IDEMPOTENT", False)]
    assert idempotent
    checked = []

    def checking(opt):
        class Checked:
            IDEMPOTENT = getattr(opt, "IDEMPOTENT", False)

            @staticmethod
            def run(tree, ctx):
                before = ctx.rewrites
                tree = opt.run(tree, ctx)
                if Checked.IDEMPOTENT and ctx.rewrites != before:
                    after, text = ctx.rewrites, fixed_point.fingerprint(tree)
                    tree = opt.run(tree, ctx)
                    assert ctx.rewrites == after and fixed_point.fingerprint(tree) == text
                    checked.append(opt)
                return tree
        return Checked

    monkeypatch.setattr(fixed_point, "PASSES", tuple(map(checking, fixed_point.PASSES)))
    for name, mode in [(n, "reverse") for n in sorted(GOLDEN)] + [(n, "forward") for n in FORWARD]:
        func, wrt = GOLDEN[name]
        params = list(inspect.signature(func).parameters)
        pipeline.transform(func, wrt=tuple(params[i] for i in wrt), mode=mode)
    assert checked  # the check ran: some golden has something to simplify
