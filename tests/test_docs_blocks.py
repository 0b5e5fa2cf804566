"""Every ```python block of README.md and docs/*.md runs as written.

The blocks of one page run in order in one namespace, as a reader pasting
them one after another into a session would. Two markers, an HTML comment on
the line before a block, change that:

- ``<!-- no-run -->``: the block is not meant to run (a template, a fragment).
- ``<!-- output -->``: the block is what the block before it prints (for
  example a ``show_source`` listing); it must equal that output.

A page that imports an optional library which is not installed (Dask, say)
is skipped from that block on.

A block written as an interactive session (``>>>`` prompts) runs as a
doctest: each printed result must match.

Each block is written to a file before it runs, so tangent_ad can read the
source of the functions it defines, as it would in a user's script.
"""
import contextlib
import doctest
import io
import linecache
import os
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
MARKER = re.compile(r"<!--\s*(no-run|output)\s*-->\s*$")


def blocks(page):
    """``(line number, marker or None, code)`` for each python block of `page`."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").splitlines()
        marker = MARKER.search(before[-1]) if before else None
        line = text.count("\n", 0, match.start()) + 1
        found.append((line, marker.group(1) if marker else None, match.group(1)))
    return found


def test_pages_have_blocks():
    assert sum(len(blocks(page)) for page in PAGES) > 20


def test_no_run_list_stays_short():
    skipped = [(page.name, line) for page in PAGES
               for line, marker, _ in blocks(page) if marker == "no-run"]
    assert len(skipped) <= 12, skipped


def test_api_page_lists_every_public_name_with_its_signature():
    import inspect

    import tangent_ad

    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for name in tangent_ad.__all__:
        value = getattr(tangent_ad, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert f"| `{name}` |" in text, f"docs/api.md does not list {name}"
        else:
            assert f"### {name}\n" in text, f"docs/api.md has no section for {name}"
            signature = f"`{name}{inspect.signature(value)}`"
            assert signature in text, f"docs/api.md: the signature is now {signature}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_blocks_run(page, tmp_path, monkeypatch):
    from tangent_ad.registry import REGISTRY

    before = set(sys.modules)
    try:
        with REGISTRY.scoped():  # the rules a page registers stay on that page
            run_page(page, tmp_path, monkeypatch)
    finally:  # and so do the modules it wrote and imported
        for name in set(sys.modules) - before:
            if str(getattr(sys.modules[name], "__file__", "")).startswith(str(tmp_path)):
                del sys.modules[name]


def run_page(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    printed, failures = None, []
    for line, marker, code in blocks(page):
        where = f"{page.name}:{line}"
        if marker == "no-run":
            continue
        if marker == "output":
            if printed is None:
                failures.append(f"{where}: an output block must follow a block that prints")
            elif printed.strip() != code.strip():
                failures.append(f"{where}: the listing differs from what the block "
                                f"before it prints:\n{printed}")
            printed = None
            continue
        path = tmp_path / f"{page.stem}_{line}.py"
        try:
            if code.lstrip().startswith(">>>"):
                printed = None
                problem = run_doctest(code, namespace, path, line)
                if problem:
                    failures.append(f"{where}: {problem}")
            else:
                printed = run_script(code, namespace, path)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] in ("tangent_ad", "numpy"):
                raise
            if not failures:  # an optional library (Dask, SciPy) this page uses
                pytest.skip(f"{where} needs {exc.name}, which is not installed")
            failures.append(f"{where}: {type(exc).__name__}: {exc}")
            printed = None
        except Exception as exc:
            failures.append(f"{where}: {type(exc).__name__}: {exc}")
            printed = None
    assert not failures, "\n\n".join(failures)


def run_script(code, namespace, path):
    """Run `code` in `namespace` from the file `path`; return what it printed."""
    path.write_text(code, encoding="utf-8")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, str(path), "exec"), namespace)
    return buffer.getvalue()


def run_doctest(code, namespace, path, line):
    """Run the session `code` as a doctest in `namespace`; a report or ''."""
    path.write_text(code, encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(code, namespace, path.stem, str(path), line)
    for number, example in enumerate(test.examples):  # as IPython keeps each cell's
        name = f"<doctest {test.name}[{number}]>"     # source, for later blocks
        lines = example.source.splitlines(keepends=True)
        linecache.cache[name] = (len(example.source), None, lines, name)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=report.write, clear_globs=False)
    namespace.update(test.globs)  # the test ran on a copy
    return report.getvalue() if runner.failures else ""
