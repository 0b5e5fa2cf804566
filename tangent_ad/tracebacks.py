"""Errors raised inside generated code point back to the user's line.

An exception from a derivative (a shape mismatch, a singular matrix) is
raised in generated code that the user did not write. `annotate` adds a note
(``BaseException.add_note``, printed under the message by every traceback
printer) that names the generated line and the line of the user's function
it derives from: a backward-pass statement sits under a ``# Grad of: <line>``
comment (or ``# Inserted grad code:``, a hook's body), a forward-pass statement repeats a user statement that assigns the
same name. The note also quotes the generated line, which Python 3.11's
default printer cannot show for code that has no file on disk.
"""
import ast
import inspect
import re
import textwrap

import gast

from tangent_ad import texts

GENERATED_PREFIX = "<tangent_ad "
_GRAD_OF = re.compile(r"^\s*# (Grad of|Inserted grad code): (.*)$")
_DEF = re.compile(r"^\s*def ")
_NOTED = "__tangent_ad_noted__"


def annotate(exc):
    """Add to `exc`, once, a note naming where in generated code it was
    raised and which line of the user's function that code derives from."""
    if getattr(exc, _NOTED, False) or not hasattr(exc, "add_note"):
        return
    entry = None
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.startswith(GENERATED_PREFIX) and not name.endswith(" dispatch>"):
            entry = tb
        tb = tb.tb_next
    if entry is None:
        return
    try:
        note = _note(entry.tb_frame, entry.tb_lineno)
    except Exception:  # noqa: BLE001 - a note must never replace the user's error
        return
    if note:
        exc.add_note(note)
        try:
            setattr(exc, _NOTED, True)
        except AttributeError:
            pass


def _note(frame, lineno):
    filename = frame.f_code.co_filename
    lines = texts.lines(filename)
    if not 0 < lineno <= len(lines):
        return ""
    text = lines[lineno - 1].strip()
    note = [f"tangent_ad: raised in the generated {frame.f_code.co_name}, "
            f"line {lineno}: {text}"]
    origin = _origin(lines, lineno)
    primal = _primal(frame)
    if origin is None:
        if primal is not None:
            note.append(f"  in the derivative of {_where(primal)}")
        return "\n".join(note)
    kind, statement = origin
    place = _find(primal, statement, kind) if primal is not None else None
    what = "the backward pass of" if kind == "grad" else "the forward pass, from"
    if place is not None:
        note.append(f"  {what} your line {place[0]}:{place[1]}: {place[2]}")
    elif kind == "grad":
        note.append(f"  {what} your line: {statement}")
    if place is None and primal is not None:
        note.append(f"  in the derivative of {_where(primal)}")
    return "\n".join(note)


def user_line(frame):
    """``(file, line, text)`` of the user's line that the generated code
    running in `frame` derives from, or None."""
    lines = texts.lines(frame.f_code.co_filename)
    if not 0 < frame.f_lineno <= len(lines):
        return None
    primal = _primal(frame)
    if primal is None:
        return None
    kind, statement = _origin(lines, frame.f_lineno)
    found = _find(primal, statement, kind)
    while getattr(getattr(primal, "__tangent_ad__", None), "primal", None) is not None:
        primal, found = primal.__tangent_ad__.primal, None  # a product over a derivative
    if found is None:  # a forward-mode temporary: the function's own line
        code = primal.__code__
        found = (code.co_filename, code.co_firstlineno,
                 _line(code.co_filename, code.co_firstlineno))
    return found


def generated_frame(frame):
    """The innermost frame, from `frame` outwards, that runs a generated
    derivative (not one of its dispatchers), or None."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(GENERATED_PREFIX) and not name.endswith(" dispatch>") and \
                _primal(frame) is not None:
            return frame
        frame = frame.f_back
    return None


def _origin(lines, lineno):
    """``("grad", text)`` for a line under a ``# Grad of: text`` comment,
    ``("forward", name)`` for a forward-pass line that feeds the user's
    assignment to `name` (``"return"``: the return statement)."""
    for back in range(lineno - 1, -1, -1):
        line = lines[back]
        match = _GRAD_OF.match(line)
        if match:
            return "grad", match.group(2).strip()
        if _DEF.match(line):
            break
    for line in lines[lineno - 1:]:  # forward pass: temporaries come first
        if _DEF.match(line) or _GRAD_OF.match(line) or line.lstrip().startswith("return "):
            break
        match = re.match(r"^\s*([A-Za-z_]\w*)\s*=[^=]", line)
        if match and not re.fullmatch(r"t\d*", match.group(1)):
            name = match.group(1)
            return "forward", "return" if name == "result" else name
    return "forward", "return"  # only temporaries left: they feed the return


def _primal(frame):
    """The user's function the generated code in `frame` differentiates."""
    namespace = frame.f_globals
    info = getattr(namespace.get(frame.f_code.co_name), "__tangent_ad__", None)
    if info is None:
        stager = getattr(namespace.get("_tad_stage"), "__self__", None)
        info = getattr(stager, "info", None)
    primal = getattr(info, "primal", None)
    while hasattr(primal, "__tangent_ad_caller_of__"):  # a derivative's derivative
        primal = primal.__tangent_ad_caller_of__.__tangent_ad__.primal
    return primal if inspect.isfunction(primal) else None


def _where(primal):
    code = primal.__code__
    return f"{primal.__qualname__} ({code.co_filename}:{code.co_firstlineno})"


def find_statement(primal, statement, kind="grad"):
    """``(file, line, text)`` of the statement of the user's function
    `primal` that a ``# Grad of: statement`` comment names (`kind`
    "grad"), or None when it is not found once."""
    return _find(primal, statement, kind)


def _find(primal, statement, kind):
    """``(file, line, text)`` of the statement of `primal` matching a
    ``# Grad of:`` text, or the one assignment to a forward-pass name."""
    try:
        source, start = texts.function_lines(primal) or inspect.getsourcelines(primal)
    except (OSError, TypeError):
        return None
    text = textwrap.dedent("".join(source))
    tree = _tree(primal, text)
    if tree is None:
        return None
    matches = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(node, ast.FunctionDef) or \
                getattr(node, "lineno", None) is None:  # (a comment marker has no line)
            continue
        segment = " ".join((ast.get_source_segment(text, node) or "").split())
        if kind == "grad":
            header = " ".join(text.splitlines()[node.lineno - 1].split()).rstrip(":")
            if statement in (segment, header):
                matches.append(node)
        elif statement == "return":
            if isinstance(node, ast.Return):
                matches.append(node)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == statement
                   for t in targets for n in ast.walk(t)):
                matches.append(node)
    if len(matches) != 1 and not (kind == "grad" and matches):
        return None
    node = min(matches, key=lambda n: n.lineno)
    line = start + node.lineno - 1
    return (primal.__code__.co_filename, line, source[node.lineno - 1].strip())


def _tree(primal, text):
    """The ``ast`` of `primal`, whose dedented source is `text`: for code
    tangent_ad generated, the tree it was printed from (placed on the
    text's lines by the loader), not its text parsed again."""
    stored = getattr(primal, "__tangent_ad_tree__", None)
    if stored is not None:
        return gast.gast_to_ast(stored)  # (a new tree: the stored one is not changed)
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _line(filename, lineno):
    """Line `lineno` of `filename`, stripped ('' past its end)."""
    lines = texts.lines(filename)
    return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
