"""Benchmark workloads: one small module per function differentiated.

Every module defines the same names, read by ``benchmarks/harness.py``:

``TITLE``                 row label in the table
``SIZES``, ``QUICK_SIZES`` the size parameter of each row (full / ``--quick``)
``SMALL``                 a small size for the smoke test
``WRT``                   positions of the arguments to differentiate
``loss``                  the primal, plain Python + NumPy, as given to tangent_ad
``grad_by_hand``          the hand-written NumPy gradient (a tuple, in WRT order)
``make_inputs(size, rng)`` the arguments of ``loss``
``for_autograd()``        ``loss`` written with ``autograd.numpy``
``for_torch(torch)``      ``loss`` written with torch operations
``for_jax(jnp, lax)``     ``(loss, jit_loss, rewritten)``: the loss for ``jax.grad``,
                          the one to put under ``jax.jit(jax.grad(...))`` and
                          whether that one is a ``lax`` rewrite (marked ``*``)

Modules import only NumPy at the top, so the peers stay optional; each
peer's variant imports its library when asked for.
"""
from . import (einsum_net, gp_nll, gp_slogdet, logaddexp_lr, logreg, loop, mlp, ode, rnn, rnn200,
               sample_sum, scalar_params, softmax_xent, state_list, tree, tree_concat)

# The project's own workloads. Tests pin properties of their derivatives
# (tests/test_optimize.py: staged copies keep no unbroadcast), so ALL and
# BY_NAME stay these.
ALL = (mlp, loop, rnn, logreg, ode, tree)
BY_NAME = {m.__name__.rsplit(".", 1)[-1]: m for m in ALL}

# Issue 15, "Benchmarks that keep us honest": workloads written the way users
# write them, not tuned for tangent_ad; checked by
# tests/test_benchmark_workloads.py.
UNTUNED = (scalar_params, tree_concat, softmax_xent, logaddexp_lr, gp_nll, einsum_net,
           rnn200, gp_slogdet, sample_sum, state_list)
UNTUNED_BY_NAME = {m.__name__.rsplit(".", 1)[-1]: m for m in UNTUNED}

# What benchmarks/run.py measures: both lists.
EVERY = ALL + UNTUNED
EVERY_BY_NAME = {**BY_NAME, **UNTUNED_BY_NAME}
