"""The optimizer's fixed point trusts each pass to count its rewrites.

``optimize/fixed_point.py`` stops once every pass has run in turn with
``ctx.rewrites`` unchanged. A pass that changed the tree without counting
would stop it early, and leave code a further round would have removed;
one that counted without a change would only cost a round. Both are
checked here against ``ast.dump`` of the tree before and after each run
of a pass, on the golden functions in both modes.
"""
import inspect

import pytest

from golden_functions import GOLDEN
from tangent_ad import pipeline
from tangent_ad.optimize import fixed_point

FORWARD = ("tanh_sum", "mlp", "loop_branch", "rnn")


def transform_recording_passes(monkeypatch, name, mode):
    """Transform golden function `name`; return [(pass, changed, counted)]
    for every run of a pass, and the final trees with their contexts."""
    runs, finals = [], []

    def recorded(opt):
        class Recorded:
            __name__ = opt.__name__

            @staticmethod
            def run(tree, ctx):
                before, count = fixed_point.fingerprint(tree), ctx.rewrites
                tree = opt.run(tree, ctx)
                runs.append((opt.__name__, fixed_point.fingerprint(tree) != before,
                             ctx.rewrites - count))
                return tree
        return Recorded

    original = fixed_point.run

    def run(tree, ctx):
        tree = original(tree, ctx)
        finals.append((tree, ctx))
        return tree

    monkeypatch.setattr(fixed_point, "PASSES", tuple(map(recorded, fixed_point.PASSES)))
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
