def dloop_branch_dx(x, n, bresult=1.0):
    x = float_argument(x)
    x_arg = x
    stack = []
    for i in range(n):
        if x > 0.5:
            t = x * 0.9
            x = t + 0.05
            stack.append(True)
        else:
            t2 = np.sin(x)
            stack.append(x)
            x = t2 + 0.3
            stack.append(False)
    ensure_scalar(x)
    bx = bresult
    # Grad of: for i in range(n)
    for i in reversed(range(n)):
        if stack.pop():
            # Grad of: x = x * 0.9 + 0.05
            bx = bx * 0.9
        else:
            # Grad of: x = np.sin(x) + 0.3
            x = stack.pop()
            bx = bx * np.cos(x)
    return cast_like(bx, x_arg)
