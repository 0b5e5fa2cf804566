"""A function's source lines as ``inspect.getsourcelines`` gives them, faster.

``inspect.getsourcelines`` finds the end of a function by tokenizing its
lines in pure Python (4 ms for the 199-line function of
``benchmarks/long_function.py``, as long as parsing it). For a function
defined in a file (or in a text ``linecache`` holds, as IPython's cells),
`read` takes the file's lines from ``linecache`` at the code's first line
(the first decorator's, as inspect's), ends the block at the first line
indented at or left of that line (blank and comment lines aside, and lines
that close a bracket or, as far as counting triple quotes tells, lie in a
string), and checks the guess by parsing it: the text must be one def of the code's
name, starting on the ``def`` line found, ending on the last line
scanned and past the last line of the compiled code. A line inside a
string or brackets that ends the block early leaves text that does not
parse. Trailing comment lines indented as the body are kept, as inspect
keeps them. The parse is not wasted: the caller converts it (``to_gast``)
instead of parsing the text again.

Whenever something is unusual (no such file, tabs or form feeds in the
indentation, a ``__wrapped__``, a line that does not look as expected, text
that does not parse or ends elsewhere), `read` returns None and the caller
asks ``inspect``. ``tests/test_source_lines.py`` checks that `read` gives
inspect's answer or None for every function of the repository and of a
sample of the standard library.
"""
import ast
import linecache
import os
import re
import textwrap
import types
from dataclasses import dataclass

# The first line of a function as inspect finds it: a decorator or a def
# (inspect's own pattern also takes lambdas; they are not read here).
_START = re.compile(r"\s*(@|def\s|async\s+def\s)")
_DEF = re.compile(r"\s*(async\s+)?def\s")


@dataclass(frozen=True)
class Found:
    """A function's source: `lines` and `first_line` as
    ``inspect.getsourcelines`` gives them, the file name as
    ``inspect.getsourcefile`` does, the lines' text dedented
    (``textwrap.dedent``) and its ast Module."""

    filename: str
    lines: list
    first_line: int
    dedented: str
    tree: ast.Module


def read(own):
    """The source of `own` (a function or a code object) as a `Found`, or
    None when it cannot be read without inspect's help."""
    if isinstance(own, types.FunctionType):
        if hasattr(own, "__wrapped__"):  # inspect reads what it wraps
            return None
        code = own.__code__
    elif isinstance(own, types.CodeType):
        code = own
    else:
        return None
    filename = code.co_filename
    lines = _file_lines(filename)
    start = code.co_firstlineno - 1
    if not lines or not 0 <= start < len(lines) or not _START.match(lines[start]):
        return None
    for quotes in (True, False):  # (a triple quote in a one-line string misleads the count)
        block = _block(lines, start, quotes)
        found = None if block is None else _checked(lines, start, block[0], block[1], code)
        if found is not None:
            break
    else:
        return None
    _, last_code, end = block
    dedented, tree, body_column = found
    last = _with_comments(lines, last_code, end, body_column)
    if last != last_code:  # trailing comments: the same text, longer
        longer = textwrap.dedent("".join(lines[start:last + 1]))
        if not longer.startswith(dedented):
            return None
        dedented = longer
    return Found(filename, lines[start:last + 1], start + 1, dedented, tree)


def _file_lines(filename):
    """The lines ``inspect.findsource`` reads for a code object of
    `filename`, or None when it would read them another way: a .py file
    that exists (``inspect.getsourcefile`` gives its name), or a name in
    <brackets> that ``linecache`` holds the text of."""
    if filename.endswith(".py") and os.path.exists(filename):
        linecache.checkcache(filename)  # (a file changed on disk is read again)
        return linecache.getlines(filename)
    if filename.startswith("<") and filename.endswith(">") and filename in linecache.cache:
        linecache.checkcache(filename)
        entry = linecache.cache.get(filename)
        if entry is not None and len(entry) != 1:  # (1: a loader not yet asked)
            return entry[2]
    return None


def _block(lines, start, quotes):
    """(row of the def line, row of the block's last code line, row after
    the block) from `start` (rows are indexes in `lines`): the block ends at
    the first line after the def line that holds code and is indented at or
    left of the first line, but for a line that closes a bracket (``):``
    of a long signature) and, if `quotes`, a line inside a triple-quoted
    string (as far as counting the quotes tells); None if some line's
    indentation is not spaces."""
    margin = _indent(lines[start])
    if margin is None:
        return None
    row, count = start, len(lines)
    while not _DEF.match(lines[row]) or _indent(lines[row]) != margin:
        row += 1  # past the decorators
        if row == count:
            return None
    def_row = last_code = row
    quote = _quote_after(lines[def_row], None) if quotes else None
    for row in range(def_row + 1, count):
        line = lines[row]
        if quote is None:
            text = line.lstrip(" ")
            if not text.strip() or text[0] == "#":  # blank or comment: never ends a block
                continue
            if text[0] in "\t\f\v\r":
                return None
            if len(line) - len(text) <= margin and text[0] not in ")]}":
                return def_row, last_code, row
        last_code = row
        if quotes:
            quote = _quote_after(line, quote)
    return def_row, last_code, count


def _quote_after(line, quote):
    """The triple quote still open after `line` (`quote`: the one open
    before it), counting the triple quotes only: a guess, which the parse
    of the block checks."""
    if quote is None and '"""' not in line and "'''" not in line:
        return None
    at = 0
    while True:
        if quote is not None:
            end = line.find(quote, at)
            if end < 0:
                return quote
            quote, at = None, end + 3
        double, single = line.find('"""', at), line.find("'''", at)
        if double < 0 and single < 0:
            return None
        if single < 0 or 0 <= double < single:
            quote, at = '"""', double + 3
        else:
            quote, at = "'''", single + 3


def _indent(line):
    """The spaces `line` starts with, or None if other whitespace follows."""
    text = line.lstrip(" ")
    return None if text[:1] in ("\t", "\f", "\v") else len(line) - len(text)


def _checked(lines, start, def_row, last_code, code):
    """(dedented text, ast Module, column of the body or None) of
    ``lines[start:last_code + 1]`` if it parses to one def named as `code`,
    on `def_row`, ending on `last_code` with nothing but a comment after it
    and at or past `code`'s last line; else None."""
    dedented = textwrap.dedent("".join(lines[start:last_code + 1]))
    try:
        tree = ast.parse(dedented)
    except (SyntaxError, ValueError):
        return None
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or node.name != code.co_name or node.lineno != def_row - start + 1 \
            or node.end_lineno != last_code - start + 1:
        return None
    shift = _indent(lines[def_row]) - node.col_offset  # what dedent took off
    if lines[last_code].encode()[shift + node.end_col_offset:].strip()[:1] not in (b"", b"#"):
        return None  # (a "\" after the last statement: its line goes on)
    code_lines = [line for _, _, line in code.co_lines() if line is not None]
    if code_lines and max(code_lines) > last_code + 1:
        return None
    first = node.body[0]
    row = start + first.lineno - 1
    own_line = _indent(lines[row]) == shift + first.col_offset and \
        not lines[row - 1].rstrip("\r\n").endswith("\\")
    return dedented, tree, (shift + first.col_offset if own_line else None)


def _with_comments(lines, last_code, end, body_column):
    """The block's last row: `last_code`, or the last comment line before
    `end` indented at least as the body (inspect keeps those; blank lines
    and comments left of the body it leaves out unless a kept one follows)."""
    last = last_code
    if body_column is None:
        return last
    for row in range(last_code + 1, end):
        text = lines[row].lstrip(" ")
        if text[:1] == "#" and len(lines[row]) - len(text) >= body_column:
            last = row
    return last
