"""Train a small recursive network over binary trees, as in TreeLSTM-style models.

Each tree is a nested tuple whose leaves are word vectors. A node's vector
is ``tanh(W_left @ left + W_right @ right + b)`` of its children's vectors,
computed by a recursive Python function. tangent_ad differentiates that
recursion: ``embed`` gets its own generated pullback, and that pullback
calls itself. A few hundred steps of gradient descent fit a linear readout
of the root vector to a target score for each tree.

Run: python examples/tree_network.py
"""
import numpy as np

import tangent_ad as tad


def embed(node, params):
    if isinstance(node, tuple):
        left = embed(node[0], params)
        right = embed(node[1], params)
        return np.tanh(params["W_left"] @ left + params["W_right"] @ right + params["b"])
    return node


def loss(params, trees, targets):
    total = 0.0
    for tree, target in zip(trees, targets):
        root = embed(tree, params)
        score = params["readout"] @ root
        total = total + (score - target) ** 2
    return total / len(trees)


def random_tree(rng, depth, size):
    if depth == 0:
        return rng.normal(size=size)
    return (random_tree(rng, depth - 1, size), random_tree(rng, depth - 1, size))


def main():
    rng = np.random.default_rng(0)
    size = 8
    trees = [random_tree(rng, int(rng.integers(1, 5)), size) for _ in range(16)]
    targets = rng.normal(size=16)
    params = {
        "W_left": rng.normal(size=(size, size)) * 0.3,
        "W_right": rng.normal(size=(size, size)) * 0.3,
        "b": np.zeros(size),
        "readout": rng.normal(size=size) * 0.3,
    }
    dloss = tad.grad(loss)
    for step in range(301):
        grads = dloss(params, trees, targets)
        params = {k: params[k] - 0.1 * grads[k] for k in params}
        if step % 100 == 0:
            print(f"step {step:3d}  loss {loss(params, trees, targets):.4f}")
    print()
    print(tad.show_source(dloss))


if __name__ == "__main__":
    main()
