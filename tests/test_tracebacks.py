"""An error raised inside generated code names the user's line (tracebacks.py).

Each script runs under plain ``python``, as a user's would, and its
uncaught traceback is read from stderr: the note under the message must quote
the generated line and name the user's file and line it derives from.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad import tracebacks


def run_script(tmp_path, body):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(body))
    result = subprocess.run([sys.executable, str(path)], capture_output=True,
                            text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 1
    return result.stderr, str(path)


def test_forward_pass_error_names_the_users_line(tmp_path):
    err, path = run_script(tmp_path, '''\
        import numpy as np
        import tangent_ad as tad

        def f(x, A):
            y = np.tanh(A @ x)
            return np.sum(y)

        df = tad.grad(f)
        df(np.ones(3), np.ones((3, 3)))
        df(np.ones(4), np.ones((3, 3)))
    ''')
    assert "ValueError: matmul" in err
    assert "tangent_ad: raised in the generated df_dx, line 3: t = A @ x" in err
    assert f"from your line {path}:5: y = np.tanh(A @ x)" in err


def test_error_in_the_return_expression(tmp_path):
    err, path = run_script(tmp_path, '''\
        import numpy as np
        import tangent_ad as tad

        def f(x, idx):
            y = np.sin(x)
            z = y[idx]
            return np.sum(z * x)

        tad.grad(f)(np.ones(3), np.array([0, 1]))
    ''')
    assert "operands could not be broadcast" in err
    assert f"your line {path}:7: return np.sum(z * x)" in err


def test_backward_pass_error_names_the_users_line(tmp_path):
    err, path = run_script(tmp_path, '''\
        import numpy as np
        import tangent_ad as tad

        def f(x):
            h = np.tanh(x)
            with tad.insert_grad_code(h) as dh:
                dh = dh @ np.ones((5, 5))
            return np.sum(h * 2.0)

        tad.grad(f)(np.ones(3))
    ''')
    assert "ValueError" in err and "tangent_ad: raised in the generated df_dx" in err
    assert "dh = bh @ np.ones((5, 5))" in err  # the generated line, quoted
    assert f"backward pass of your line {path}:6: with tad.insert_grad_code(h) as dh" in err


def test_note_is_added_once_and_the_error_is_unchanged():
    def f(x, A):
        return np.sum(np.tanh(A @ x))

    df = tad.grad(f)
    with pytest.raises(ValueError, match="matmul") as info:
        df(np.ones(4), np.ones((3, 3)))
    notes = getattr(info.value, "__notes__", [])
    assert len(notes) == 1 and "tangent_ad: raised in the generated" in notes[0]
    tracebacks.annotate(info.value)
    assert len(info.value.__notes__) == 1
    assert np.allclose(df(np.zeros(3), np.eye(3)), np.ones(3))  # still works


def test_errors_outside_generated_code_get_no_note():
    try:
        raise ValueError("plain")
    except ValueError as exc:
        tracebacks.annotate(exc)
        assert not getattr(exc, "__notes__", None)


def _imports_inside(x):
    from math import pi
    return x * pi


def test_a_refusal_shows_none_of_the_transformations_frames():
    """A refusal names the user's file and line in its message; its
    traceback is the user's call and the one frame that raises it, not
    the twenty frames of the passes behind it."""
    import traceback

    with pytest.raises(tad.UnsupportedSyntaxError, match="not supported") as info:
        tad.grad(_imports_inside)(1.0)
    ours = [f for f in traceback.extract_tb(info.value.__traceback__)
            if f"{os.sep}tangent_ad{os.sep}" in f.filename]
    assert len(ours) == 1 and ours[0].filename.endswith("callables.py")
    assert info.value.lineno == _imports_inside.__code__.co_firstlineno + 1


def _looped(x, A):
    y = np.tanh(A @ x)
    for i in range(3):
        y = y * 0.5 + x
    return np.sum(y)


def test_a_generated_primal_is_read_from_its_tree_not_its_text(monkeypatch):
    """A derivative differentiated again is the primal of the next one:
    its statements are found in the tree it was printed from, with the
    places and lines its text has, and its text is not parsed."""
    import ast
    df = tad.grad(_looped)
    df = getattr(df, "__wrapped__", df)
    statements = [" ".join(line.split()).rstrip(":")
                  for line in tad.show_source(df).split("\n\n\n")[0].splitlines()[1:]
                  if not line.strip().startswith("#")]
    parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: pytest.fail("parsed generated text"))
    found = [(tracebacks.find_statement(df, s),
              tracebacks.find_statement(df, s.split(" = ")[0], kind="forward")) for s in statements]
    monkeypatch.setattr(ast, "parse", parse)
    monkeypatch.delattr(df, "__tangent_ad_tree__")
    assert found == [(tracebacks.find_statement(df, s),
                      tracebacks.find_statement(df, s.split(" = ")[0], kind="forward"))
                     for s in statements]
    assert sum(f is not None for f, _ in found) == len(statements) > 10
