"""Generated code differentiated again starts from the tree it was printed
from (``Generated.trees``, placed on the printed lines by the loader), not
from its text parsed back: jvp(grad(f)), grad(grad(f)) and hvp."""
import types

import gast
import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import texts
from tangent_ad.frontend import source, source_lines, to_gast
from tangent_ad.nodes import is_comment, walk
from tangent_ad.testing import numerical_grad
from control_flow_functions import loop_branch as looped


def calls_looped(x):
    return looped(x, 3) * np.tanh(x)


@pytest.fixture
def no_text_parsed(monkeypatch):
    """The texts tangent_ad wrote that the front end parses (source's
    to_gast.parse and source_lines.read, which parses what it reads, with
    versions that record them)."""
    parsed = []

    def record(text):
        if any(text.strip() in kept for kept in texts._TEXTS.values()):
            parsed.append(text)

    def parse(text):
        record(text)
        return to_gast.parse(text)

    def read(own):
        found = source_lines.read(own)
        if found is not None:
            record(found.dedented)
        return found
    monkeypatch.setattr(source, "to_gast", types.SimpleNamespace(parse=parse,
                                                                 convert=to_gast.convert))
    monkeypatch.setattr(source, "source_lines", types.SimpleNamespace(read=read))
    return parsed


@pytest.mark.parametrize("func", [looped, calls_looped], ids=["loop", "call"])
def test_second_derivatives_read_no_generated_text(func, no_text_parsed):
    gradient = tad.grad(func)
    args = (0.7, 3) if func is looped else (0.7,)
    product = tad.jvp(gradient)(*args, 1.0, 1.0)[1]
    second = tad.grad(gradient)(*args)
    assert not no_text_parsed, "generated text was parsed back"
    numerical = numerical_grad(lambda x: gradient(x, *args[1:]), (0.7,), 0)
    np.testing.assert_allclose([product, second], [numerical] * 2, rtol=1e-6)


def test_the_stored_statements_sit_on_the_lines_they_were_printed_as():
    gradient = tad.grad(calls_looped)
    keywords = {gast.If: "if", gast.For: "for", gast.While: "while",
                gast.Return: "return", gast.FunctionDef: "def", gast.Nonlocal: "nonlocal"}
    checked = 0
    for stored in gradient.__tangent_ad__.trees:
        func = gradient.__tangent_ad__.namespace[stored.name]
        assert func.__tangent_ad_tree__ is stored
        tree, info = source.parse_function(func)
        assert not any(is_comment(n) for n in walk(tree))
        for stmt in walk(tree):
            if not isinstance(stmt, gast.stmt):
                continue
            line = info.line_text(stmt).strip()
            if type(stmt) in keywords:
                assert line.split()[0] == keywords[type(stmt)], (stmt, line)
            elif isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                assert line.startswith(stmt.targets[0].id + " = "), line
            checked += 1
            for node in walk(stmt):  # expressions on their statement's lines
                if "lineno" in node._attributes:
                    assert stmt.lineno <= node.lineno <= stmt.end_lineno
    assert checked > 20


def test_a_refusal_in_generated_code_quotes_the_generated_line():
    def checkpointed(x):
        for _ in tad.checkpointed(range(4)):
            x = np.sin(x) * 1.1
        return x
    gradient = tad.grad(checkpointed)
    with pytest.raises(tad.TangentADError) as caught:
        tad.jvp(gradient)
    error = caught.value
    assert "checkpointed" in error.message
    assert error.filename.startswith("<tangent_ad ")
    printed = texts.lines(error.filename)[error.lineno - 1]
    assert "snapshots" in error.source_line and error.source_line.strip() == printed.strip()
