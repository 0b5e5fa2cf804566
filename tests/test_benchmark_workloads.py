"""The untuned benchmark workloads of issue 15 (benchmarks/workloads/,
``workloads.UNTUNED``): each hand-written gradient matches central finite
differences, and tangent_ad's gradient, general and staged, matches the
hand-written one, on small inputs and at the size the table measures.

The peers' variants (``for_autograd``, ``for_torch``, ``for_jax``) are
checked against the hand-written gradient too, when the peer is installed;
otherwise those tests skip. No timing here: benchmarks/run.py times.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.staging import dispatch as staging
from tangent_ad.testing import check_jvp, numerical_grad

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import harness  # noqa: E402
import workloads  # noqa: E402

MODULES = [pytest.param(m, id=name) for name, m in workloads.UNTUNED_BY_NAME.items()]


def inputs(module, size=None):
    return module.make_inputs(module.SMALL if size is None else size,
                              np.random.default_rng(0))


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def assert_matches(got, want, rtol=1e-9):
    got = as_tuple(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        scale = float(np.max(np.abs(w)))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12 * max(scale, 1.0))


@pytest.mark.parametrize("module", MODULES)
def test_hand_written_gradient_matches_central_differences(module):
    args = inputs(module)
    grads = module.grad_by_hand(*args)
    assert len(grads) == len(module.WRT)
    for i, g in zip(module.WRT, grads):
        assert np.shape(g) == np.shape(args[i])
        np.testing.assert_allclose(g, numerical_grad(module.loss, args, i),
                                   rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("module", MODULES)
def test_tangent_ad_gradient_matches_hand_written(module):
    args = inputs(module)
    assert_matches(tad.grad(module.loss, wrt=module.WRT)(*args), module.grad_by_hand(*args))


@pytest.mark.parametrize("module", MODULES)
def test_gradients_agree_at_the_benchmark_size(module):
    # What run.py checks before timing, at the sizes it times; the staged
    # copy is written by the second call with the same kinds.
    (size,) = module.SIZES
    args = inputs(module, size)
    want = module.grad_by_hand(*args)
    df = staging.staged(tad.grad(module.loss, wrt=module.WRT))
    for _ in range(3):
        assert harness.check(as_tuple(df(*args)), want) is None
    assert not df.__tangent_ad_stager__.errors


@pytest.mark.parametrize("module", MODULES)
def test_forward_mode_matches_central_differences(module):
    args = inputs(module)
    check_jvp(module.loss, tad.jvp(module.loss, wrt=module.WRT), args, wrt=module.WRT)


def test_scalar_loop_parameters_change_type():
    # The point of the workload (issue 15): Python-float parameters and
    # state, which np.cos turns into np.float64 on the first step.
    module = workloads.scalar_params
    args = inputs(module, module.SIZES[0])
    assert all(type(args[i]) is float for i in module.WRT)
    assert type(module.loss(*args)) is np.float64
    assert type(module.loss(*args[:-1], 0)) is float


# ---- the peers' variants, where the peer is installed -------------------------

@pytest.mark.parametrize("module", MODULES)
def test_autograd_variant_matches_hand_written(module):
    autograd = pytest.importorskip("autograd")
    args = inputs(module)
    wrt = module.WRT if len(module.WRT) > 1 else module.WRT[0]
    got = autograd.grad(module.for_autograd(), wrt)(*args)
    assert_matches(got, module.grad_by_hand(*args), rtol=1e-7)


@pytest.mark.parametrize("module", MODULES)
def test_torch_variant_matches_hand_written(module):
    pytest.importorskip("torch")
    import peers
    args = inputs(module)
    contender = peers.torch_eager(module, args)
    assert harness.check(contender.to_numpy(contender.call()),
                         module.grad_by_hand(*args)) is None


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("builder", ["jax_grad", "jax_jit"])
def test_jax_variants_match_hand_written(module, builder):
    pytest.importorskip("jax")
    import peers
    args = inputs(module)
    contender = getattr(peers, builder)(module, args)
    assert harness.check(contender.to_numpy(contender.call()),
                         module.grad_by_hand(*args)) is None
