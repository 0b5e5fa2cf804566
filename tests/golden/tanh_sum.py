def dtanh_sum_dx(x, bresult=1.0):
    x = float_argument(x)
    t = np.tanh(x)
    ensure_real(t)
    # Grad of: return np.sum(np.tanh(x) * 2.0)
    bt2 = np.full_like(x, bresult)
    bt = bt2 * 2.0
    bx = bt * (1.0 - t * t)
    return cast_like(bx, x)
