"""Builtins on differentiated values (sorted, min/max, reversed, list,
tuple, dict, d.get, dict views, loops over pairs), in every mode.

Each case is checked against central differences at random points: grad,
jvp and hvp, optimized and not (``corpus.check_all_modes``), and its
gradient keeps a float32 argument's dtype and shape.
"""
import numpy as np
import pytest

import tangent_ad as tad
import builtin_form_functions as bf
from corpus import check_all_modes
from tangent_ad.runtime import ordering
from tangent_ad.testing import check_grads

CASES = [
    "sorted_items", "sorted_with_key_and_reverse", "sorted_generator", "min_max_of_a_list",
    "min_max_with_key", "reversed_loop", "list_and_tuple", "dict_builtin", "dict_of_written_items", "dict_get",
    "dict_views_in_loops", "loop_over_pairs", "loop_over_a_slice", "small_builtins",
    "array_attributes",
]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("seed", range(2))
def test_every_mode_matches_finite_differences(name, seed):
    w = np.random.default_rng(seed).uniform(-1.0, 1.0, size=3)
    check_all_modes(getattr(bf, name), (w,))


@pytest.mark.parametrize("name", CASES)
def test_float32_gradient_keeps_dtype_and_shape(name):
    w = np.random.default_rng(11).uniform(-1.0, 1.0, size=3).astype(np.float32)
    f = getattr(bf, name)
    g = tad.grad(f)(w)
    assert g.dtype == np.float32 and g.shape == (3,)
    check_grads(f, tad.grad(f), (w,))


def test_sorted_reads_the_items_through_their_order():
    source = tad.show_source(tad.grad(bf.sorted_items))
    assert "sort_order(" in source


def test_positions_agree_with_the_builtins():
    rng = np.random.default_rng(3)
    for _ in range(20):
        xs = list(rng.integers(0, 4, size=6).astype(float))  # ties included
        key = lambda a: (a - 1.5) ** 2  # noqa: E731
        assert [xs[i] for i in ordering.sort_order(xs, key, True)] == \
            sorted(xs, key=key, reverse=True)
        assert xs[ordering.extreme_index(xs, True, key)] == max(xs, key=key)
        assert ordering.extreme_index(xs, False) == xs.index(min(xs))
        assert [xs[i] for i in ordering.reversed_indices(xs)] == list(reversed(xs))


def sorted_keys(w):
    d = {1: w[0], 0: w[1]}
    return d[sorted(d)[0]] * 2.0


def test_sorted_of_a_dict_goes_through_its_keys():
    # sorted(d) is a list of keys; once it was read as positions, which
    # would pick the wrong items (d[1] for the key 0 here), then refused;
    # now it is the keys, as in Python (autograd's test_dict.py::test_iter)
    for fn in (sorted_keys, lambda_free_sorted_list_keys):
        np.testing.assert_array_equal(tad.grad(fn)(np.array([0.5, -0.2])), [0.0, 2.0])


def lambda_free_sorted_list_keys(w):
    d = {1: w[0], 0: w[1]}
    return d[sorted(list(d))[0]] * 2.0


def rebinds_the_dict_it_loops_over(w):
    d = {"a": w, "b": w * 2.0}
    s = 0.0
    for k, v in d.items():
        s = s + np.sum(v)
        d = {"a": w * 10.0, "b": w * 20.0}
    return s


def test_a_loop_that_rebinds_its_dict_is_not_read_through_the_new_one():
    # `for k in d: v = d[k]` would read the new dict's values from the second
    # pass on (Python's items() keeps the old one): left as written, refused
    with pytest.raises(tad.UnsupportedSyntaxError, match="items"):
        tad.grad(rebinds_the_dict_it_loops_over)


def _sorted_views(d):
    a = 0.0
    for i, (k, v) in enumerate(sorted(d.items(), key=lambda kv: kv[0])):
        a = a + np.sum(np.sin(v)) * (i + 1.0)
    for k in sorted(d.keys()):
        a = a + np.sum(np.cos(d[k]))
    return a + np.sum(max(d.values(), key=np.sum))


def test_sorted_min_max_of_a_dicts_views():
    # autograd's test_dict.py::test_items_values_keys
    d = {"b": np.ones(2), "a": np.arange(3.0)}
    got = tad.grad(_sorted_views)(d)
    np.testing.assert_allclose(got["a"], np.cos(d["a"]) - np.sin(d["a"]) + 1.0)
    np.testing.assert_allclose(got["b"], 2 * np.cos(d["b"]) - np.sin(d["b"]))
