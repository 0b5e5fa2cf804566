"""Randomized differential test of tangent_ad on generated programs.

The generator is ``fuzz_programs.py`` (random functions with loops, branches,
helpers sharing containers, tuple arithmetic, module globals, decorators,
negative powers, aliasing writes, integer and complex arguments, ...), the
judge is ``fuzz_oracle.py`` (finite differences, staged vs general,
``optimized=False``, float32 dtypes, jvp vs reverse, hvp, ``vjp(jvp(f))``,
third order, rebound globals). A refusal (a clean ``TangentADError``) is
acceptable; a wrong number, a wrong type or dtype, an ``InternalError``, any
other exception or a hang fails the test.

The default run judges SEEDS programs at the "quick" level (every gradient
against finite differences; one program in three also runs one other
check). The long run is ``scripts/fuzz`` (10,000 programs, all checks).
Known-open failures are listed in KNOWN by seed with the signature they must
still show and the issue that tracks them: a different failure still fails.
"""
import numpy as np
import pytest

import fuzz_oracle as fo
import fuzz_programs as fp
import tangent_ad as tad

SEEDS = list(range(100))

# seed -> (the signature its failure must still have, the issue that tracks
# the cause). Written by `scripts/fuzz --known 100` from the minimized
# failures (fuzz_oracle.TRACKED); rerun it when fixes land: a seed that now
# passes can go, and a new failure fails the test until it is tracked.
KNOWN = {}  # scripts/fuzz --known 100, nineteenth session: 94 pass, 5 refused, 1 invalid


def _report(res):
    return "%s\n%s\nchecks: %s\n%s\narguments: %s" % (
        res.signature(), res.detail[:1500], res.check, res.source[len(fp.HEADER):],
        fp.generate(res.seed, fo.QUICK_STATEMENTS).args)


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_program(seed):
    res = fo.run(seed, level="quick", timeout=5)
    res.seed = seed
    if res.kind in ("pass", "refused"):
        return
    if res.kind == "invalid" and res.detail.endswith("(overflow)"):
        pytest.skip("the random program overflows: %s" % res.detail)
    known = KNOWN.get(seed)
    if known and res.signature() == known[0]:
        pytest.xfail(known[1])
    pytest.fail(_report(res))


# ---- the generator writes the shapes that found bugs ----

REQUIRED_FEATURES = {
    "share", "tuple", "global", "decorated_f", "helper_dec", "int", "negconst", "negpow",
    "rebinditer", "empty", "f64const", "ifexp", "ifexp_rebind", "early_return", "chained",
    "alias", "container_arg", "gradcode", "helper_ret", "helper_tworet", "helper_early",
    "reshape_param", "np.float_power", "np.conj", "for_else", "enumerate_start", "unary_plus",
    "helper_rec", "helper_gate",
}


def test_generator_covers_the_shapes_that_found_bugs():
    seen = set()
    complex_programs = 0
    for seed in range(300):
        prog = fp.generate(seed)
        seen |= prog.features
        complex_programs += prog.complex_mode
    assert REQUIRED_FEATURES <= seen, REQUIRED_FEATURES - seen
    assert complex_programs >= 10


def test_generator_is_deterministic():
    assert fp.generate(17).source() == fp.generate(17).source()


def test_generated_programs_run_in_python():
    rng = np.random.default_rng(0)
    for seed in range(60):
        prog = fp.generate(seed)
        mod = fo.load(prog.source())
        value = mod.f(*fo.make_args(prog, rng))
        assert np.size(value) == 1 and not np.iscomplexobj(value), seed


def test_pruned_source_keeps_what_f_reaches():
    for seed in range(40):
        prog = fp.generate(seed)
        src = prog.source(prune=True)
        assert len(src) <= len(prog.source())
        mod = fo.load(src)
        mod.f(*fo.make_args(prog, np.random.default_rng(seed)))


# ---- the oracle can fail: plant each kind of defect and see it reported ----

def _simple_program(line="    v0 = np.sin(x0) * 0.7"):
    return fp.Program(0, [fp.Arg("x0", "array", (3,))], [([line], {"v0": (3,)}, set())],
                      {"x0": (3,)}, False, False, set())


def _planted(monkeypatch, wrap):
    real = tad.grad

    def grad(f, wrt=(0,), **kw):
        return wrap(real(f, wrt=wrt, **kw))
    monkeypatch.setattr(fo.tad, "grad", grad)


def test_oracle_passes_a_right_program():
    assert fo.run_program(_simple_program(), fo.CHECKS, timeout=20).kind == "pass"


@pytest.mark.parametrize("defect, kind", [
    (lambda g: (lambda *a: g(*a) * 1.001), "wrong"),
    (lambda g: (lambda *a: np.asarray(g(*a), np.float32)), "dtype"),
    (lambda g: (lambda *a: list(g(*a))), "dtype"),
    (lambda g: (lambda *a: (_ for _ in ()).throw(tad.InternalError("planted"))), "internal"),
    (lambda g: (lambda *a: {}["planted"]), "crash"),
    (lambda g: (lambda *a: (_ for _ in ()).throw(tad.UnsupportedSyntaxError("no"))),
     "refused"),
])
def test_oracle_reports_a_planted_defect(monkeypatch, defect, kind):
    _planted(monkeypatch, defect)
    assert fo.run_program(_simple_program(), ["grad"], timeout=20).kind == kind


def test_oracle_reports_a_hang(monkeypatch):
    def spin(g):
        def run(*a):
            while True:
                pass
        return run
    _planted(monkeypatch, spin)
    res = fo.run_program(_simple_program(), ["grad"], timeout=1)
    assert (res.kind, res.check) == ("hang", "grad")


def test_oracle_reports_a_frozen_global(monkeypatch):
    # a derivative that answers a repeated call with its first answer,
    # as one that froze the globals would
    def frozen(g):
        memo = {}

        def run(*a):
            return memo.setdefault(id(a[0]), g(*a))
        return run
    _planted(monkeypatch, frozen)
    res = fo.run_program(_simple_program("    v0 = np.sin(x0) * G_SCALE"),
                         ["grad", "rebind"], timeout=20)
    assert (res.kind, res.check) == ("wrong", "rebind")


def _branch_at_zero(x):
    if x * x > 0:
        return np.sin(x) + x
    return np.sin(x) * 0.5 + x * 0.5


def test_oracle_sees_a_point_on_a_branch_condition():
    # seed 32214: an integer argument 0 sat exactly on ``if np.sum(v0) > 0``
    # with v0 = 1.25 x0**2; both neighbours take the other branch, so the
    # differences disagree with any AD system's gradient there: a point to
    # skip, like a kink, not a wrong gradient
    assert fo._lines_run(_branch_at_zero, [0.0]) != fo._lines_run(_branch_at_zero, [1e-6])
    assert fo._lines_run(_branch_at_zero, [1e-6]) == fo._lines_run(_branch_at_zero, [-1e-6])


def test_oracle_sees_an_integer_point_on_an_elementwise_condition():
    # seed 90182: x0 = 0 sits on ``np.where(v0 > 0, (-v0) ** 2, x0)`` with
    # v0 = (sin(x0) x0 + x0) ** 2, which is 0 there and positive on both
    # sides: no line tells, but the gradient beside the point agrees with
    # the differences and the one at it (the branch taken there) does not
    prog = fp.generate(90182)
    assert fo.run_program(prog, ["grad"], timeout=60).kind == "pass"


def test_oracle_still_reports_a_fault_of_integer_arguments(monkeypatch):
    # the same program, with a gradient that is wrong for ints only
    def int_fault(g):
        return lambda *a: g(*a) * (1.001 if any(type(v) is int for v in a) else 1.0)
    _planted(monkeypatch, int_fault)
    assert fo.run_program(fp.generate(90182), ["grad"], timeout=60).kind == "wrong"


# ---- minimal reproducers of bugs the fuzzer found ----

def _sum_of_mixed_list(x):
    return np.sum(sum([x, 1.0]))


# once a bug: the adjoint of builtin sum(list) read the list as one array
def test_builtin_sum_of_list_with_mixed_shapes():
    g = tad.grad(_sum_of_mixed_list)(np.ones(3))
    assert np.allclose(g, 1.0)
