def jvp_loop_branch_dx(x, n, dx):
    x = float_argument(x)
    for i in range(n):
        if x > 0.5:
            t = x * 0.9
            dt = dx * 0.9
            x = t + 0.05
            dx = dt
        else:
            t2 = np.sin(x)
            dt2 = dx * np.cos(x)
            x = t2 + 0.3
            dx = dt2
    return x, cast_like(dx, x)
