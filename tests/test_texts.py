"""tangent_ad keeps the texts it compiles (``tangent_ad/texts.py``): after
``linecache.clearcache()`` every derivative that reads generated code back
(a rule table's template on its first use, ``grad(grad(f))``, ``hvp``, a
caller of a gradient) still works, and a traceback's note still shows the
generated line. Run in a child process, so that clearing the cache touches
no other test."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tangent_ad import texts

CHILD = textwrap.dedent('''
    import linecache, sys, traceback
    import numpy as np
    import tangent_ad as tad
    from tangent_ad.registry import REGISTRY
    from tangent_ad.templating import templates

    def f(x):
        return np.sum(np.sin(x) * x)

    x = np.array([0.3, 0.7, 1.1])
    g = tad.grad(f)
    g(x)
    linecache.clearcache()
    templates.parse.cache_clear()  # read every template again, as on first use
    h = tad.grad(lambda x: np.sum(g(x)))
    print("hvp-sum", h(x).tolist())
    print("hvp", tad.hvp(f)(x, np.ones(3)).tolist())
    print("jvp", tad.jvp(tad.grad(f))(x, 1.0, np.ones(3))[1].tolist())
    print("arccosh", tad.grad(lambda t: np.arccosh(t))(2.0))
    linecache.clearcache()
    print("source", "def df" in tad.show_source(tad.grad(f)))
    gl = tad.grad(lambda x: x[5] * 2.0)
    gl(np.zeros(8))
    linecache.clearcache()
    try:
        gl(np.zeros(2))
    except IndexError as exc:
        print("note", " | ".join(getattr(exc, "__notes__", [])).replace("\\n", " | "))
''')


@pytest.fixture(scope="module")
def child_output(tmp_path_factory):
    script = tmp_path_factory.mktemp("texts") / "child.py"
    script.write_text(CHILD)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


def _values(text):
    return np.array(eval(text))  # noqa: S307 - our child's own printed list


def test_second_derivatives_after_the_cache_is_cleared(child_output):
    x = np.array([0.3, 0.7, 1.1])
    hessian_diagonal = 2 * np.cos(x) - x * np.sin(x)  # f = sum(x sin x): H is diagonal
    np.testing.assert_allclose(_values(child_output["hvp-sum"]), hessian_diagonal, rtol=1e-12)
    np.testing.assert_allclose(_values(child_output["hvp"]), hessian_diagonal, rtol=1e-12)
    np.testing.assert_allclose(_values(child_output["jvp"]), hessian_diagonal, rtol=1e-12)


def test_a_template_first_read_after_the_cache_is_cleared(child_output):
    assert float(child_output["arccosh"]) == pytest.approx(1 / np.sqrt(3.0), rel=1e-12)


def test_show_source_and_notes_after_the_cache_is_cleared(child_output):
    assert child_output["source"] == "True"
    assert "raised in the generated" in child_output["note"]
    assert "x[5]" in child_output["note"], child_output["note"]


def test_a_kept_text_is_put_back_into_linecache():
    import linecache
    filename = "<tangent_ad test kept text>"
    texts.register(filename, "def kept(x):\n    return x\n")
    linecache.cache.pop(filename)
    assert texts.lines(filename) == ["def kept(x):\n", "    return x\n"]
    assert linecache.getlines(filename) == ["def kept(x):\n", "    return x\n"]


def test_unique_filenames_keep_each_text():
    first = texts.unique_filename("<tangent_ad test unique>", "a = 1\n")
    texts.register(first, "a = 1\n")
    assert texts.unique_filename("<tangent_ad test unique>", "a = 1\n") == first
    second = texts.unique_filename("<tangent_ad test unique>", "a = 2\n")
    assert second == "<tangent_ad test unique #2>"
