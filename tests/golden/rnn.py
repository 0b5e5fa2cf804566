def drnn_dW(W, xs, h, bresult=1.0):
    W = float_argument(W)
    stack = []
    t2 = None
    for t in range(len(xs)):
        stack.append(t2)
        t2 = W @ h
        t3 = xs[t]
        t4 = t2 + t3
        stack.append(h)
        h = np.tanh(t4)
    ensure_real(h)
    # Grad of: return np.sum(h)
    bh = np.full_like(h, bresult)
    # Grad of: for t in range(len(xs))
    bW = zeros_like(W)
    for t in reversed(range(len(xs))):
        # Grad of: h = np.tanh(W @ h + xs[t])
        bt4 = bh * (1.0 - h * h)
        h = stack.pop()
        bt2 = unbroadcast(bt4, t2)
        bW = bW + grad_matmul_lhs(bt2, W, h)
        bh = grad_matmul_rhs(bt2, W, h)
        t2 = stack.pop()
    return cast_like(bW, W)
