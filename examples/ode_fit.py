"""Fit the parameters of an ODE by gradient descent through its solver.

A Lotka-Volterra predator-prey model is integrated with explicit Euler
steps in a plain Python loop. tangent_ad differentiates the loop (the
derivative is a loop too), and a few hundred gradient-descent steps recover
the parameters that produced the "observed" final state.

Run: python examples/ode_fit.py
"""
import numpy as np

import tangent_ad as tad


def simulate(alpha, beta, delta, gamma, steps):
    prey = 1.0
    predators = 0.5
    dt = 0.01
    for i in range(steps):
        growth = alpha * prey - beta * prey * predators
        change = delta * prey * predators - gamma * predators
        prey = prey + dt * growth
        predators = predators + dt * change
    return prey, predators


def loss(alpha, beta, delta, gamma, steps, prey_obs, pred_obs):
    prey = 1.0
    predators = 0.5
    dt = 0.01
    for i in range(steps):
        growth = alpha * prey - beta * prey * predators
        change = delta * prey * predators - gamma * predators
        prey = prey + dt * growth
        predators = predators + dt * change
    return (prey - prey_obs) ** 2 + (predators - pred_obs) ** 2


def main():
    true = (1.1, 0.4, 0.1, 0.4)
    steps = 200
    prey_obs, pred_obs = simulate(*true, steps)
    dloss = tad.grad(loss, wrt=(0, 1, 2, 3))
    params = np.array([1.0, 0.45, 0.12, 0.38])
    for it in range(301):
        grads = np.array(dloss(*params, steps, prey_obs, pred_obs))
        params = params - 2e-4 * grads
        if it % 100 == 0:
            print(f"step {it:3d}  loss {loss(*params, steps, prey_obs, pred_obs):.3e}")
    print("fitted final state:", simulate(*params, steps), "observed:", (prey_obs, pred_obs))
    print()
    print(tad.show_source(dloss))


if __name__ == "__main__":
    main()
