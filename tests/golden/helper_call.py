def dtwo_layers_dW1_W2(W1, W2, x, bresult=1.0):
    W1 = float_argument(W1)
    W2 = float_argument(W2)
    h, back_h = pullback_layer_dW(W1, x)
    t, back_t = pullback_layer_dW_x(W2, h)
    ensure_real(t)
    # Grad of: return np.sum(layer(W2, h) ** 2)
    bt2 = np.full_like(t, bresult)
    bt = bt2 * 2 * t
    bW2, bh = back_t(bt)
    # Grad of: h = layer(W1, x)
    bW1 = back_h(bh)
    return cast_like(bW1, W1), cast_like(bW2, W2)


def pullback_layer_dW(W, x):
    t = W @ x
    result = np.tanh(t)

    def back(bresult):
        # Grad of: return np.tanh(W @ x)
        bt = bresult * (1.0 - result * result)
        bW = grad_matmul_lhs(bt, W, x)
        return bW
    return result, back


def pullback_layer_dW_x(W, x):
    t = W @ x
    result = np.tanh(t)

    def back(bresult):
        # Grad of: return np.tanh(W @ x)
        bt = bresult * (1.0 - result * result)
        bW = grad_matmul_lhs(bt, W, x)
        bx = grad_matmul_rhs(bt, W, x)
        return bW, bx
    return result, back
