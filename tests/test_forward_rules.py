"""Every forward rule against central finite differences, from the rule table.

The specs of ``rule_specs.py`` (the table the reverse rules are checked
with) become functions returning the expression itself::

    def f_17(x, y):
        v = x * y
        return v

so the tangent is checked element by element against the central
difference of the value along random tangents of all the spec's
arguments (``tangent_ad.testing.check_jvp``), in float64 and in float32,
where a float32 value must get a float32 tangent. The reverse rules'
expected failures do not apply here; forward mode's own are listed in
FORWARD_XFAIL.
"""
import importlib.util
import zlib

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.registry import REGISTRY
from tangent_ad.testing import check_jvp, random_args

from rule_specs import NAMESPACE, SPECS

FORWARD_XFAIL = {}  # spec id -> {dtype name: reason}, or a reason for both

MODULE_HEADER = '''\
"""Written by tests/test_forward_rules.py: one function per rule spec."""
import math

import numpy as np
from tangent_ad.runtime import appended, concatenated, iterated, repeated, updated, updated_tangent
from tangent_ad.runtime import built, call_value, formatted, jvp_function, vjp_function
from rule_specs import Pair, ode_rhs
from tangent_ad.runtime.ordering import extreme_index, reversed_indices, sort_order
''' + ("import scipy.special\nimport scipy.integrate\n" if "scipy" in NAMESPACE else "")


@pytest.fixture(scope="session")
def forward_rule_functions(tmp_path_factory):
    """{spec id: the spec's function}, from one module written for the table."""
    names = {spec.id: f"f_{n}" for n, spec in enumerate(SPECS)}
    source = "\n\n".join([MODULE_HEADER] + [
        f"def {names[spec.id]}({', '.join(spec.shapes)}):\n"
        f"    v = {spec.expr}\n"
        f"    return v\n" for spec in SPECS])
    path = tmp_path_factory.mktemp("forward_rules") / "forward_rule_functions.py"
    path.write_text(source)
    loader_spec = importlib.util.spec_from_file_location("forward_rule_functions", path)
    module = importlib.util.module_from_spec(loader_spec)
    loader_spec.loader.exec_module(module)
    return {spec_id: getattr(module, name) for spec_id, name in names.items()}


def sample(spec, dtype):
    """Seeded arguments in the spec's domain (the seeds of the reverse table)."""
    seed = zlib.crc32(spec.id.encode())
    return [random_args([shape], dtype=dtype, seed=seed + n, low=low, high=high)[0]
            for n, (shape, (low, high))
            in enumerate(zip(spec.shapes.values(), spec.domains.values()))]


def params(dtype):
    out = []
    for spec in SPECS:
        reason = FORWARD_XFAIL.get(spec.id)
        if isinstance(reason, dict):
            reason = reason.get(np.dtype(dtype).name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(spec, id=spec.id, marks=marks))
    return out


def check_rule(spec, f, dtype):
    args = sample(spec, dtype)
    wrt = tuple(range(len(args)))
    check_jvp(f, tad.jvp(f, wrt=wrt), args, wrt=wrt, **spec.tolerance(dtype))


@pytest.mark.parametrize("spec", params(np.float64))
def test_forward_rule_float64(spec, forward_rule_functions):
    check_rule(spec, forward_rule_functions[spec.id], np.float64)


@pytest.mark.parametrize("spec", params(np.float32))
def test_forward_rule_float32(spec, forward_rule_functions):
    check_rule(spec, forward_rule_functions[spec.id], np.float32)


def test_every_forward_rule_has_a_spec():
    """The rules of the runtime helpers (in runtime_forward.py and
    runtime_linalg_forward.py, or beside
    the rules of their family, e.g. numpy_fft_forward.py) are checked
    through jvp of gradients instead (tests/test_forward.py and the
    second-order tests of test_numpy_rules.py)."""
    covered = {spec.key for spec in SPECS}
    missing = sorted(getattr(f, "__name__", repr(f))
                     for f in REGISTRY.functions("forward") if f not in covered
                     and REGISTRY.lookup("forward", f).__module__
                     != "tangent_ad.templates.runtime_forward"
                     and not getattr(f, "__module__", "").startswith("tangent_ad.runtime"))
    assert not missing, f"forward rules without a spec in tests/rule_specs.py: {missing}"


def test_expected_failures_name_real_specs():
    ids = {spec.id for spec in SPECS}
    listed = {i for i in FORWARD_XFAIL if "scipy" in NAMESPACE or not i.startswith("scipy.")}
    assert not listed - ids
