"""Where each statement of printed code is, without parsing the text again.

The loader compiles the text ``emit`` printed, and gives the stored trees
(what the front end reads when a derivative is differentiated again) the
lines their statements were printed on, so that a message about generated
code quotes the line it means. Parsing the whole text into Python's
``ast`` objects only to read those lines cost more than compiling it. The
statements are known already (the ``ast`` copies ``emit`` printed from);
what is missing is their lines, and printed code gives them cheaply: each
statement starts a line of its own, and a statement spans more lines only
inside brackets or a string. `place` finds those logical lines and pairs
them with the statements in the order they are printed, checking each
line's first word against its statement; on any disagreement it says so
and the caller parses the text instead.
"""
import ast
import re

from tangent_ad.naming import COMMENT_MARKER

_OPEN, _CLOSE = "([{", ")]}"
# the first word of the line each kind of statement is printed on
_KEYWORDS = {ast.If: ("if", "elif"), ast.For: ("for",), ast.While: ("while",),
             ast.With: ("with",), ast.Try: ("try",), ast.FunctionDef: ("def",),
             ast.Return: ("return",), ast.Pass: ("pass",), ast.Nonlocal: ("nonlocal",),
             ast.Global: ("global",), ast.Break: ("break",), ast.Continue: ("continue",),
             ast.Raise: ("raise",), ast.Assert: ("assert",), ast.Delete: ("del",)}
_RESERVED = {word for words in _KEYWORDS.values() for word in words} | {
    "else", "except", "finally", "class", "async", "import", "from", "lambda"}
_CLAUSES = ("else", "except", "finally")  # lines inside a statement, not statements
_COMPOUND = {ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef}
_SIMPLE = {ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Pass,
           ast.Nonlocal, ast.Global, ast.Break, ast.Continue, ast.Raise, ast.Assert,
           ast.Delete}
_WORD = re.compile(r" *(#|\w*)")


def place(text, functions):
    """Set ``lineno``, ``col_offset``, ``end_lineno`` and ``end_col_offset``
    of every statement of the ``ast.FunctionDef`` list `functions` (comment
    markers included: they are the ``#`` lines) to where `text`, their
    printed form, has it, as ``ast.parse`` would. Returns False when the
    text and the statements do not agree (what was placed is then
    meaningless)."""
    lines = text.split("\n")
    starts = _logical_lines(lines)
    if starts is None:
        return False
    statements = []
    for function in functions:
        _in_order(function, statements)
    if len(starts) != len(statements):
        return False
    compound = []
    for node, (first, last, word) in zip(statements, starts):
        cls = node.__class__
        expected = _KEYWORDS.get(cls)
        if expected is not None:
            if word not in expected:
                return False
            if cls in _COMPOUND:
                compound.append(node)
        elif (word == "#") != (cls is ast.Expr and is_marker(node)) or \
                cls not in _SIMPLE or word in _RESERVED:
            return False
        line = lines[first]
        node.lineno, node.col_offset = first + 1, len(line) - len(line.lstrip(" "))
        line = lines[last]
        node.end_lineno = last + 1
        node.end_col_offset = len(line) if line.isascii() else len(line.encode("utf-8"))
    for node in reversed(compound):  # inner statements first
        inner = _last_inner(node)
        node.end_lineno, node.end_col_offset = inner.end_lineno, inner.end_col_offset
    return True


def _in_order(node, found):
    """`node` and the statements inside it, in the order they are printed."""
    found.append(node)
    if node.__class__ in _SIMPLE:
        return
    for field in ("body", "handlers", "orelse", "finalbody"):
        for inner in getattr(node, field, None) or ():
            if inner.__class__ is ast.ExceptHandler:
                for statement in inner.body:
                    _in_order(statement, found)
            else:
                _in_order(inner, found)


def _last_inner(node):
    """The statement printed last inside the compound statement `node`."""
    for field in ("finalbody", "orelse", "handlers", "body"):
        block = getattr(node, field, None)
        if block:
            last = block[-1]
            return last.body[-1] if isinstance(last, ast.ExceptHandler) else last
    return None


def is_marker(node):
    """Whether the printed statement `node` is a comment marker."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
        and isinstance(node.value.func, ast.Name) and node.value.func.id == COMMENT_MARKER


def _logical_lines(lines):
    """[(first, last, first word)] line indices of each logical line of
    `lines` that starts a statement (a comment line's word is ``#``;
    blank lines and clause headers left out); None when the text ends
    inside brackets or a string."""
    found, depth, string, start, word = [], 0, None, None, None
    for index, line in enumerate(lines):
        if start is None:
            word = _WORD.match(line).group(1)
            if word == "#":
                found.append((index, index, word))
                continue
            if not word and not line.strip():
                continue
            start = index
        if string is not None or "'" in line or '"' in line or "\\" in line or "#" in line:
            scanned = _scan(line, depth, string)
            if scanned is None:
                return None
            depth, string, continued = scanned
        else:
            depth += line.count("(") - line.count(")") + line.count("[") - line.count("]") \
                + line.count("{") - line.count("}")
            continued = False
        if depth < 0:
            return None
        if depth == 0 and string is None and not continued:
            if word not in _CLAUSES:
                found.append((start, index, word))
            start = None
    return found if start is None else None


def _scan(line, depth, string):
    """(bracket depth, the open string's quotes or None, whether a
    backslash continues the line) after `line`, character by character;
    None for a one-quote string left open at the line's end."""
    position, size = 0, len(line)
    while position < size:
        char = line[position]
        if string is not None:
            if char == "\\":
                position += 2
                continue
            if line.startswith(string, position):
                position += len(string)
                string = None
                continue
        elif char == "#":
            break
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif char in "'\"":
            string = char * 3 if line.startswith(char * 3, position) else char
            position += len(string)
            continue
        elif char == "\\" and position == size - 1:
            return depth, None, True
        position += 1
    if string is not None and len(string) == 1:
        if line.endswith("\\"):
            return depth, string, True
        return None
    return depth, string, False


def compilable(functions, placed=True):
    """A Module of copies of the ``ast`` `functions`, which ``compile``
    takes as it is, so the text they were printed as need not be parsed to
    be compiled from a tree (to rewrite some reads first,
    ``scopes.read_live``): the comment markers left out (a block of markers
    alone becomes a ``pass``), and every node below a statement on that
    statement's place, as `place` set it (`placed`: it did). A traceback
    then names the line the text has, without a caret inside it. When
    `place` could not place them, every node is put on the first line: the
    code is right, only its tracebacks are vague."""
    return ast.Module(body=[_copied(f, _FIRST_LINE, placed) for f in functions],
                      type_ignores=[])


_BLOCK_FIELDS = frozenset(("body", "orelse", "finalbody"))
_FIRST_LINE = (1, 0, 1, 0)


def _copied(node, place, placed):
    cls = node.__class__
    if cls is list:
        return [_copied(item, place, placed) for item in node]
    if not isinstance(node, ast.AST) or not (cls._fields or cls._attributes):
        return node  # a string, a number, a shared context such as ast.Load()
    if placed and isinstance(node, ast.stmt):
        place = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    copied = cls.__new__(cls)
    for field in cls._fields:
        value = getattr(node, field, None)
        if field in _BLOCK_FIELDS and type(value) is list and value:
            kept = [s for s in value if not is_marker(s)]
            value = _copied(kept, place, placed) if kept else [_pass(value[0], place, placed)]
        else:
            value = _copied(value, place, placed)
        setattr(copied, field, value)
    if "lineno" in cls._attributes:
        copied.lineno, copied.col_offset, copied.end_lineno, copied.end_col_offset = place
    return copied


def _pass(marker, place, placed):
    """The ``pass`` of a block that had only comment markers, on the first one's place."""
    if placed:
        place = (marker.lineno, marker.col_offset, marker.end_lineno, marker.end_col_offset)
    return _copied(ast.Pass(), place, False)
