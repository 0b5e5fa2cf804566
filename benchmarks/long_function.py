"""A 200-line function with loops, branches and calls (issue 15, item 5):
the first transformation of `long_model` should take under 300 ms, and
the optimizer's passes should scale linearly with the function's length.
Timed by ``benchmarks/transform_time.py --long``."""
import inspect
import linecache

import numpy as np


def _layer(W, b, h):
    return np.tanh(h @ W + b)


def _smooth_relu(v):
    return np.log1p(np.exp(v))


def _penalty(W, scale):
    return scale * np.sum(W * W)


def long_model(W1, b1, W2, b2, scale, x, y, steps):
    """Twelve blocks of about sixteen lines: a layer call, a recurrence,
    a branch and a few reductions each."""
    h = _layer(W1, b1, x)
    total = 0.0
    # block 0
    g0 = _layer(W2, b2, h) * (1.0 + 0.01 * 0)
    s0 = np.sum(g0 * g0)
    if s0 > 1.0:
        g0 = g0 / np.sqrt(s0)
    else:
        g0 = g0 * scale
    state0 = g0
    for i in range(steps):
        pre = state0 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state0 = gate * np.tanh(pre) + (1.0 - gate) * state0
    r0 = _smooth_relu(state0 - y)
    m0 = np.mean(r0 * r0) + _penalty(W1, 0.001 * 1)
    total = total + m0 * np.cos(scale * 1)
    h = 0.5 * h + 0.5 * state0
    # block 1
    g1 = _layer(W2, b2, h) * (1.0 + 0.01 * 1)
    s1 = np.sum(g1 * g1)
    if s1 > 1.1:
        g1 = g1 / np.sqrt(s1)
    else:
        g1 = g1 * scale
    state1 = g1
    for i in range(steps):
        pre = state1 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state1 = gate * np.tanh(pre) + (1.0 - gate) * state1
    r1 = _smooth_relu(state1 - y)
    m1 = np.mean(r1 * r1) + _penalty(W1, 0.001 * 2)
    total = total + m1 * np.cos(scale * 2)
    h = 0.5 * h + 0.5 * state1
    # block 2
    g2 = _layer(W2, b2, h) * (1.0 + 0.01 * 2)
    s2 = np.sum(g2 * g2)
    if s2 > 1.2:
        g2 = g2 / np.sqrt(s2)
    else:
        g2 = g2 * scale
    state2 = g2
    for i in range(steps):
        pre = state2 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state2 = gate * np.tanh(pre) + (1.0 - gate) * state2
    r2 = _smooth_relu(state2 - y)
    m2 = np.mean(r2 * r2) + _penalty(W1, 0.001 * 3)
    total = total + m2 * np.cos(scale * 3)
    h = 0.5 * h + 0.5 * state2
    # block 3
    g3 = _layer(W2, b2, h) * (1.0 + 0.01 * 3)
    s3 = np.sum(g3 * g3)
    if s3 > 1.3:
        g3 = g3 / np.sqrt(s3)
    else:
        g3 = g3 * scale
    state3 = g3
    for i in range(steps):
        pre = state3 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state3 = gate * np.tanh(pre) + (1.0 - gate) * state3
    r3 = _smooth_relu(state3 - y)
    m3 = np.mean(r3 * r3) + _penalty(W1, 0.001 * 4)
    total = total + m3 * np.cos(scale * 4)
    h = 0.5 * h + 0.5 * state3
    # block 4
    g4 = _layer(W2, b2, h) * (1.0 + 0.01 * 4)
    s4 = np.sum(g4 * g4)
    if s4 > 1.4:
        g4 = g4 / np.sqrt(s4)
    else:
        g4 = g4 * scale
    state4 = g4
    for i in range(steps):
        pre = state4 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state4 = gate * np.tanh(pre) + (1.0 - gate) * state4
    r4 = _smooth_relu(state4 - y)
    m4 = np.mean(r4 * r4) + _penalty(W1, 0.001 * 5)
    total = total + m4 * np.cos(scale * 5)
    h = 0.5 * h + 0.5 * state4
    # block 5
    g5 = _layer(W2, b2, h) * (1.0 + 0.01 * 5)
    s5 = np.sum(g5 * g5)
    if s5 > 1.5:
        g5 = g5 / np.sqrt(s5)
    else:
        g5 = g5 * scale
    state5 = g5
    for i in range(steps):
        pre = state5 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state5 = gate * np.tanh(pre) + (1.0 - gate) * state5
    r5 = _smooth_relu(state5 - y)
    m5 = np.mean(r5 * r5) + _penalty(W1, 0.001 * 6)
    total = total + m5 * np.cos(scale * 6)
    h = 0.5 * h + 0.5 * state5
    # block 6
    g6 = _layer(W2, b2, h) * (1.0 + 0.01 * 6)
    s6 = np.sum(g6 * g6)
    if s6 > 1.6:
        g6 = g6 / np.sqrt(s6)
    else:
        g6 = g6 * scale
    state6 = g6
    for i in range(steps):
        pre = state6 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state6 = gate * np.tanh(pre) + (1.0 - gate) * state6
    r6 = _smooth_relu(state6 - y)
    m6 = np.mean(r6 * r6) + _penalty(W1, 0.001 * 7)
    total = total + m6 * np.cos(scale * 7)
    h = 0.5 * h + 0.5 * state6
    # block 7
    g7 = _layer(W2, b2, h) * (1.0 + 0.01 * 7)
    s7 = np.sum(g7 * g7)
    if s7 > 1.7000000000000002:
        g7 = g7 / np.sqrt(s7)
    else:
        g7 = g7 * scale
    state7 = g7
    for i in range(steps):
        pre = state7 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state7 = gate * np.tanh(pre) + (1.0 - gate) * state7
    r7 = _smooth_relu(state7 - y)
    m7 = np.mean(r7 * r7) + _penalty(W1, 0.001 * 8)
    total = total + m7 * np.cos(scale * 8)
    h = 0.5 * h + 0.5 * state7
    # block 8
    g8 = _layer(W2, b2, h) * (1.0 + 0.01 * 8)
    s8 = np.sum(g8 * g8)
    if s8 > 1.8:
        g8 = g8 / np.sqrt(s8)
    else:
        g8 = g8 * scale
    state8 = g8
    for i in range(steps):
        pre = state8 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state8 = gate * np.tanh(pre) + (1.0 - gate) * state8
    r8 = _smooth_relu(state8 - y)
    m8 = np.mean(r8 * r8) + _penalty(W1, 0.001 * 9)
    total = total + m8 * np.cos(scale * 9)
    h = 0.5 * h + 0.5 * state8
    # block 9
    g9 = _layer(W2, b2, h) * (1.0 + 0.01 * 9)
    s9 = np.sum(g9 * g9)
    if s9 > 1.9:
        g9 = g9 / np.sqrt(s9)
    else:
        g9 = g9 * scale
    state9 = g9
    for i in range(steps):
        pre = state9 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state9 = gate * np.tanh(pre) + (1.0 - gate) * state9
    r9 = _smooth_relu(state9 - y)
    m9 = np.mean(r9 * r9) + _penalty(W1, 0.001 * 10)
    total = total + m9 * np.cos(scale * 10)
    h = 0.5 * h + 0.5 * state9
    # block 10
    g10 = _layer(W2, b2, h) * (1.0 + 0.01 * 10)
    s10 = np.sum(g10 * g10)
    if s10 > 2.0:
        g10 = g10 / np.sqrt(s10)
    else:
        g10 = g10 * scale
    state10 = g10
    for i in range(steps):
        pre = state10 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state10 = gate * np.tanh(pre) + (1.0 - gate) * state10
    r10 = _smooth_relu(state10 - y)
    m10 = np.mean(r10 * r10) + _penalty(W1, 0.001 * 11)
    total = total + m10 * np.cos(scale * 11)
    h = 0.5 * h + 0.5 * state10
    # block 11
    g11 = _layer(W2, b2, h) * (1.0 + 0.01 * 11)
    s11 = np.sum(g11 * g11)
    if s11 > 2.1:
        g11 = g11 / np.sqrt(s11)
    else:
        g11 = g11 * scale
    state11 = g11
    for i in range(steps):
        pre = state11 @ W2 + b2
        gate = 1.0 / (1.0 + np.exp(-pre))
        state11 = gate * np.tanh(pre) + (1.0 - gate) * state11
    r11 = _smooth_relu(state11 - y)
    m11 = np.mean(r11 * r11) + _penalty(W1, 0.001 * 12)
    total = total + m11 * np.cos(scale * 12)
    h = 0.5 * h + 0.5 * state11
    loss = total + 0.01 * np.sum(h * h)
    return loss


def inputs(rng):
    return (rng.normal(0, 0.3, (8, 8)), rng.normal(0, 0.1, 8), rng.normal(0, 0.3, (8, 8)),
            rng.normal(0, 0.1, 8), 0.9, rng.normal(size=(4, 8)), rng.normal(size=(4, 8)), 3)


def with_blocks(count):
    """`long_model` with its first `count` blocks only: the same code,
    compiled from its own source text (registered in ``linecache``, so
    that tangent_ad reads it as it reads a file)."""
    if count >= 12:
        return long_model
    lines = inspect.getsource(long_model).splitlines(True)
    cut = next(i for i, line in enumerate(lines) if line.strip() == f"# block {count}")
    tail = next(i for i, line in enumerate(lines) if line.strip().startswith("loss = "))
    source = "".join(lines[:cut] + lines[tail:])
    filename = f"<long_model, {count} blocks>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(globals())
    exec(compile(source, filename, "exec"), namespace)
    return namespace["long_model"]
