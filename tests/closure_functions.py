"""Nested functions, lambdas, higher-order functions and comprehensions."""
import numpy as np


def square(y):
    return y * y


def apply(f, x):
    return f(x) + x


def closure(x, w):
    def scaled(y):
        return np.sin(y) * w
    a = scaled(x)
    b = scaled(a)
    return np.sum(b)


def lambda_capture(x, w):
    f = lambda y: y * w + 1.0
    return np.sum(f(x) * f(w))


def higher_order(x):
    return np.sum(apply(square, x))


def higher_order_lambda(x):
    return np.sum(apply(lambda z: np.exp(z), x))


def comprehension_calls(x):
    return sum([np.sum(square(x * i)) for i in range(3)])


def comprehension_filter(x, n):
    ys = [np.sin(x * i) for i in range(n) if i % 2 == 0]
    total = 0.0
    for y in ys:
        total = total + np.sum(y)
    return total


def dict_comprehension(xs):
    d = {k: v * 2.0 for k, v in enumerate(xs)}
    return np.sum(d[0] * d[1])


def closure_in_loop(x, w, n):
    def step(h):
        return np.tanh(h * w)
    for i in range(n):
        x = step(x)
    return np.sum(x)


def _smooth(t):
    return np.sin(t)


def constant_lambda_call(x):
    # issue 19, item 6: a lambda called on constants only; the primal still
    # runs it, so the global it reads must be in the generated namespace
    inner = lambda t: _smooth(t) + 1.0  # noqa: E731
    scale = inner(1.0)
    return np.sum(x * scale)


def cube(y):
    return y * y * y


def two_functions_one_helper(x):
    """`apply` specialized twice: to square and to cube."""
    return np.sum(apply(square, x) * apply(cube, x))


def captured_in_condition(x, w):
    """A lambda that captures `c` and `w`, called in branch and loop headers
    and in a conditional expression: every call passes the captures."""
    c = 2.0
    positive = lambda v: np.sum(v * c + w) > 0
    small = lambda v: np.sum(v * v) < c * 4.0
    if positive(x):
        y = x * w
    else:
        y = np.sin(x)
    while small(y):
        y = y * 1.5 + w * 0.1
    z = y * y if positive(y) else y * c
    return np.sum(z * w)


def lambdas_in_a_nested_def(x):
    """A nested def holding lambdas (generated code keeps it as written)."""
    def f(a):
        g = lambda b: b * b
        positive = lambda v: np.sum(v) > 0
        if positive(a):
            return g(a) * a
        return apply(lambda b: np.sin(b), a) * a
    return np.sum(f(x))


def nested_function_arguments(x):
    """A lambda passed to `apply` passes another lambda to it: under hvp,
    the copy of the outer lambda in the gradient is a value, not a closure
    of the gradient (forward mode over it met `apply(<lambda>, b)`)."""
    inner = lambda a: apply(lambda b: np.sin(b) * b, a) * a
    return np.sum(apply(lambda b: apply(lambda c: c * c, b), x) + inner(x))


def _layer_funs(scale):
    def unpack(p):
        return p * scale
    def likelihood(p, x):
        return np.sum(np.sin(unpack(p) * x))
    return likelihood


_LAYER1, _LAYER2 = _layer_funs(2.0), _layer_funs(3.0)


def two_instances_of_one_closure(p, x):
    """Two closures of one factory (autograd's deep_gaussian_process.py):
    the unit of generated functions reads each one's cells, ``unpack`` and
    ``scale``, under names of their own (it refused: one global name for two
    objects)."""
    return _LAYER1(p, x) + _LAYER2(p * x, x)


CASES = {
    "constant_lambda_call": (constant_lambda_call, lambda r: (r.normal(size=3),), (0,)),
    "closure": (closure, lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "lambda_capture": (lambda_capture, lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "higher_order": (higher_order, lambda r: (r.normal(size=3),), (0,)),
    "higher_order_lambda": (higher_order_lambda, lambda r: (r.normal(size=3),), (0,)),
    "comprehension_calls": (comprehension_calls, lambda r: (r.normal(size=3),), (0,)),
    "comprehension_filter": (comprehension_filter,
                             lambda r: (r.normal(size=3), int(r.integers(0, 5))), (0,)),
    "dict_comprehension": (dict_comprehension, lambda r: (r.normal(size=(2, 3)),), (0,)),
    "two_functions_one_helper": (two_functions_one_helper, lambda r: (r.normal(size=3),),
                                 (0,)),
    "captured_in_condition": (captured_in_condition,
                              lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "lambdas_in_a_nested_def": (lambdas_in_a_nested_def, lambda r: (r.normal(size=3),), (0,)),
    "nested_function_arguments": (nested_function_arguments, lambda r: (r.normal(size=3),),
                                  (0,)),
    "two_instances_of_one_closure": (two_instances_of_one_closure,
                                     lambda r: (r.normal(size=3), r.normal(size=3)), (0, 1)),
    "closure_in_loop": (closure_in_loop, lambda r: (r.normal(size=3), r.normal(size=3),
                                                   int(r.integers(0, 4))), (0, 1)),
}
