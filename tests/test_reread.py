"""Generated code read again has its own front end (``frontend/reread.py``):
the user's stages read the user's Python only."""
import ast
import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.errors import UnsupportedSyntaxError

FRONTEND = Path(tad.__file__).parent / "frontend"
# the two modules that know what generated code looks like
DIALECT = {"reread.py", "generated.py"}


def _reads_the_generated_fact(tree):
    """Line numbers of the calls of ``generated.is_generated`` and the
    reads of ``ctx.facts["generated"]`` in a module's tree."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == "generated" or \
                isinstance(node, ast.Attribute) and node.attr == "is_generated":
            yield node.lineno


def test_no_user_stage_branches_on_generated_code():
    found = {}
    for path in sorted(FRONTEND.glob("*.py")):
        if path.name not in DIALECT:
            lines = list(_reads_the_generated_fact(ast.parse(path.read_text())))
            if lines:
                found[path.name] = len(lines)
    # mutation asks whether a *called* object is a derivative (whose
    # arguments it must not write into): a question about the user's code
    assert found == {"mutation.py": 1}


def _stages_run(func):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        tad.grad(func, verbose=2)
    return [line[len("# after "):-1] for line in out.getvalue().splitlines()
            if line.startswith("# after ")]


def cubic(x):
    y = np.sin(x) * x
    for _ in range(3):
        if y > 0:
            y = y * x
        else:
            y = y + x
    return y


def test_a_gradient_is_read_by_reread_not_by_the_user_stages():
    user = _stages_run(cubic)
    assert "validate" in user and "reread" not in user
    again = _stages_run(tad.grad(cubic))
    assert "reread" in again
    assert not {"validate", "statements", "comprehensions", "resolve",
                "normalize"} & set(again)


@pytest.mark.parametrize("x", [0.7, -1.3, 2.1])
def test_third_derivative_through_reread_matches_finite_differences(x):
    second = tad.grad(tad.grad(cubic))
    third = tad.grad(second)
    h = 1e-5
    assert third(x) == pytest.approx((second(x + h) - second(x - h)) / (2 * h), rel=1e-5)


def masked(x):
    keep = (x > 0) | (x < -1)
    return np.sum(np.where(keep, x, 0.0) ** 2)


def test_a_users_mask_operator_is_still_refused():
    with pytest.raises(UnsupportedSyntaxError, match="BitOr"):
        tad.grad(masked)(np.ones(3))
