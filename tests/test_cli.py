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


def _stdlib_import(line):
    words = line.split()
    return words[0] == "import" and len(words) == 2 and words[1] in sys.stdlib_module_names


def test_written_module_imports_only_numpy(model_dir):
    assert run_cli("model.py:loss", "--wrt", "W,b", "-o", "g.py",
                   cwd=model_dir).returncode == 0
    text = (model_dir / "g.py").read_text()
    imports = [line.strip() for line in text.splitlines()
               if line.startswith(("import ", "from "))]
    # NumPy and the standard library only (the copied helpers of objects
    # read dataclasses, copy, ...)
    assert imports and all(line == "import numpy as np" or _stdlib_import(line)
                           for line in imports), imports
    assert "tangent_ad.runtime, copied" in text and "def unbroadcast(" in text


@pytest.mark.parametrize("target, wrt, args", [
    ("model.py:loss", "W,b", None),
    ("energy.py:energy", "x", (0.7, 1.3)),
])
def test_written_module_runs_without_tangent_ad(tmp_path, target, wrt, args):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "energy.py").write_text(SCALAR_MODEL)
    assert run_cli(target, "--wrt", wrt, "-o", "g.py", "--order", "2" if args else "1",
                   cwd=tmp_path).returncode == 0
    module, func = target.split(":")
    name = ("dd" + func + "_dx_dx") if args else "dloss_dW_b"
    call = f"g.{name}(*{args!r})" if args else \
        f"g.{name}(*__import__('model').loss_example_args())"
    script = ("import sys; sys.modules['tangent_ad'] = None; sys.path.insert(0, '.')\n"
              f"import g; print(repr({call}))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    if args:  # d2/dx2 of the energy, in closed form
        x, k = args
        want = sum(-k * (i + 1) ** 2 * math.sin(x * (i + 1)) for i in range(3)) \
            + 3 * 0.01 * math.exp(0.1 * x)
        assert float(done.stdout) == pytest.approx(want, rel=1e-8)


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


# --- what users meet first: --version, -o -, the input file, stray prints -----

def test_version(tmp_path):
    from tangent_ad import __version__
    result = run_cli("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"tangent-ad {__version__}"


def test_dash_output_is_stdout(model_dir):
    result = run_cli("model.py:loss", "-o", "-", cwd=model_dir)
    assert result.returncode == 0, result.stderr
    assert "def dloss_dW(" in result.stdout
    compile(result.stdout, "stdout", "exec")
    assert leftovers(model_dir, ["model.py"]) == []  # no file named '-'


@pytest.mark.parametrize("spelling", ["model.py", "./model.py", "sub/../model.py",
                                      "link.py"])
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_input_file_is_never_overwritten(model_dir, spelling, force):
    (model_dir / "sub").mkdir()
    (model_dir / "link.py").symlink_to(model_dir / "model.py")
    before = (model_dir / "model.py").read_bytes()
    result = run_cli("model.py:loss", "-o", spelling, *force, cwd=model_dir)
    assert result.returncode == 2, result.stderr
    assert "input file" in result.stderr and "Traceback" not in result.stderr
    assert (model_dir / "model.py").read_bytes() == before
    assert leftovers(model_dir, ["model.py", "link.py", "sub"]) == []


def test_prints_of_the_users_module_go_to_stderr(tmp_path):
    (tmp_path / "noisy.py").write_text(textwrap.dedent('''\
        import numpy as np
        print("loading noisy")


        def f(x):
            return np.sum(x * x)


        def f_example_args():
            print("making arguments")
            return (np.arange(3.0),)
    '''))
    result = run_cli("noisy.py:f", "--check", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "loading noisy" not in result.stdout
    assert "making arguments" not in result.stdout
    assert "loading noisy" in result.stderr and "making arguments" in result.stderr
    compile(result.stdout, "stdout", "exec")
    assert "def df_dx(" in result.stdout


# --- written files for globals, custom rules and library imports ----------
#
# Each written file is imported in a fresh interpreter, as a user would, and its
# gradient compared there with central differences of the original function.

IMPORT_AND_CHECK = textwrap.dedent('''\
    import importlib.util, sys
    import numpy as np

    def load(path, name):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    if sys.argv[5] == "block":  # as if only NumPy were installed
        sys.modules["tangent_ad"] = None
    written = load(sys.argv[1], "written")
    imported_user = {user!r} in sys.modules
    sys.modules.pop("tangent_ad", None)
    user = load(sys.argv[2], "original")
    f, df = getattr(user, sys.argv[3]), getattr(written, sys.argv[4])
    x = np.random.default_rng(5).uniform(0.2, 0.9, size={size})
    g = df(x)
    fd = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = 1e-6
        fd[i] = (f(x + e) - f(x - e)) / 2e-6
    assert g.shape == x.shape and g.dtype == x.dtype, (g.shape, g.dtype)
    assert np.allclose(g, fd, rtol=1e-6, atol=1e-8), (g, fd)
    print("imported_user", imported_user)
''')


def import_written(directory, out, user_file, func, dfunc, cwd, size=4, numpy_only=True):
    """Import ``out`` in a fresh interpreter run in ``cwd`` (where tangent_ad
    cannot be imported, if `numpy_only`); check its gradient against central
    differences of ``user_file``'s ``func``. Returns stdout."""
    user = os.path.splitext(user_file)[0]
    script = IMPORT_AND_CHECK.format(user=user, size=size)
    result = subprocess.run(
        [sys.executable, "-c", script, str(directory / out),
         str(directory / user_file), func, dfunc, "block" if numpy_only else "-"],
        cwd=cwd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


GLOBALS_MODEL = textwrap.dedent('''\
    import numpy as np

    import tangent_ad as tad

    print("module top level")
    WEIGHTS = np.array([0.5, -1.0, 2.0, 3.0])
    BIG = np.linspace(0.0, 1.0, 20000)
    SCALE = 1.5


    def weighted(x):
        return np.sum(WEIGHTS * np.sin(x)) * SCALE


    def big(x):
        return np.sum(x * x) * BIG[17]


    def cube(x):
        return x * x * x


    @tad.adjoint(cube)
    def _(result, x):
        d[x] = d[result] * 3.0 * x * x


    def uses_rule(x):
        return np.sum(cube(x) + x)
''')


@pytest.fixture
def globals_dir(tmp_path):
    (tmp_path / "gmodel.py").write_text(GLOBALS_MODEL)
    (tmp_path / "elsewhere").mkdir()
    return tmp_path


def test_global_array_is_written_as_a_value(globals_dir):
    result = run_cli("gmodel.py:weighted", "-o", "g.py", cwd=globals_dir)
    assert result.returncode == 0, result.stderr
    text = (globals_dir / "g.py").read_text()
    assert "WEIGHTS = np.array([0.5, -1.0, 2.0, 3.0], dtype='float64')" in text
    assert "SCALE = 1.5" in text and "gmodel" not in text.split('"""')[-1]
    # run where gmodel.py cannot be imported: the file needs nothing from it
    printed = import_written(globals_dir, "g.py", "gmodel.py", "weighted",
                             "dweighted_dx", cwd=globals_dir / "elsewhere")
    assert "imported_user False" in printed


def test_large_global_array_is_imported_from_the_users_module(globals_dir):
    result = run_cli("gmodel.py:big", "-o", "g.py", cwd=globals_dir)
    assert result.returncode == 0, result.stderr
    text = (globals_dir / "g.py").read_text()
    assert "from gmodel import BIG" in text
    assert "0.0, " not in text  # not copied
    import_written(globals_dir, "g.py", "gmodel.py", "big", "dbig_dx", cwd=globals_dir,
                   numpy_only=False)  # gmodel.py itself imports tangent_ad


def test_large_global_array_without_an_importable_module_is_refused(globals_dir):
    (globals_dir / "my-model.py").write_text(GLOBALS_MODEL)
    result = run_cli("my-model.py:big", "-o", "g.py", cwd=globals_dir)
    assert result.returncode == 1
    assert "'BIG'" in result.stderr and "20000 elements" in result.stderr
    assert "hint:" in result.stderr and "Traceback" not in result.stderr
    assert not (globals_dir / "g.py").exists()


def test_custom_rule_in_a_written_file(globals_dir):
    result = run_cli("gmodel.py:uses_rule", "-o", "g.py", cwd=globals_dir)
    assert result.returncode == 0, result.stderr
    text = (globals_dir / "g.py").read_text()
    assert "3.0 * x * x" in text  # the user's rule, inlined
    assert "def cube(x):\n    return x * x * x" in text  # the forward call, copied
    assert "gmodel" not in text.split('"""')[-1]
    printed = import_written(globals_dir, "g.py", "gmodel.py", "uses_rule",
                             "duses_rule_dx", cwd=globals_dir / "elsewhere")
    assert "imported_user False" in printed


def test_users_functions_are_copied_with_what_they_read(tmp_path):
    (tmp_path / "chain.py").write_text(textwrap.dedent('''\
        import math

        import numpy as np

        import tangent_ad as tad

        OFFSETS = np.array([0.1, 0.2, 0.3, 0.4])


        def shifted(x):
            return x + OFFSETS * math.pi


        def squash(x):
            return np.tanh(shifted(x))


        @tad.adjoint(squash)
        def _(result, x):
            d[x] = d[result] * (1.0 - result * result)


        def f(x):
            return np.sum(squash(x) * x)
    '''))
    (tmp_path / "elsewhere").mkdir()
    result = run_cli("chain.py:f", "-o", "g.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "g.py").read_text()
    assert "def squash(x):" in text and "def shifted(x):" in text
    assert "OFFSETS = np.array([0.1, 0.2, 0.3, 0.4], dtype='float64')" in text
    assert "import math" in text and "chain" not in text.split('"""')[-1].replace(
        "copied from chain.py", "")
    printed = import_written(tmp_path, "g.py", "chain.py", "f", "df_dx",
                             cwd=tmp_path / "elsewhere")
    assert "imported_user False" in printed


def test_scipy_function_imported_by_name_in_a_written_file(tmp_path):
    pytest.importorskip("scipy.special")
    (tmp_path / "logistic.py").write_text(textwrap.dedent('''\
        import numpy as np
        from scipy.special import expit


        def f(x):
            return np.sum(expit(2.0 * x))
    '''))
    (tmp_path / "elsewhere").mkdir()
    result = run_cli("logistic.py:f", "-o", "g.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "from scipy.special import expit" in (tmp_path / "g.py").read_text()
    printed = import_written(tmp_path, "g.py", "logistic.py", "f", "df_dx",
                             cwd=tmp_path / "elsewhere")
    assert "imported_user False" in printed
