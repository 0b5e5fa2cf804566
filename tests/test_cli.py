"""Tests of the ``tangent-ad`` command (tangent_ad/cli.py).

Most tests run the real program in a subprocess (``python -m tangent_ad``),
the way a shell or a build step would; a few call ``cli.main`` in-process to
reach failure paths that need a stand-in for the core. The oracle for the
written module is central finite differences computed here in plain NumPy.
"""
import importlib.util
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tangent_ad import cli

MODEL = textwrap.dedent('''\
    import numpy as np


    def loss(W, b, x):
        h = np.tanh(x @ W + b)
        return np.mean(h ** 2)


    def loss_example_args():
        rng = np.random.default_rng(0)
        return (rng.normal(size=(3, 4)), rng.normal(size=(4,)),
                rng.normal(size=(5, 3)))
''')


def run_cli(*args, cwd):
    """Run ``python -m tangent_ad ARGS`` in ``cwd``; return the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "tangent_ad", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def model_dir(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    return tmp_path


def load_by_path(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def central_differences(f, args, argnum, eps=1e-6):
    x = args[argnum]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (f(*args[:argnum], up, *args[argnum + 1:])
                       - f(*args[:argnum], down, *args[argnum + 1:])) / (2 * eps)
    return grad


def leftovers(directory, expected):
    """Files in ``directory`` other than ``expected`` (temp files, for one)."""
    return sorted(set(os.listdir(directory)) - set(expected) - {"__pycache__"})


# --- the written module ----------------------------------------------------

@pytest.mark.parametrize("extra", [[], ["--no-optimize"]])
def test_written_module_imports_and_matches_finite_differences(model_dir, extra):
    result = run_cli("model.py:loss", "--wrt", "W,b", "-o", "loss_grad.py",
                     *extra, cwd=model_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "wrote dloss_dW_b to loss_grad.py" in result.stderr

    generated = load_by_path(model_dir / "loss_grad.py", "loss_grad_under_test")
    model = load_by_path(model_dir / "model.py", "model_under_test")
    rng = np.random.default_rng(1234)
    args = (rng.normal(size=(3, 4)), rng.normal(size=(4,)),
            rng.normal(size=(5, 3)))
    dW, db = generated.dloss_dW_b(*args)
    assert dW.shape == (3, 4) and db.shape == (4,)
    np.testing.assert_allclose(dW, central_differences(model.loss, args, 0),
                               rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(db, central_differences(model.loss, args, 1),
                               rtol=1e-5, atol=1e-8)


def test_written_module_imports_only_numpy_and_runtime(model_dir):
    assert run_cli("model.py:loss", "--wrt", "W,b", "-o", "g.py",
                   cwd=model_dir).returncode == 0
    text = (model_dir / "g.py").read_text()
    imports = [line.strip() for line in text.splitlines()
               if line.lstrip().startswith(("import ", "from "))]
    for line in imports:
        assert ("numpy" in line or "tangent_ad.runtime" in line
                or line.startswith("from __future__")), line


def test_stdout_mode_prints_the_module(model_dir):
    result = run_cli("model.py:loss", "--wrt", "W,b", cwd=model_dir)
    assert result.returncode == 0, result.stderr
    assert "def dloss_dW_b(" in result.stdout
    compile(result.stdout, "stdout", "exec")  # stdout holds nothing else
    assert leftovers(model_dir, ["model.py"]) == []


def test_default_wrt_is_the_first_parameter(model_dir):
    result = run_cli("model.py:loss", cwd=model_dir)
    assert result.returncode == 0, result.stderr
    assert "def dloss_dW(" in result.stdout


def test_sibling_imports_work(tmp_path):
    (tmp_path / "constants.py").write_text("SCALE = 3.0\n")
    (tmp_path / "scaled.py").write_text(textwrap.dedent('''\
        import numpy as np
        from constants import SCALE


        def f(x):
            return np.sum(SCALE * x * x)
    '''))
    result = run_cli("scaled.py:f", "--check", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "def df_dx(" in result.stdout


def test_in_process_main_matches_subprocess(model_dir, capsys, monkeypatch):
    monkeypatch.chdir(model_dir)
    assert cli.main(["model.py:loss", "--wrt", "W,b"]) == 0
    printed = capsys.readouterr().out
    assert printed == run_cli("model.py:loss", "--wrt", "W,b",
                              cwd=model_dir).stdout


# --- never clobber, always atomic -----------------------------------------

def test_refuses_to_overwrite_without_force(model_dir):
    assert run_cli("model.py:loss", "--wrt", "W,b", "-o", "out.py",
                   cwd=model_dir).returncode == 0
    target = model_dir / "out.py"
    target.write_text("# hand edits\n")
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    before = (target.read_bytes(), target.stat().st_mtime_ns)

    result = run_cli("model.py:loss", "--wrt", "W,b", "-o", "out.py",
                     cwd=model_dir)
    assert result.returncode == 1
    assert "--force" in result.stderr
    assert "Traceback" not in result.stderr
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before
    assert leftovers(model_dir, ["model.py", "out.py"]) == []

    result = run_cli("model.py:loss", "--wrt", "W,b", "-o", "out.py",
                     "--force", cwd=model_dir)
    assert result.returncode == 0, result.stderr
    assert "def dloss_dW_b(" in target.read_text()
    assert leftovers(model_dir, ["model.py", "out.py"]) == []


def test_new_file_gets_ordinary_permissions(model_dir):
    assert run_cli("model.py:loss", "-o", "g.py", cwd=model_dir).returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert (model_dir / "g.py").stat().st_mode & 0o777 == 0o666 & ~umask


def test_unwritable_destination_is_an_error(model_dir):
    result = run_cli("model.py:loss", "-o", "no/such/dir/g.py", cwd=model_dir)
    assert result.returncode == 1
    assert "cannot write" in result.stderr
    assert "Traceback" not in result.stderr


# --- errors: exit 1, one message, no traceback ----------------------------

def test_syntax_error_in_input(tmp_path):
    (tmp_path / "broken.py").write_text("import numpy as np\n\ndef f(x)\n"
                                        "    return x\n")
    result = run_cli("broken.py:f", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("tangent-ad: error: broken.py:3")
    assert len(result.stderr.strip().splitlines()) == 1


def test_exception_while_loading(tmp_path):
    (tmp_path / "raises.py").write_text("x = 1\ny = 1 / 0\n")
    result = run_cli("raises.py:f", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "ZeroDivisionError" in result.stderr
    assert "raises.py:2" in result.stderr


def test_missing_file(tmp_path):
    result = run_cli("nowhere.py:f", cwd=tmp_path)
    assert result.returncode == 1
    assert "nowhere.py" in result.stderr and "Traceback" not in result.stderr


def test_missing_function(model_dir):
    result = run_cli("model.py:nope", cwd=model_dir)
    assert result.returncode == 1
    assert "'nope'" in result.stderr and "loss" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("argv", [
    ["model.py"],                            # no :FUNC
    ["model.py:"],                           # empty FUNC
    [],                                      # no target at all
    ["model.py:loss", "--mode", "sideways"],
    ["model.py:loss", "--bogus"],
])
def test_bad_usage_exits_2(model_dir, argv):
    result = run_cli(*argv, cwd=model_dir)
    assert result.returncode == 2
    assert "usage:" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("wrt", ["W,nope", "W,,b", "W,W"])
def test_bad_wrt_exits_2(model_dir, wrt):
    result = run_cli("model.py:loss", "--wrt", wrt, cwd=model_dir)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_unknown_wrt_lists_the_parameters(model_dir):
    result = run_cli("model.py:loss", "--wrt", "V", cwd=model_dir)
    assert result.returncode == 2
    assert "'V'" in result.stderr and "W, b, x" in result.stderr


def test_help_explains_the_check_convention(tmp_path):
    result = run_cli("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "_example_args" in result.stdout and "exit codes" in result.stdout


def test_forward_mode_never_shows_a_traceback(model_dir):
    # Forward mode may or may not be implemented; either way, no traceback.
    result = run_cli("model.py:loss", "--mode", "forward", cwd=model_dir)
    assert result.returncode in (0, 1)
    assert "Traceback" not in result.stderr


def test_derivative_errors_exit_1(model_dir, monkeypatch, capsys):
    from tangent_ad import api
    from tangent_ad.errors import UnsupportedSyntaxError

    def refuse(func, **options):
        raise UnsupportedSyntaxError("cannot differentiate this",
                                     filename="model.py", lineno=5)
    monkeypatch.setattr(api, "autodiff", refuse)
    monkeypatch.chdir(model_dir)
    assert cli.main(["model.py:loss", "-o", "g.py"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tangent-ad: error: model.py:5: cannot differentiate")
    assert not (model_dir / "g.py").exists()


def test_unexpected_exceptions_are_reported_as_bugs(model_dir, monkeypatch,
                                                    capsys):
    from tangent_ad import api

    def crash(func, **options):
        raise KeyError("oops")
    monkeypatch.setattr(api, "autodiff", crash)
    monkeypatch.chdir(model_dir)
    assert cli.main(["model.py:loss"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == ("tangent-ad: internal error: KeyError: 'oops' "
                           "(this is a bug)")


# --- --check --------------------------------------------------------------

def test_check_passes_with_example_args(model_dir):
    result = run_cli("model.py:loss", "--wrt", "W,b", "--check", "-o", "g.py",
                     cwd=model_dir)
    assert result.returncode == 0, result.stderr
    assert "check passed" in result.stderr
    assert "loss_example_args" in result.stderr
    assert leftovers(model_dir, ["model.py", "g.py"]) == []


def test_check_passes_with_random_scalars(tmp_path):
    (tmp_path / "scalar.py").write_text(
        "import numpy as np\n\ndef f(x, y):\n    return np.sin(x) * y\n")
    result = run_cli("scalar.py:f", "--wrt", "x,y", "--check", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "check passed" in result.stderr and "random" in result.stderr


def test_check_mismatch_writes_nothing(model_dir, monkeypatch, capsys):
    from tangent_ad import testing

    def mismatch(f, df, args, wrt=(0,)):
        raise AssertionError("gradient of W differs at [0, 0]")
    monkeypatch.setattr(testing, "check_grads", mismatch)
    monkeypatch.chdir(model_dir)
    assert cli.main(["model.py:loss", "--wrt", "W,b", "--check",
                     "-o", "g.py"]) == 1
    err = capsys.readouterr().err
    assert "check failed" in err and "differs at [0, 0]" in err
    assert leftovers(model_dir, ["model.py"]) == []


def test_check_reports_a_failing_user_function(tmp_path):
    (tmp_path / "bad.py").write_text(textwrap.dedent('''\
        import numpy as np


        def f(x):
            return np.sum(x * x)


        def f_example_args():
            raise ValueError("no data here")
    '''))
    result = run_cli("bad.py:f", "--check", cwd=tmp_path)
    assert result.returncode == 1
    assert "ValueError: no data here" in result.stderr
    assert "bad.py:9" in result.stderr
    assert "Traceback" not in result.stderr


SCALAR_MODEL = textwrap.dedent('''\
    import math

    import numpy as np


    def energy(x, k):
        total = 0.0
        for i in range(3):
            total = total + k * np.sin(x * (i + 1)) + math.exp(0.1 * x)
        return total
''')


@pytest.mark.parametrize("order", [2, 3])
def test_order_writes_a_standalone_higher_derivative(tmp_path, order):
    (tmp_path / "energy.py").write_text(SCALAR_MODEL)
    result = run_cli("energy.py:energy", "--order", str(order), "--check", "-o", "out.py",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out.py").read_text()
    assert f"derivative of order {order} of energy" in text
    assert "import tangent_ad\n" not in text and "energy.py" in text  # standalone
    name = "d" * order + "energy" + "_dx" * order
    written = getattr(load_by_path(tmp_path / "out.py", f"out{order}"), name)
    x, k = 0.7, 1.3
    # closed form: sum over i of k (i+1)^order sin^(order)(.) + 0.1^order exp(0.1 x)
    shift = order * math.pi / 2
    want = sum(k * (i + 1) ** order * math.sin(x * (i + 1) + shift) for i in range(3)) \
        + 3 * 0.1 ** order * math.exp(0.1 * x)
    assert written(x, k) == pytest.approx(want, rel=1e-8)


def test_order_needs_reverse_mode(model_dir):
    result = run_cli("model.py:loss", "--order", "2", "--mode", "forward", cwd=model_dir)
    assert result.returncode == 2 and "--order" in result.stderr
