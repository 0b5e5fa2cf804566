def doverwrite_dx_y(x, y, bresult=1.0):
    x = float_argument(x)
    y = float_argument(y)
    x2 = x * y
    t = np.sin(x2)
    x3 = t + x2
    ensure_real(x3)
    # Grad of: return np.sum(x * 3)
    bt2 = np.full_like(x3, bresult)
    bx3 = bt2 * 3
    # Grad of: x = np.sin(x) + x
    bx2 = bx3 + bx3 * np.cos(x2)
    # Grad of: x = x * y
    bx = unbroadcast(bx2 * y, x)
    by = unbroadcast(bx2 * x, y)
    return cast_like(bx, x), cast_like(by, y)
