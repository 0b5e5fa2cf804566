"""Use a gradient module written by ``tangent-ad`` and check it by hand.

    python examples/demo_run.py loss_grad.py

Imports ``dloss_dW_b`` from the given file (as a user of the generated
module would: it needs only numpy and tangent_ad.runtime), evaluates it on
seeded random inputs, and compares it with central finite differences
computed here with plain NumPy, independently of tangent_ad.
"""
import importlib.util
import sys

import numpy as np

from model import loss


def load_function(path, name):
    """Import the module at ``path`` and return its attribute ``name``."""
    spec = importlib.util.spec_from_file_location("loss_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def central_differences(f, args, argnum, eps=1e-6):
    """d f / d args[argnum], one element at a time: (f(x+e) - f(x-e)) / 2e."""
    x = args[argnum]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        args_up = args[:argnum] + (up,) + args[argnum + 1:]
        args_down = args[:argnum] + (down,) + args[argnum + 1:]
        grad[index] = (f(*args_up) - f(*args_down)) / (2 * eps)
    return grad


def main(path):
    dloss_dW_b = load_function(path, "dloss_dW_b")
    rng = np.random.default_rng(42)
    args = (rng.normal(size=(3, 4)), rng.normal(size=(4,)),
            rng.normal(size=(5, 3)))
    dW, db = dloss_dW_b(*args)
    np.set_printoptions(precision=5, suppress=True)
    print("dloss/dW =")
    print(dW)
    print("dloss/db =")
    print(db)
    error = max(np.max(np.abs(dW - central_differences(loss, args, 0))),
                np.max(np.abs(db - central_differences(loss, args, 1))))
    ok = bool(error < 1e-6)
    print(f"max abs error vs central finite differences: {error:.2e}")
    print(f"matches finite differences: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/demo_run.py GENERATED_MODULE.py")
    sys.exit(main(sys.argv[1]))
