def jvp_two_layers_dW1_W2(W1, W2, x, dW1, dW2):
    W1 = float_argument(W1)
    W2 = float_argument(W2)
    h, dh = jvp_layer_dW(W1, x, dW1)
    t, dt = jvp_layer_dW_x(W2, h, dW2, dh)
    t2 = t ** 2
    dt2 = dt * 2 * t
    result = np.sum(t2)
    dresult = np.sum(dt2)
    return result, cast_like(dresult, result)


def jvp_layer_dW(W, x, dW):
    t = W @ x
    dt = dW @ x
    result = np.tanh(t)
    dresult = dt * (1.0 - result * result)
    return result, dresult


def jvp_layer_dW_x(W, x, dW, dx):
    t = W @ x
    dt = dW @ x + W @ dx
    result = np.tanh(t)
    dresult = dt * (1.0 - result * result)
    return result, dresult
