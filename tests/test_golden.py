"""The generated source of a few functions, pinned: readability is a product.

A change to the generated code shows up here as a diff to review. After a
deliberate change, rewrite the files with
``TANGENT_AD_UPDATE_GOLDEN=1 ./scripts/test tests/test_golden.py``.
"""
import os
import pathlib

import pytest

import tangent_ad as tad
from golden_functions import GOLDEN

HERE = pathlib.Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_generated_source_matches_golden(name):
    func, wrt = GOLDEN[name]
    source = tad.show_source(tad.grad(func, wrt=wrt))
    path = HERE / f"{name}.py"
    if os.environ.get("TANGENT_AD_UPDATE_GOLDEN"):
        path.write_text(source)
    assert source == path.read_text()


def test_tanh_sum_is_short_and_readable():
    func, wrt = GOLDEN["tanh_sum"]
    source = tad.show_source(tad.grad(func, wrt=wrt))
    body = [l.strip() for l in source.splitlines()[1:]]
    statements = [l for l in body if l and not l.startswith("#")]
    assert len(statements) <= 8
    assert "# Grad of: return np.sum(np.tanh(x) * 2.0)" in body
    assert "bx" in source and "* 1.0" not in source


def test_mlp_has_no_dead_statements_or_multiplication_by_one():
    func, wrt = GOLDEN["mlp"]
    source = tad.show_source(tad.grad(func, wrt=wrt))
    assert "* 1.0" not in source and "* 1)" not in source
    assert "bx =" not in source and "by =" not in source
    assigned = [l.split("=")[0].strip() for l in source.splitlines()
                if " = " in l and not l.strip().startswith("#")]
    for name in assigned:
        later = source.split(f"{name} = ", 1)[1]
        assert name in later.split("\n", 1)[1] or f"return {name}" in source, name
