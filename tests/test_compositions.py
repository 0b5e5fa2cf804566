"""Every composition of the transforms, of depth 2 and 3, on a few
functions: right or refused, never a wrong number or an internal error.

A chain ``T3(T2(T1(f)))`` with each ``T`` one of `grad`, `vjp` and `jvp`
is checked one level at a time: level k is compared with central finite
differences of level k - 1, which the test checked just before (level 0
is the user's function). Each level differentiates with respect to the
first parameter, the last one (a gradient's seed, a vjp's cotangent, a
jvp's tangent) or all of them. The only refusal allowed is `grad` of a
function whose output is not a scalar (NonScalarOutputError).

The derivative's arguments are random (seeds and cotangents included), so
that a seed fixed to 1.0 or a cotangent passed in the wrong place shows.
"""
import ast
import inspect
import itertools

import numpy as np
import pytest

import tangent_ad as tad


def mul(a, b):
    return a * b


def dot(x, y):
    return np.dot(x, y)


def tensordot(x, y):
    return np.tensordot(x, y, axes=([1], [0]))


def sine(x):
    return np.sin(x)


def loop(x, w):
    s = 0.0
    for i in range(2):
        s = s + np.sin(w * x) * x
        x = x * w
    return s


_RNG = np.random.default_rng(0)
FUNCTIONS = {
    "mul": (mul, (0.7, -1.3)),
    "dot_vectors": (dot, (_RNG.normal(size=3), _RNG.normal(size=3))),
    "dot_matrices": (dot, (_RNG.normal(size=(2, 2)), _RNG.normal(size=(2, 3)))),
    "tensordot": (tensordot, (_RNG.normal(size=(2, 3)), _RNG.normal(size=3))),
    "sin": (sine, (0.4,)),
    "loop": (loop, (0.6, 0.9)),
}
TRANSFORMS = {"grad": tad.grad, "vjp": tad.vjp, "jvp": tad.jvp}


def _chains(depth):
    return list(itertools.product(TRANSFORMS, repeat=depth))


# depth 2 with each choice of wrt; depth 3 with respect to everything,
# and for two functions with respect to the first and the last parameter
CASES = [(f, wrt, chain) for f in FUNCTIONS for wrt in ("first", "last", "all")
         for chain in _chains(2)]
CASES += [(f, "all", chain) for f in FUNCTIONS for chain in _chains(3)]
CASES += [(f, wrt, chain) for f in ("mul", "sin") for wrt in ("first", "last")
          for chain in _chains(3)]


# ---- values as flat vectors -------------------------------------------------------

def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [x]


def _flat(x):
    return np.concatenate([np.ravel(np.asarray(leaf, np.float64))
                           for leaf in _leaves(x)] or [np.zeros(0)])


def _unflat(like, vector):
    """`vector` in the structure of `like` (floats stay floats)."""
    def build(x, start):
        if isinstance(x, (tuple, list)):
            items = []
            for item in x:
                value, start = build(item, start)
                items.append(value)
            return type(x)(items), start
        n = np.size(x)
        chunk = vector[start:start + n]
        return (float(chunk[0]) if isinstance(x, float) else chunk.reshape(np.shape(x))), \
            start + n
    return build(like, 0)[0]


def _random_like(x, rng):
    if isinstance(x, (tuple, list)):
        return type(x)(_random_like(item, rng) for item in x)
    if isinstance(x, float) or np.ndim(x) == 0:
        return float(rng.normal())
    return rng.normal(size=np.shape(x))


def _jacobian(h, args, positions, eps=1e-6):
    """Central differences of flat h(*args) w.r.t. the arguments at
    `positions`, flattened and concatenated: (output size, input size)."""
    columns = []
    for p in positions:
        x = args[p]
        v = _flat(x)
        for i in range(v.size):
            e = np.zeros_like(v)
            e[i] = eps
            plus, minus = list(args), list(args)
            plus[p], minus[p] = _unflat(x, v + e), _unflat(x, v - e)
            columns.append((_flat(h(*plus)) - _flat(h(*minus))) / (2 * eps))
    return np.array(columns).T.reshape(_flat(h(*args)).size, -1)


def _assert_close(actual, expected, what):
    got, want = _leaves(actual), _leaves(expected)
    assert len(got) == len(want), f"{what}: {actual!r} is not shaped like {expected!r}"
    for a, e in zip(got, want):
        assert np.shape(a) == np.shape(e), f"{what}: shape {np.shape(a)}, not {np.shape(e)}"
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6, err_msg=what)


# ---- one level --------------------------------------------------------------------

def _level(h, args, transform, wrt, rng, after_grad):
    """Apply `transform` to `h` (which takes `args`), check it against
    finite differences of `h`; return it and the arguments it takes (None
    when it is refused, as it must be, for a non-scalar output)."""
    count = len(args)
    positions = {"first": (0,), "last": (count - 1,), "all": tuple(range(count))}[wrt]
    derivative = TRANSFORMS[transform](h, wrt=positions)
    # reverse mode over a gradient fixes its seed at 1.0 unless it is differentiated
    drops_seed = after_grad and transform != "jvp" and count - 1 not in positions
    if drops_seed:
        args = args[:-1] + (1.0,)
    kept = args[:-1] if drops_seed else args
    out = h(*args)
    jacobian = _jacobian(h, args, positions)
    if transform == "jvp":
        tangents = tuple(_random_like(args[p], rng) for p in positions)
        expected = (out, _unflat(out, jacobian @ _flat(tangents)))
        new_args = kept + tangents
    else:
        if transform == "grad" and np.size(_flat(out)) != 1 or \
                transform == "grad" and isinstance(out, (tuple, list)):
            with pytest.raises(tad.NonScalarOutputError):
                derivative(*kept, 1.0)
            return None, None
        seed = float(rng.normal()) if transform == "grad" else _random_like(out, rng)
        gradient = _unflat(tuple(args[p] for p in positions), jacobian.T @ _flat(seed))
        expected = gradient[0] if len(positions) == 1 else gradient
        new_args = kept + (seed,)
    _assert_close(derivative(*new_args), expected, f"{derivative.__name__}{new_args!r}")
    return derivative, new_args


_CHECKED = {}  # (function, wrt, chain) -> (derivative, its arguments), checked


def _run(name, wrt, chain):
    """The derivative `chain` makes of the function `name`, each level
    checked (the levels a shorter chain checked already are reused);
    None when the last one is refused."""
    key = (name, wrt, tuple(chain))
    if key not in _CHECKED:
        if len(chain) == 0:
            _CHECKED[key] = FUNCTIONS[name]
        else:
            h, args = _run(name, wrt, chain[:-1])
            rng = np.random.default_rng(len(chain))
            after_grad = len(chain) > 1 and chain[-2] == "grad"
            _CHECKED[key] = _level(h, args, chain[-1], wrt, rng, after_grad) \
                if h is not None else (None, None)
    return _CHECKED[key]


@pytest.mark.parametrize("name, wrt, chain", CASES,
                         ids=[f"{n}-{w}-{'('.join(reversed(c))}" for n, w, c in CASES])
def test_a_composition_is_right_or_refused(name, wrt, chain):
    _run(name, wrt, chain)


def test_the_cases_cover_every_chain_of_depth_two_and_three():
    chains = {chain for _, _, chain in CASES}
    assert chains == set(_chains(2)) | set(_chains(3))
    assert len(chains) == 9 + 27


@pytest.mark.parametrize("name", ["mul", "sin", "dot_vectors"])
@pytest.mark.parametrize("chain", [("vjp", "jvp", "vjp"), ("vjp", "vjp", "vjp"),
                                   ("grad", "jvp", "vjp"), ("jvp", "vjp", "vjp")],
                         ids=["vjp(jvp(vjp", "vjp(vjp(vjp", "vjp(jvp(grad", "vjp(vjp(jvp"])
def test_no_two_functions_in_a_source_share_a_name(name, chain):
    derivative, _ = _run(name, "all", chain)
    functions = {}
    for node in ast.parse(tad.show_source(derivative)).body:
        if isinstance(node, ast.FunctionDef):
            text = ast.unparse(node)
            assert functions.setdefault(node.name, text) == text, \
                f"two different functions named {node.name}"
    assert len(functions) > 3
    assert inspect.signature(derivative).parameters
