"""printed_places: the lines of printed statements, found without parsing
the text, must be those ``ast.parse`` finds (the loader places the stored
trees with them: what a message about generated code quotes)."""
import ast
import copy
import sys
from pathlib import Path

import gast
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import emit, loader, printed_places

from golden_functions import GOLDEN

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import long_function  # noqa: E402
import workloads  # noqa: E402

PLACE = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _statements(functions, markers=True):
    found = []

    def visit(node):
        if markers or not printed_places.is_marker(node):
            found.append(node)
        for field in ("body", "handlers", "orelse", "finalbody"):
            for inner in getattr(node, field, None) or ():
                for statement in inner.body if isinstance(inner, ast.ExceptHandler) else [inner]:
                    visit(statement)
    for function in functions:
        visit(function)
    return found


def _printed(trees):
    pieces = [emit.printed(copy.deepcopy(t)) for t in trees]
    return "\n\n".join(text for text, _ in pieces), [f for _, f in pieces]


def _assert_placed_as_parsed(text, functions):
    assert printed_places.place(text, functions)
    mine = _statements(functions, markers=False)
    parsed = _statements(ast.parse(text).body)
    assert len(mine) == len(parsed)
    for node, expected in zip(mine, parsed):
        assert [getattr(node, a) for a in PLACE] == [getattr(expected, a) for a in PLACE], \
            (type(node).__name__, text.splitlines()[expected.lineno - 1])
    for node in _statements(functions):  # a comment marker is its `#` line
        if printed_places.is_marker(node):
            assert text.splitlines()[node.lineno - 1].lstrip().startswith("# ")


def _units():
    for name, (func, wrt) in GOLDEN.items():
        yield name, tad.grad(func, wrt=wrt)
    yield "long_model", tad.grad(long_function.with_blocks(12), wrt=(0, 1, 2, 3, 4))
    for module in workloads.EVERY:
        yield module.__name__.rsplit(".", 1)[-1], tad.grad(module.loss, wrt=module.WRT)

    def f(x):
        return np.sum(np.sin(x) * x ** 2)
    yield "grad_grad", tad.grad(tad.grad(f))


@pytest.mark.parametrize("name, df", list(_units()), ids=lambda v: v if isinstance(v, str) else "")
def test_generated_units_are_placed_as_parsed(name, df):
    info = df.__tangent_ad__
    text, functions = _printed(info.trees)
    assert text == info.source
    _assert_placed_as_parsed(text, functions)



def _code_lines(code):
    """{(function name, line)} of every instruction of `code` and the code nested in it."""
    found = {(code.co_name, line) for _, _, line in code.co_lines() if line is not None}
    for const in code.co_consts:
        if hasattr(const, "co_lines"):
            found |= _code_lines(const)
    return found


@pytest.mark.parametrize("name, df", list(_units()), ids=lambda v: v if isinstance(v, str) else "")
def test_a_compiled_placed_copy_runs_on_the_lines_of_the_text(name, df):
    """What the loader compiles when it rewrites reads (no parse): each
    instruction on a line the text's own code has, every statement's line
    among them, and the comment markers gone."""
    info = df.__tangent_ad__
    text, functions = _printed(info.trees)
    assert printed_places.place(text, functions)
    module = printed_places.compilable(functions)
    assert not any(printed_places.is_marker(n) for n in ast.walk(module))
    mine = _code_lines(compile(module, "<copy>", "exec"))
    theirs = _code_lines(compile(text, "<text>", "exec"))
    assert mine <= theirs
    placed = {s.lineno for s in _statements(functions, markers=False)}
    assert placed - {line for _, line in mine} <= {f.lineno for f in functions}  # (defs)


def test_stored_trees_get_the_parsed_places():
    """The loader's placing of the stored trees, without a parse, equals
    what placing them from the parsed text gives."""
    df = tad.grad(long_function.with_blocks(3), wrt=(0, 1, 2, 3, 4))
    info = df.__tangent_ad__
    expected = [copy.deepcopy(t) for t in info.trees]
    loader.locate(expected, ast.parse(info.source))
    for stored, wanted in zip(info.trees, expected):
        pairs = list(zip(gast.walk(stored), gast.walk(wanted)))
        assert pairs and all(getattr(a, p, None) == getattr(b, p, None)
                             for a, b in pairs for p in PLACE)


TRICKY = '''
def tricky(x, y):
    s = 'a(b'
    t = "it's ] here"
    u = """two
lines ( with [ brackets"""
    e = 'back\\\\slash' + "quote \\" ("
    h = '# not a comment (' + f"{x}({{"
    if x:
        y = [1,
             2]
    elif y > 1:
        y = {'k': (1, 2)}
    elif y > 2:
        pass
    else:
        y = 'é(ü' + "ß"
    try:
        z = 1
    except ValueError:
        z = 2
    finally:
        w = 3
    while x:
        break
    for i in range(3):
        continue
    else:
        x = 1
    nonlocal_like = some_function_with_a_long_name(argument_number_one, argument_number_two, argument_three)
    return y
'''


def test_strings_brackets_clauses_and_wrapped_lines():
    tree = gast.parse(TRICKY).body[0]
    text, function = emit.printed(tree)
    assert any(line.startswith("        ") and not line.strip().endswith(")")
               for line in text.splitlines())  # astor wrapped the long call
    _assert_placed_as_parsed(text, [function])


def test_disagreement_is_reported():
    tree = gast.parse("def f(x):\n    y = x\n    return y\n").body[0]
    text, function = emit.printed(tree)
    assert printed_places.place(text, [copy.deepcopy(function)])
    extra = copy.deepcopy(function)
    extra.body.insert(0, ast.Pass())
    assert not printed_places.place(text, [extra])  # one statement too many
    swapped = copy.deepcopy(function)
    swapped.body.reverse()
    assert not printed_places.place(text, [swapped])  # `return` where `y = x` is
    assert not printed_places.place(text.replace("y = x", "y = (x"), [function])
