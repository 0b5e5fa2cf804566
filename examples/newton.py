"""Newton's method with second derivatives from tangent_ad.

Two uses of the same idea, in a few lines each:

* in one dimension, ``tad.grad(tad.grad(f))`` is f'' itself, so a Newton
  step for a minimum of f is ``x - f'(x) / f''(x)``;
* in n dimensions, the Hessian is never formed: ``tad.hvp(f)`` applies it
  to a vector, which is all that conjugate gradients needs to solve
  ``H p = -g`` for the Newton step p (Newton-CG).

    .venv/bin/python examples/newton.py
"""
import numpy as np

import tangent_ad as tad


def well(x):
    """A double well with a tilt: two minima, the deeper one near -1."""
    return x ** 4 - 2.0 * x ** 2 + 0.3 * x


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def newton_1d(f, x, steps=20):
    slope, curvature = tad.grad(f), tad.grad(tad.grad(f))
    for _ in range(steps):
        x = x - slope(x) / curvature(x)
    return x


def conjugate_gradients(apply, b, iterations=50, tol=1e-10):
    """Solve ``apply(p) = b`` for a symmetric positive definite operator."""
    p = np.zeros_like(b)
    r = b.copy()
    d = r.copy()
    for _ in range(iterations):
        Ad = apply(d)
        alpha = (r @ r) / (d @ Ad)
        p = p + alpha * d
        r_next = r - alpha * Ad
        if np.sqrt(r_next @ r_next) < tol:
            break
        d = r_next + (r_next @ r_next) / (r @ r) * d
        r = r_next
    return p


def newton_cg(f, x, steps=30):
    gradient, product = tad.grad(f), tad.hvp(f)
    for _ in range(steps):
        g = gradient(x)
        if np.sqrt(g @ g) < 1e-10:
            break
        x = x + conjugate_gradients(lambda v: product(x, v), -g)
    return x


def main():
    x = newton_1d(well, -1.5)
    print(f"minimum of the tilted double well: x = {x:.12f}, "
          f"f'(x) = {tad.grad(well)(x):.1e}, f''(x) = {tad.grad(tad.grad(well))(x):.4f}")
    print("the second derivative, as generated:")
    print(tad.show_source(tad.grad(tad.grad(well))))
    x = newton_cg(rosenbrock, np.array([0.5, 0.5, 0.5, 0.5]))
    print(f"minimum of the Rosenbrock function in 4-D by Newton-CG: {np.round(x, 10)}")
    assert np.allclose(x, 1.0, atol=1e-8)


if __name__ == "__main__":
    main()
