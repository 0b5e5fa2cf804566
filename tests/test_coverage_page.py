"""docs/numpy-coverage.md must be what scripts/coverage_table.py writes now.

The page lists the registry; a rule added or removed without regenerating
it fails here. Without SciPy the page's scipy.special section (whose rules
are not loaded then) is left out of the comparison.
"""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def coverage_table():
    spec = importlib.util.spec_from_file_location(
        "coverage_table", ROOT / "scripts" / "coverage_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_coverage_page_is_current(coverage_table):
    page = coverage_table.PAGE.read_text()
    if coverage_table.special is None:
        page = coverage_table.drop_section(page, coverage_table.SCIPY_HEADING)
    assert page == coverage_table.render(), (
        "docs/numpy-coverage.md is stale: run "
        ".venv/bin/python scripts/coverage_table.py and commit the page")


def test_page_counts_numpy_callables(coverage_table):
    total = coverage_table.count(coverage_table.np) + \
        coverage_table.count(coverage_table.np.linalg) + coverage_table.count(coverage_table.np.fft)
    assert f"**{total} NumPy callables**" in coverage_table.render()


def test_drop_section_removes_only_that_section(coverage_table):
    text = "# Title\n\nintro\n\n## a\n\nrow a\n\n## b\n\nrow b\n"
    assert coverage_table.drop_section(text, "## a") == "# Title\n\nintro\n\n## b\n\nrow b\n"
