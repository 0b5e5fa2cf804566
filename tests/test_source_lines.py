"""``source_lines.read`` gives what ``inspect.getsourcelines`` gives, or
None (then the front end asks inspect): for every function of the
repository and of a sample of the standard library, for live functions,
and for text made to mislead a reader that goes by indentation."""
import ast
import functools
import inspect
import linecache
import sys
import sysconfig
import textwrap
import types
from pathlib import Path

import pytest

from tangent_ad.frontend import source_lines

ROOT = Path(__file__).resolve().parent.parent
REPOSITORY = sorted(p for folder in ("tangent_ad", "templates", "tests", "benchmarks", "examples")
                    for p in (ROOT / folder).rglob("*.py"))
STDLIB = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[::4]
sys.path.insert(0, str(ROOT / "benchmarks"))


def code_objects(code):
    """The code objects inside `code`, nested ones included."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from code_objects(const)


def is_def(code):
    """A def's code (not a class body, a lambda or a comprehension)."""
    return bool(code.co_flags & inspect.CO_NEWLOCALS) and not code.co_name.startswith("<")


def check(own):
    """`read(own)` is inspect's answer, or None; whether it answered."""
    found = source_lines.read(own)
    if found is None:
        return False
    lines, first = inspect.getsourcelines(own)
    assert (found.lines, found.first_line) == (lines, first), own
    assert found.filename == (inspect.getsourcefile(own) or inspect.getfile(own))
    assert found.dedented == textwrap.dedent("".join(lines))
    assert ast.dump(found.tree, include_attributes=True) == \
        ast.dump(ast.parse(found.dedented), include_attributes=True)
    return True


def check_file(path, counts):
    try:
        text = path.read_text(encoding="utf-8")
        module = compile(text, str(path), "exec", dont_inherit=True)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return
    for code in code_objects(module):
        read = check(code)
        if is_def(code):
            counts[read] += 1


def test_repository_functions():
    counts = {True: 0, False: 0}
    for path in REPOSITORY:
        check_file(path, counts)
    assert counts[True] > 4000
    assert counts[False] <= 0.01 * counts[True], counts


def test_standard_library_functions():
    counts = {True: 0, False: 0}
    for path in STDLIB:
        check_file(path, counts)
    assert counts[False] <= 0.02 * counts[True], counts


def _wrapping(func):
    @functools.wraps(func)
    def wrapper(*args):
        return func(*args)
    return wrapper


def _plain(func):
    return func


@_plain
@_plain
def decorated(x):
    return x  # a trailing comment on the last line


@_wrapping
def wrapped(x):
    return x


class Holder:
    @staticmethod
    def method(x):
        def inner(y):
            return y
        return inner(x)

        # a comment the block keeps (indented as the body)


def test_live_functions():
    import long_function
    assert check(decorated) and check(Holder.method) and check(long_function.long_model)
    assert check(wrapped.__code__)
    assert source_lines.read(wrapped) is None  # (inspect reads what it wraps)
    assert check(long_function.with_blocks(3))  # a text linecache holds
    assert source_lines.read(len) is None and source_lines.read(lambda x: x) is None
    inner = next(c for c in code_objects(Holder.method.__code__) if c.co_name == "inner")
    assert check(inner)


# Text made to mislead: (function name, whether `read` answers).
TRICKY = '''
def docstring_at_column_0(x):
    """A docstring
with lines at column 0
"""
    return x

def signature_closed_at_column_0(
    a, b,
):
    return a + b
# a comment at column 0 is left out

def kept_comments(x):
    y = x

# this one is left out, but kept with the one below
    # this one is kept
def one_line(x): return x
    # not kept: a one-line def has no body indentation

def backslash_after(x):
    return x \\

def semicolon_after(x):
    return x;

def semicolon_and_backslash_after(x):
    return x; \\

def in_a_string(x):
    s = """
def in_a_string(x):
"""
    return s

def triple_quote_in_a_string(x):
    t = '"""' + x
    return t

async def coroutine(x):
    await x
    return x

def has_tabs(x):
\treturn x

def last_in_file(x):
    return [x,
y]'''
ANSWERS = {"docstring_at_column_0": True, "signature_closed_at_column_0": True,
           "kept_comments": True, "one_line": True, "backslash_after": False,
           "semicolon_after": True, "semicolon_and_backslash_after": False, "in_a_string": True, "triple_quote_in_a_string": True,
           "coroutine": True, "has_tabs": False, "last_in_file": False}


@pytest.fixture
def tricky():
    filename = "<tangent_ad test: tricky source>"
    linecache.cache[filename] = (len(TRICKY), None, TRICKY.splitlines(True), filename)
    try:
        yield compile(TRICKY, filename, "exec")
    finally:
        linecache.cache.pop(filename, None)


def test_tricky_text(tricky):
    answered = {code.co_name: check(code) for code in code_objects(tricky)}
    assert answered == ANSWERS


def test_a_file_changed_on_disk_is_read_again(tmp_path):
    path = tmp_path / "changing.py"
    path.write_text("def f(x):\n    return x\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    assert check(namespace["f"])
    path.write_text("# one more line\ndef f(x):\n    y = x\n    return y\n")
    stale = source_lines.read(namespace["f"])
    assert stale is None or (stale.lines, stale.first_line) == \
        inspect.getsourcelines(namespace["f"])
