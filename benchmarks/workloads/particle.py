"""A particle step loop: a ball thrown with quadratic drag that bounces.

Explicit Euler over ``steps`` steps of a ball under gravity and drag
(force ``-drag * |v| * v``); when it goes below the floor it is reflected
with a loss of speed (a branch in the loop). The state is four Python
floats. Loss: squared distance of the final position from a target.
Gradient w.r.t. the launch velocity (vx, vy) and the drag coefficient.

Written for the compiled column (issue 16: "a particle or n-body step
loop"), not tuned for tangent_ad.
"""
import numpy as np

TITLE = "particle (drag, bounce)"
SIZES = (1000,)
QUICK_SIZES = SIZES
SMALL = 40
WRT = (0, 1, 2)
G, DT, BOUNCE = 9.81, 0.002, 0.8
TARGET_X, TARGET_Y = 3.0, 0.5


def loss(vx, vy, drag, steps):
    x = 0.0
    y = 1.0
    for i in range(steps):
        speed = np.sqrt(vx * vx + vy * vy)
        ax = -drag * speed * vx
        ay = -G - drag * speed * vy
        vx = vx + DT * ax
        vy = vy + DT * ay
        x = x + DT * vx
        y = y + DT * vy
        if y < 0.0:
            y = -y
            vy = -BOUNCE * vy
    return (x - TARGET_X) ** 2 + (y - TARGET_Y) ** 2


def grad_by_hand(vx, vy, drag, steps):
    # Forward sweep keeps each step's velocity and whether it bounced; the
    # backward sweep runs the updates in reverse with float arithmetic.
    vxs, vys, bounced = [], [], []
    x, y = 0.0, 1.0
    for i in range(steps):
        vxs.append(vx)
        vys.append(vy)
        speed = np.sqrt(vx * vx + vy * vy)
        vx = vx + DT * (-drag * speed * vx)
        vy = vy + DT * (-G - drag * speed * vy)
        x = x + DT * vx
        y = y + DT * vy
        bounced.append(y < 0.0)
        if y < 0.0:
            y = -y
            vy = -BOUNCE * vy
    bx = 2.0 * (x - TARGET_X)
    by = 2.0 * (y - TARGET_Y)
    bvx = bvy = bdrag = 0.0
    for i in range(steps - 1, -1, -1):
        if bounced[i]:
            by = -by
            bvy = -BOUNCE * bvy
        bvy += DT * by
        bvx += DT * bx
        vx, vy = vxs[i], vys[i]
        speed = np.sqrt(vx * vx + vy * vy)
        bax, bay = DT * bvx, DT * bvy
        bdrag -= speed * (vx * bax + vy * bay)
        bspeed = -drag * (vx * bax + vy * bay)
        bvx += -drag * speed * bax + bspeed * vx / speed
        bvy += -drag * speed * bay + bspeed * vy / speed
    return bvx, bvy, bdrag


def make_inputs(steps, rng):
    return (2.0, 3.0, 0.1, steps)


def for_autograd():
    import autograd.numpy as anp

    def loss(vx, vy, drag, steps):
        x, y = 0.0, 1.0
        for i in range(steps):
            speed = anp.sqrt(vx * vx + vy * vy)
            vx = vx + DT * (-drag * speed * vx)
            vy = vy + DT * (-G - drag * speed * vy)
            x = x + DT * vx
            y = y + DT * vy
            if y < 0.0:
                y = -y
                vy = -BOUNCE * vy
        return (x - TARGET_X) ** 2 + (y - TARGET_Y) ** 2
    return loss


def for_torch(torch):
    def loss(vx, vy, drag, steps):
        x, y = 0.0, 1.0
        for i in range(steps):
            speed = torch.sqrt(vx * vx + vy * vy)
            vx = vx + DT * (-drag * speed * vx)
            vy = vy + DT * (-G - drag * speed * vy)
            x = x + DT * vx
            y = y + DT * vy
            if y < 0.0:
                y = -y
                vy = -BOUNCE * vy
        return (x - TARGET_X) ** 2 + (y - TARGET_Y) ** 2
    return loss


def for_jax(jnp, lax):
    def step(i, state):
        x, y, vx, vy, drag = state
        speed = jnp.sqrt(vx * vx + vy * vy)
        vx = vx + DT * (-drag * speed * vx)
        vy = vy + DT * (-G - drag * speed * vy)
        x = x + DT * vx
        y = y + DT * vy
        below = y < 0.0
        return (x, jnp.where(below, -y, y), vx, jnp.where(below, -BOUNCE * vy, vy), drag)

    def jit_loss(vx, vy, drag, steps):
        x, y, _, _, _ = lax.fori_loop(0, steps, step, (0.0, 1.0, vx, vy, drag))
        return (x - TARGET_X) ** 2 + (y - TARGET_Y) ** 2

    def plain(vx, vy, drag, steps):
        state = (0.0, 1.0, vx, vy, drag)
        for i in range(steps):
            state = step(i, state)
        x, y = state[0], state[1]
        return (x - TARGET_X) ** 2 + (y - TARGET_Y) ** 2
    return plain, jit_loss, True
