"""show_source in notebooks and terminals (tangent_ad/display.py).

The returned text is a str equal to the plain source; Jupyter renders it
through ``_repr_html_`` (highlighted with Pygments when installed, a plain
``<pre>`` otherwise) and IPython through ``_repr_pretty_``. The last test runs
a real notebook in a kernel when nbclient and ipykernel are installed.
"""
import html
import os
import sys
import textwrap

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import display


def clipped(x):
    y = np.where(x < 0.0, 0.0, x)
    return np.sum(y * y)


def plain_source(df):
    from tangent_ad import loader
    found, _ = loader.units(df.__tangent_ad__)
    return "\n\n".join(unit.source for unit in found)


def test_show_source_is_a_str_with_the_same_value():
    df = tad.grad(clipped)
    text = tad.show_source(df)
    assert isinstance(text, str) and isinstance(text, display.SourceText)
    assert text == plain_source(df)
    assert str(text) == text and type(str(text)) is str
    assert repr(text) == repr(str(text))        # the value is unchanged
    assert text.splitlines()[0].startswith("def dclipped_dx(")
    assert np.allclose(df(np.array([-1.0, 2.0])), [0.0, 4.0])


def test_html_without_pygments_is_an_escaped_pre_block(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)  # import fails
    text = tad.show_source(tad.grad(clipped))
    rendered = text._repr_html_()
    assert rendered == f"<pre><code>{html.escape(text)}</code></pre>"
    assert "x &lt; 0.0" in rendered and "x < 0.0" not in rendered


def test_html_with_pygments_is_highlighted():
    pytest.importorskip("pygments")
    text = tad.show_source(tad.grad(clipped))
    rendered = text._repr_html_()
    assert "<span" in rendered and "style=" in rendered  # inline colours, no CSS
    assert "dclipped_dx" in rendered and "x < 0.0" not in rendered
    words = [w for w in text.split() if w.isidentifier()]
    assert all(w in rendered for w in words)


class Printer:
    """The part of IPython's pretty printer that _repr_pretty_ uses."""

    def __init__(self):
        self.parts = []

    def text(self, part):
        self.parts.append(part)


def test_pretty_repr_is_the_code_itself(monkeypatch):
    monkeypatch.setattr(display, "_is_terminal", lambda: False)
    text = tad.show_source(tad.grad(clipped))
    printer = Printer()
    text._repr_pretty_(printer, cycle=False)
    assert "".join(printer.parts) == text.rstrip("\n")


def test_pretty_repr_is_coloured_on_a_terminal(monkeypatch):
    pytest.importorskip("pygments")
    monkeypatch.setattr(display, "_is_terminal", lambda: True)
    text = tad.show_source(tad.grad(clipped))
    printer = Printer()
    text._repr_pretty_(printer, cycle=False)
    shown = "".join(printer.parts)
    assert "\x1b[" in shown and "dclipped_dx" in shown


NOTEBOOK_CELLS = [
    "import numpy as np\nimport tangent_ad as tad",
    textwrap.dedent("""\
        def loss(w, x):
            return np.sum(np.tanh(x @ w) ** 2)"""),
    "dloss = tad.grad(loss)\n"
    "float(np.sum(dloss(np.ones(3), np.eye(3))))",
    "tad.show_source(dloss)",
]


def test_a_notebook_displays_highlighted_source(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(cell) for cell in NOTEBOOK_CELLS]
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = root + (os.pathsep + path if path else "")
    try:
        client.execute()
    finally:
        os.environ["PYTHONPATH"] = path
    def result(cell):  # a stream output (a slow-step warning, say) may come first
        return next(out["data"] for out in cell.outputs
                    if out["output_type"] == "execute_result")

    gradient_cell = result(notebook.cells[2])["text/plain"]
    want = float(np.sum(2 * np.tanh(1.0) * (1 - np.tanh(1.0) ** 2) * np.ones(3)))
    assert float(gradient_cell) == pytest.approx(want)
    shown = result(notebook.cells[3])
    assert "text/html" in shown
    assert "dloss_dw" in shown["text/html"]
    assert shown["text/html"].startswith(("<pre>", "<div"))
    assert shown["text/plain"].startswith("def dloss_dw(")  # not an escaped repr
