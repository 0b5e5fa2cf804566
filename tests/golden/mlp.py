def dmlp_dW1_b1_W2(W1, b1, W2, x, y, bresult=1.0):
    W1 = float_argument(W1)
    b1 = float_argument(b1)
    W2 = float_argument(W2)
    t = x @ W1
    t2 = t + b1
    h = np.tanh(t2)
    out = h @ W2
    t3 = out - y
    ensure_real(t3)
    # Grad of: return np.mean((out - y) ** 2)
    bt4 = np.full_like(t3, bresult / size_of(t3))
    bt3 = bt4 * 2 * t3
    bout = unbroadcast(bt3, out)
    # Grad of: out = h @ W2
    bh = grad_matmul_lhs(bout, h, W2)
    bW2 = grad_matmul_rhs(bout, h, W2)
    # Grad of: h = np.tanh(x @ W1 + b1)
    bt2 = bh * (1.0 - h * h)
    bt = unbroadcast(bt2, t)
    bb1 = unbroadcast(bt2, b1)
    bW1 = grad_matmul_rhs(bt, x, W1)
    return cast_like(bW1, W1), cast_like(bb1, b1), cast_like(bW2, W2)
