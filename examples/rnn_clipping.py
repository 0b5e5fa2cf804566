"""Train a tanh RNN with per-step gradient clipping done by insert_grad_code.

The network reads a sequence and predicts the sum of the sequence from its
last hidden state. Inside the loop, a ``with tad.insert_grad_code(h) as
dh:`` block clips the adjoint of the hidden state at every step of the
backward pass. The clipping runs exactly where the backward pass reaches
``h``, and it shows up in the generated code.

Run: python examples/rnn_clipping.py
"""
import numpy as np

import tangent_ad as tad


def loss(W, U, v, xs, target):
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        with tad.insert_grad_code(h) as dh:
            dh = np.clip(dh, -0.5, 0.5)
        h = np.tanh(W @ h + U * xs[t])
    prediction = v @ h
    return (prediction - target) ** 2


def main():
    rng = np.random.default_rng(0)
    size = 16
    W = rng.normal(size=(size, size)) * 0.3
    U = rng.normal(size=size) * 0.3
    v = rng.normal(size=size) * 0.3
    data = [rng.normal(size=20) * 0.5 for _ in range(32)]
    dloss = tad.grad(loss, wrt=(0, 1, 2))
    for epoch in range(31):
        total = 0.0
        for xs in data:
            target = np.sum(xs) * 0.1
            dW, dU, dv = dloss(W, U, v, xs, target)
            W, U, v = W - 0.05 * dW, U - 0.05 * dU, v - 0.05 * dv
            total += loss(W, U, v, xs, target)
        if epoch % 10 == 0:
            print(f"epoch {epoch:2d}  mean loss {total / len(data):.4f}")
    print()
    print(tad.show_source(dloss))


if __name__ == "__main__":
    main()
