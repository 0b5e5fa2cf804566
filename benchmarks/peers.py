"""The libraries compared with the hand-written gradient, in one process.

Each builder takes a workload module and its arguments and returns a
harness.Contender whose ``call()`` computes the gradient, or raises
``Missing`` (the library is not installed: its column is skipped with a
note) or ``Unsupported`` (the library refused to differentiate this
workload). Inputs are converted to each library's array type once, before
timing; conversion is not timed. Everything runs in float64.

The PyPI ``tangent-ad`` package is not here: it lives in its own virtual
environment and is measured by peer_tangent.py in a subprocess.
"""
import os
import time
from pathlib import Path

import numpy as np

import harness
from harness import Contender

TORCH_PIN = "2.13.0"
ROOT = Path(__file__).resolve().parent.parent


class Missing(Exception):
    """The library is not installed."""


class Unsupported(Exception):
    """The library cannot transform this workload."""


def first_line(exc):
    """The first line of an error message, with this checkout's directory
    dropped from file names so that table cells stay short."""
    lines = str(exc).strip().splitlines()
    line = lines[0] if lines else type(exc).__name__
    return line.replace(str(ROOT) + os.sep, "")


def hand(module, args):
    return Contender("hand", lambda: module.grad_by_hand(*args))


def _tangent_ad_grad(module):
    import tangent_ad as tad
    try:
        return tad.grad(module.loss, wrt=module.WRT)
    except tad.InternalError:
        raise  # a bug, not a refusal: shown as "error: ..."
    except tad.TangentADError as exc:
        raise Unsupported(first_line(exc)) from exc


def tangent_ad(module, args):
    df = _tangent_ad_grad(module)
    return Contender("tangent_ad", lambda: df(*args))


def tangent_ad_staged(module, args):
    """tangent_ad's gradient behind ``tangent_ad.staging.dispatch.staged``: the copy
    specialized for the kinds of `args`, as ``tad.grad`` will return once
    api.py stages (docs/performance.md). The two calls that write the copy
    are made here; their time beyond a plain call is ``stage_time``."""
    from tangent_ad.staging import dispatch as staging
    df = staging.staged(_tangent_ad_grad(module))
    start = time.perf_counter()
    df(*args)
    df(*args)
    contender = Contender("staged", lambda: df(*args))
    contender.stage_time = time.perf_counter() - start
    return contender


def tangent_ad_numba(module, args):
    """``tad.grad(..., compile="numba")``; its first call, which compiles
    for the kinds of `args`, is timed as compile_time."""
    import tangent_ad as tad
    try:
        import numba  # noqa: F401
    except ImportError:
        raise Missing("compiled: numba is not installed (pip install numba)") from None
    df = tad.grad(module.loss, wrt=module.WRT, compile="numba")
    start = time.perf_counter()
    try:
        df(*args)
    except tad.CompileError as exc:
        raise Unsupported(first_line(exc).split(": ", 1)[-1]) from exc
    return Contender("compiled", lambda: df(*args), compile_time=time.perf_counter() - start)


def hand_numba(module, args):
    """The hand-written gradient under ``numba.njit``, where Numba compiles it."""
    try:
        import numba
    except ImportError:
        raise Missing("hand numba: numba is not installed") from None
    fn = numba.njit(module.grad_by_hand)
    try:
        fn(*args)
    except numba.core.errors.NumbaError as exc:
        raise Unsupported("Numba does not compile the hand-written gradient") from exc
    return Contender("hand numba", lambda: fn(*args))


def autograd(module, args):
    try:
        import autograd
    except ImportError:
        raise Missing("autograd: not installed (pip install autograd)") from None
    wrt = module.WRT if len(module.WRT) > 1 else module.WRT[0]
    g = autograd.grad(module.for_autograd(), wrt)
    return Contender("autograd", lambda: g(*args))


def _torch():
    try:
        import torch
    except ImportError:
        raise Missing(f"torch: not installed (pip install torch=={TORCH_PIN})") from None
    torch.set_num_threads(int(harness.THREADS))
    return torch


def torch_eager(module, args):
    torch = _torch()
    loss = module.for_torch(torch)

    def convert(i, a):
        if isinstance(a, np.ndarray):
            return torch.from_numpy(a).requires_grad_(i in module.WRT)
        if isinstance(a, float) and i in module.WRT:
            return torch.tensor(a, dtype=torch.float64, requires_grad=True)
        return a
    targs = [convert(i, a) for i, a in enumerate(args)]
    params = [targs[i] for i in module.WRT]

    def call():
        return torch.autograd.grad(loss(*targs), params)
    return Contender("torch", call, lambda r: tuple(t.detach().numpy() for t in r))


def _jax():
    try:
        import jax
    except ImportError:
        raise Missing("jax: not installed (pip install jax)") from None
    jax.config.update("jax_enable_x64", True)
    return jax


def _jax_args(jnp, module, args):
    def convert(i, a):
        if isinstance(a, np.ndarray) or (isinstance(a, float) and i in module.WRT):
            return jnp.asarray(a, dtype=jnp.float64)
        return a
    return [convert(i, a) for i, a in enumerate(args)]


def _jax_numpy(result):
    return tuple(np.asarray(g) for g in result)


def jax_grad(module, args):
    jax = _jax()
    import jax.numpy as jnp
    loss, _, _ = module.for_jax(jnp, jax.lax)
    jargs = _jax_args(jnp, module, args)
    g = jax.grad(loss, argnums=module.WRT)
    return Contender("jax", lambda: jax.block_until_ready(g(*jargs)), _jax_numpy)


def jax_jit(module, args):
    """jit(grad(...)); Python ints (loop counts) are static arguments. The
    first call, which traces and compiles, is timed as compile_time."""
    jax = _jax()
    import jax.numpy as jnp
    _, loss, rewritten = module.for_jax(jnp, jax.lax)
    jargs = _jax_args(jnp, module, args)
    static = tuple(i for i, a in enumerate(args)
                   if isinstance(a, int) and not isinstance(a, bool))
    g = jax.jit(jax.grad(loss, argnums=module.WRT), static_argnums=static)
    start = time.perf_counter()
    jax.block_until_ready(g(*jargs))
    compile_time = time.perf_counter() - start
    return Contender("jax.jit", lambda: jax.block_until_ready(g(*jargs)),
                     _jax_numpy, mark="*" if rewritten else "",
                     compile_time=compile_time)


# Column name -> builder, in table order.
BUILDERS = {
    "tangent_ad": tangent_ad,
    "staged": tangent_ad_staged,
    "autograd": autograd,
    "torch": torch_eager,
    "jax": jax_grad,
    "jax.jit": jax_jit,
    "compiled": tangent_ad_numba,
    "hand numba": hand_numba,
}


def versions():
    """{library: version} of the in-process peers that are installed."""
    import importlib.metadata as md
    found = {}
    for dist in ("numpy", "tangent-sct", "autograd", "torch", "jax", "jaxlib"):
        try:
            found[dist] = md.version(dist)
        except md.PackageNotFoundError:
            pass
    return found
