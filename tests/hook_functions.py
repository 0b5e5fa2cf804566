"""Functions using insert_grad_code, stop_gradient and checkpoint."""
import numpy as np

import tangent_ad as tad


def clipped_rnn(params, x):
    h = x
    for i in range(5):
        with tad.insert_grad_code(h) as dh:
            dh = np.clip(dh, -0.1, 0.1)
        h = np.tanh(params @ h)
    return np.sum(h)


def plain_rnn(params, x):
    h = x
    for i in range(5):
        h = np.tanh(params @ h)
    return np.sum(h)


def scaled_on_argument(x):
    with tad.insert_grad_code(x) as dx:
        dx = dx * 10.0
    return np.sum(np.sin(x))


def zeroed_temporary(x):
    y = x * 3.0
    with tad.insert_grad_code(y) as dy:
        dy = dy * 0.0
    return np.sum(y * x)


def hook_in_branch(x, flag):
    y = np.sin(x)
    if flag:
        with tad.insert_grad_code(y) as dy:
            dy = -dy
    return np.sum(y)


def two_hooks(x):
    a = x * 2.0
    with tad.insert_grad_code(a) as da:
        da = da + 1.0
    b = a * a
    with tad.insert_grad_code(b) as db:
        db = db * 0.5
    return np.sum(b)


def logging_hook(x, log):
    y = np.exp(x)
    with tad.insert_grad_code(y) as dy:
        log.append(float(np.sum(dy)))
    return np.sum(y * 2.0)


def straight_through(x):
    return np.sum((x + tad.stop_gradient(np.round(x) - x)) ** 2)


@tad.checkpoint
def block(W, h):
    a = np.tanh(W @ h)
    return np.tanh(W @ a) + h


def plain_block(W, h):
    a = np.tanh(W @ h)
    return np.tanh(W @ a) + h


def checkpointed_net(W, h, n):
    for i in range(n):
        h = block(W, h)
    return np.sum(h ** 2)


def plain_net(W, h, n):
    for i in range(n):
        h = plain_block(W, h)
    return np.sum(h ** 2)


def checkpointed_loop(x, w, n):
    s = 0.0
    for i in tad.checkpointed(range(n)):
        x = np.tanh(x * w + 0.1 * i)
        if np.sum(x) > 0:
            s = s + np.sum(x)
        else:
            s = s - np.sum(x * x)
    return s


def plain_loop(x, w, n):
    s = 0.0
    for i in range(n):
        x = np.tanh(x * w + 0.1 * i)
        if np.sum(x) > 0:
            s = s + np.sum(x)
        else:
            s = s - np.sum(x * x)
    return s
