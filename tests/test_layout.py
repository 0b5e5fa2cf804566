"""The package's layering (issue 15): the general passes in
``tangent_ad/optimize`` never import call-time specialization
(``tangent_ad/staging``), which runs them; the analyses in
``tangent_ad/analysis`` import neither; compilation (``tangent_ad/compiled``)
imports neither staging nor the transforms that run it."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tangent_ad"


def _imported(path):
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


@pytest.mark.parametrize("package,forbidden", [
    ("optimize", ("tangent_ad.staging",)),
    ("analysis", ("tangent_ad.staging", "tangent_ad.optimize")),
    ("compiled", ("tangent_ad.staging", "tangent_ad.api")),
])
def test_a_package_does_not_import_what_runs_it(package, forbidden):
    modules = sorted((PACKAGE / package).glob("*.py"))
    assert modules
    for path in modules:
        bad = [m for m in _imported(path) if m.startswith(forbidden)]
        assert not bad, f"{path.name} imports {bad}"



def test_the_save_seam_depends_on_nothing_but_the_nodes():
    """``saves.py`` is read by reverse and forward mode, the front end,
    DCE and staging: it may import none of them."""
    own = {m for m in _imported(PACKAGE / "saves.py") if m.startswith("tangent_ad")}
    assert own and all(m == "tangent_ad.nodes" or m.startswith("tangent_ad.nodes.")
                       for m in own), own
