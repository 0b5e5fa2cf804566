"""The optimizer's passes share each statement's names between their runs.

``analysis/statement_names.py`` remembers the names a simple statement
reads and binds until a pass reports a node inside it changed. A stale
answer would let dead-code elimination drop a statement whose value is
read, or propagation carry a copy past an assignment: wrong code. Here
every answer the passes are given is checked against one computed afresh,
while the golden functions (both modes), the tables of test functions and
the benchmark workloads are transformed.
"""
import inspect
import sys
from pathlib import Path

import gast
import pytest

import tangent_ad as tad
from call_functions import CASES as CALLS
from closure_functions import CASES as CLOSURES
from container_functions import CASES as CONTAINERS
from control_flow_functions import CASES as CONTROL_FLOW
from golden_functions import GOLDEN
from tangent_ad import pipeline
from tangent_ad.analysis import statement_names
from tangent_ad.optimize import fixed_point, propagate, simplify

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import long_function  # noqa: E402
import transform_time  # noqa: E402
import workloads  # noqa: E402


class Checked(statement_names.Names):
    """`Names` that compares each answer with a fresh one, and counts the
    answers it gave from memory."""

    remembered = 0

    def of(self, stmt):
        kept = stmt in self._answers
        answer = super().of(stmt)
        fresh = statement_names.FRESH.of(stmt)
        assert (set(answer.defs), set(answer.uses), set(answer.binds),
                sorted(answer.bound)) == \
            (set(fresh.defs), set(fresh.uses), set(fresh.binds),
             sorted(fresh.bound)), gast.dump(stmt)
        Checked.remembered += kept
        return answer


@pytest.fixture
def checked(monkeypatch):
    monkeypatch.setattr(statement_names, "Names", Checked)
    Checked.remembered = 0
    yield
    assert Checked.remembered  # answers were given from memory, and checked


@pytest.mark.parametrize("name, mode", [(n, "reverse") for n in sorted(GOLDEN)]
                         + [(n, "forward") for n in ("tanh_sum", "mlp", "loop_branch", "rnn")])
def test_golden_functions_get_current_names(checked, name, mode):
    func, wrt = GOLDEN[name]
    params = list(inspect.signature(func).parameters)
    pipeline.transform(func, wrt=tuple(params[i] for i in wrt), mode=mode)


TABLES = {**CONTROL_FLOW, **CALLS, **CLOSURES, **CONTAINERS}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_functions_get_current_names(checked, name):
    func, _, wrt = TABLES[name]
    params = list(inspect.signature(func).parameters)
    try:
        pipeline.transform(func, wrt=tuple(params[i] for i in wrt))
    except tad.TangentADError:
        Checked.remembered += 1  # refused before the optimizer: nothing to check
        pytest.skip("refused")


def test_benchmark_functions_get_current_names(checked):
    tad.grad(transform_time.fresh_copy(long_function.with_blocks(12)), wrt=transform_time.WRT)
    tad.grad(transform_time.fresh_copy(transform_time.model), wrt=transform_time.WRT)
    for module in workloads.EVERY:
        tad.grad(transform_time.fresh_copy(module.loss), wrt=module.WRT)


def test_binding_counts_from_kept_names_are_those_of_a_walk(monkeypatch):
    """simplify counts the bindings of the statements through `Names`, and
    walks the rest: the same counts as a walk of the whole tree, at every
    run of the loop."""
    compared = []
    original = simplify._bindings

    def both(tree, names=statement_names.FRESH):
        counts = original(tree, names)
        assert counts == original(tree, statement_names.FRESH)
        compared.append(isinstance(names, statement_names.Names))
        return counts

    monkeypatch.setattr(simplify, "_bindings", both)
    tad.grad(transform_time.fresh_copy(long_function.with_blocks(3)), wrt=transform_time.WRT)
    for name in sorted(GOLDEN):
        func, wrt = GOLDEN[name]
        params = list(inspect.signature(func).parameters)
        pipeline.transform(func, wrt=tuple(params[i] for i in wrt))
    assert any(compared)


def test_only_reporting_passes_share_names(monkeypatch):
    """A pass that does not report what it changes (staging's own, a test's
    wrapper) turns the sharing off for the whole loop."""
    seen = []

    class Silent:
        @staticmethod
        def run(tree, ctx):
            seen.append(statement_names.of_context(ctx))
            return tree

    class Reporting(Silent):
        REPORTS_TOUCHED = True

    ctx = fixed_point.Tally()
    tree = gast.parse("def f(x):\n    y = x\n    return y\n").body[0]
    fixed_point.run(tree, ctx, (propagate, Silent))
    fixed_point.run(tree, ctx, (propagate, Reporting))
    assert seen[0] is statement_names.FRESH
    assert isinstance(seen[-1], statement_names.Names)
    assert statement_names.FACT not in ctx.facts


# (pass, function): each changes a statement at one of the places a pass
# sets a field, after every statement's names were asked for
CHANGES = [
    (propagate, "def f(x):\n    y = x\n    z = y\n    return z\n"),             # a value
    (propagate, "def f(x):\n    y = x\n    z = g(y)\n    return z\n"),          # a list item
    (propagate, "def f(x):\n    y = x\n    z = y + 1\n    return z\n"),         # a field
    (propagate, "def f(x):\n    a = 2\n    t = 1 + a\n    z = t\n    return z\n"),  # a fold
    (simplify, "def f(x, y):\n    z = x if 1 else y\n    return z\n"),
    (simplify, "def f(x, y):\n    z = g(x if 1 else y)\n    return z\n"),
    (simplify, "def f(x, y):\n    z = (x if 1 else y) + 1\n    return z\n"),
    (simplify, "def f(t, g):\n    t2 = t * 2.0\n    z = np.full_like(t2, g)\n    return z\n"),
]


@pytest.mark.parametrize("opt, source", CHANGES)
def test_a_pass_reports_each_statement_it_changes(opt, source):
    tree = gast.parse(source).body[0]
    ctx = fixed_point.Tally()
    names = ctx.facts[statement_names.FACT] = statement_names.Names()
    before = {stmt: names.of(stmt) for stmt in tree.body}
    opt.run(tree, ctx)
    assert ctx.rewrites
    changed = 0
    for stmt in tree.body:
        fresh = statement_names.FRESH.of(stmt)
        expected = (set(fresh.defs), set(fresh.uses), set(fresh.binds))
        answer = names.of(stmt)
        assert (set(answer.defs), set(answer.uses), set(answer.binds)) == expected
        assert sorted(answer.bound) == sorted(fresh.bound)
        changed += stmt in before and expected != (set(before[stmt].defs),
                                                   set(before[stmt].uses),
                                                   set(before[stmt].binds))
    assert changed  # the pass changed the names of a statement it kept
