"""match, the walrus operator, star-unpacking, nested unpacking, a loop
over ``zip(*f(x))``, functools.reduce, assert, raise and del, in every mode
(statements.py).

Each case is checked against central differences at random points: grad,
jvp and hvp, optimized and not (``corpus.check_all_modes``), and its
gradient keeps a float32 argument's dtype and shape.
"""
import functools

import numpy as np
import pytest

import tangent_ad as tad
import syntax_functions as sf
from corpus import check_all_modes
from tangent_ad.testing import check_grads

CASES = [
    ("match_literals", (0,)), ("match_literals", (2,)), ("match_literals", (7,)),
    ("match_literals", (4,)), ("match_without_return", ("sq",)),
    ("match_without_return", ("cos",)), ("match_without_return", ("none",)),
    ("walrus_in_conditions", ()), ("star_unpacking", ()), ("nested_unpacking", ()),
    ("reduce_forms", ()), ("assert_and_del", ()), ("chained_comparison", ()),
    ("raise_in_a_check", ()), ("raise_ends_a_path", ("sum",)), ("raise_ends_a_path", ("prod",)),
    ("zip_of_a_spread_call", ()), ("f_strings_as_values", ()), ("set_comprehension", ()),
]


@pytest.mark.parametrize("name, extra", CASES)
@pytest.mark.parametrize("seed", range(2))
def test_every_mode_matches_finite_differences(name, extra, seed):
    w = np.random.default_rng(seed).uniform(-1.0, 1.0, size=3)
    check_all_modes(getattr(sf, name), (w,) + extra)


@pytest.mark.parametrize("name, extra", CASES)
def test_float32_gradient_keeps_dtype_and_shape(name, extra):
    w = np.random.default_rng(5).uniform(-1.0, 1.0, size=3).astype(np.float32)
    f = getattr(sf, name)
    g = tad.grad(f)(w, *extra)
    assert g.dtype == np.float32 and g.shape == (3,)
    check_grads(f, tad.grad(f), (w,) + extra)


def test_the_big_walrus_value_is_returned():
    w = np.array([3.0, 2.0, 1.0])  # sum of squares 14 > 10: returns s
    np.testing.assert_allclose(tad.grad(sf.walrus_in_conditions)(w), 2.0 * w)


def walrus_read_twice(w):
    x = np.sum(w) + (s := np.sum(w * w)) * 0.0
    return x + s


def walrus_reads_the_old_value(w):
    s = np.sum(w)
    y = s * (s := 2.0)  # Python reads the old s first
    return y + s


def walrus_in_a_comprehension(w):
    return sum([(t := v * 2.0) for v in w]) + t


def match_a_sequence(w):
    match [w[0], w[1]]:
        case [a, b]:
            return a * b
    return w[0]


def star_unpack_too_few(w):
    a, *b, c = [w[0]]
    return a * c


@pytest.mark.parametrize("func, message", [
    (walrus_reads_the_old_value, "read in the same statement"),
    (walrus_in_a_comprehension, "not inside a lambda, comprehension"),
    (match_a_sequence, "pattern is not supported"),
])
def test_what_cannot_be_rewritten_is_refused_at_its_line(func, message):
    with pytest.raises(tad.UnsupportedSyntaxError, match=message) as info:
        tad.grad(func)
    assert info.value.lineno is not None and info.value.hint
    assert info.value.filename.endswith("test_syntax.py")


def test_a_walrus_used_after_its_statement_is_fine():
    w = np.array([0.2, -0.4, 0.9])
    check_grads(walrus_read_twice, tad.grad(walrus_read_twice), (w,))


def test_star_unpacking_checks_the_length_as_python_does():
    with pytest.raises(AssertionError, match="not enough values"):
        tad.grad(star_unpack_too_few)(np.array([1.0, 2.0]))
    with pytest.raises(ValueError):
        star_unpack_too_few(np.array([1.0, 2.0]))


def test_a_spread_zip_checks_the_count_of_sequences():
    def two_of_three(w):
        total = 0.0
        for a, b in zip(*sf._three_parts(w)):
            total = total + a * b
        return total
    with pytest.raises(AssertionError, match="zip"):
        tad.grad(two_of_three)(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError):
        two_of_three(np.array([1.0, 2.0, 3.0]))


def test_reduce_is_a_readable_loop():
    source = tad.show_source(tad.grad(sf.reduce_forms))
    assert "for i in range(1, len(seq)):" in source
    assert functools.reduce  # the function itself is never called


def test_raise_runs_in_the_forward_sweep():
    # the derivative raises what the function raises, where it raises it
    with pytest.raises(ValueError, match="out of range"):
        tad.grad(sf.raise_in_a_check)(np.array([20.0, 0.0]))
    for transform, extra in [(tad.grad, ()), (tad.jvp, (np.ones(2),))]:
        with pytest.raises(ValueError, match="unknown mode 'max'"):
            transform(sf.raise_ends_a_path)(np.ones(2), "max", *extra)
