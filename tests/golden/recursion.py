def duse_power_dx(x, bresult=1.0):
    x = float_argument(x)
    result, back_result = pullback_power_dx(x, 3)
    ensure_scalar(result)
    # Grad of: return power(x, 3)
    if back_result is not None:
        bx = back_result(bresult)
    else:
        bx = zeros_like(x)
    return cast_like(bx, x)


def pullback_power_dx(x, n):
    if n == 0:
        return 1.0, None
    else:
        t = n - 1
        t2, back_t2 = pullback_power_dx(x, t)
        result = x * t2

    def back(bresult):
        # Grad of: return x * power(x, n - 1)
        bx = unbroadcast(bresult * t2, x)
        bt2 = unbroadcast(bresult * x, t2)
        if back_t2 is not None:
            bx = accumulate(bx, back_t2(bt2))
        return bx
    return result, back
