"""compile="numba": the same derivative, compiled (tangent_ad.compiled).

Every compiled derivative is checked against the interpreted one to 1e-12
and against central differences; the refusals name the user's line.
"""
import sys
import warnings

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import numerical_grad

numba = pytest.importorskip("numba", reason="Numba is an optional extra (pip install numba)")

from benchmarks.workloads import EVERY_BY_NAME  # noqa: E402
from control_flow_functions import loop_branch as branchy  # noqa: E402

DT = 0.05  # a data global the derivatives below read live


def damped(k, c, n):
    x = 1.0
    v = 0.0
    for i in range(n):
        a = -k * x - c * v
        v = v + DT * a
        x = x + DT * v
        if x > 1.5:
            x = 1.5
    return x * x + np.sin(v)


def array_loop(w, x, n):
    h = x
    for i in range(n):
        h = np.tanh(w * h + 0.1)
    return np.sum(h * h)


def _close(a, b, tol=1e-12):
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


COMPILED_WORKLOADS = ["loop", "scalar_params", "ode", "logreg", "logaddexp_lr", "mlp"]


@pytest.mark.parametrize("name", COMPILED_WORKLOADS)
def test_workload_matches_interpreted(name):
    module = EVERY_BY_NAME[name]
    args = module.make_inputs(module.SMALL, np.random.default_rng(1))
    interpreted = tad.grad(module.loss, wrt=module.WRT)(*args)
    compiled = tad.grad(module.loss, wrt=module.WRT, compile="numba")
    _close(compiled(*args), interpreted)
    _close(compiled(*args), interpreted)  # the guarded call runs the kernel too
    source = tad.show_source(compiled, *args)
    assert source.startswith(("@numba.njit\n", "@numba.njit(cache=True)\n"))
    assert "stack.append" not in source and "reversed(" not in source


def test_scalar_loop_matches_finite_differences():
    g = tad.grad(damped, wrt=(0, 1), compile="numba")
    for k, c in [(1.0, 0.1), (2.3, 0.4), (0.5, 1.2)]:
        got = g(k, c, 80)
        _close(got, tad.grad(damped, wrt=(0, 1))(k, c, 80))
        want = (numerical_grad(damped, (k, c, 80), 0), numerical_grad(damped, (k, c, 80), 1))
        _close(got, want, tol=1e-6)


def test_branch_decisions_and_restores_each_use_their_own_list():
    g = tad.grad(branchy, compile="numba")
    for x in (0.1, 0.7, 2.0):
        _close(g(x, 30), tad.grad(branchy)(x, 30))
    source = tad.show_source(g, 0.1, 30)
    # numbers are saved in arrays, one per site, sized by the loop's count
    assert "stack_branch = np.empty(max(n, 0) * 2, np.bool_)" in source
    assert "stack_x = np.empty(max(n, 0), np.float64)" in source
    assert "top_x -= 1\n" in source and "x = stack_x[top_x]" in source
    assert "range(n - 1, -1, -1)" in source
    for x in (0.1, 0.7):
        _close(g(x, 200), tad.grad(branchy)(x, 200))


def test_saved_arrays_stay_in_typed_lists():
    g = tad.grad(array_loop, compile="numba")
    x = np.linspace(-1.0, 1.0, 5)
    _close(g(0.7, x, 6), tad.grad(array_loop)(0.7, x, 6))
    source = tad.show_source(g, 0.7, x, 6)
    assert "stack_h = []" in source and "stack_h.append(h)" in source


def test_every_transform_compiles():
    args = (1.3, 0.2, 40)
    _close(tad.value_and_grad(damped, wrt=(0, 1), compile="numba")(*args),
           tad.value_and_grad(damped, wrt=(0, 1))(*args))
    _close(tad.vjp(damped, compile="numba")(*args, 2.0), tad.vjp(damped)(*args, 2.0))
    _close(tad.jvp(damped, compile="numba")(*args, 1.0), tad.jvp(damped)(*args, 1.0))


def test_a_data_global_is_read_at_each_call():
    global DT
    g = tad.grad(damped, compile="numba")
    first = g(1.0, 0.1, 50)
    try:
        DT = 0.02
        second = g(1.0, 0.1, 50)
        _close(second, tad.grad(damped)(1.0, 0.1, 50))
    finally:
        DT = 0.05
    assert abs(first - second) > 1e-3


def squares(x):
    return np.sum(np.tanh(x) ** 2)


def test_new_kinds_compile_again_and_keep_dtype():
    g = tad.grad(array_loop, compile="numba")
    x64 = np.linspace(-1.0, 1.0, 5)
    _close(g(0.7, x64, 4), tad.grad(array_loop)(0.7, x64, 4))
    _close(g(0.7, x64[:3], 4), tad.grad(array_loop)(0.7, x64[:3], 4))  # a new shape
    assert len(g.__tangent_ad_stager__.kernels) == 2
    h = tad.grad(squares, compile="numba")
    x32 = x64.astype(np.float32)
    got = h(x32)
    assert got.dtype == np.float32 and got.shape == (5,)
    np.testing.assert_allclose(got, tad.grad(squares)(x32), rtol=1e-6)
    _close(h(x64), tad.grad(squares)(x64))


def test_a_loop_mixing_float32_and_python_floats_is_refused():
    # Numba promotes float32 * a Python float to float64 (NumPy keeps float32):
    # the loop's value changes type, which Numba refuses; that is said, not run
    g = tad.grad(array_loop, wrt=1, compile="numba")
    with pytest.raises(tad.CompileError, match="unify"):
        g(0.7, np.ones(3, np.float32), 4)


def test_recursion_compiles_as_a_forward_and_a_backward_function_with_a_tape():
    module = EVERY_BY_NAME["tree"]
    args = module.make_inputs(module.SMALL, np.random.default_rng(0))
    g = tad.grad(module.loss, wrt=module.WRT, compile="numba")
    interpreted = tad.grad(module.loss, wrt=module.WRT)(*args)
    _close(g(*args), interpreted)
    _close(g(*args), module.grad_by_hand(*args))
    other = module.make_inputs(module.SMALL, np.random.default_rng(5))
    _close(g(*other), tad.grad(module.loss, wrt=module.WRT)(*other))  # the same kernel
    source = tad.show_source(g, *args)
    assert "def forward_node(" in source and "def backward_node(" in source
    assert "def back(" not in source and "List.empty_list(float64_1d)" in source
    assert source.count("@numba.njit") == 3


def bumpy(x, s):
    if x > s:
        return s * np.sin(x)
    return x * x


def walked(x, s, n):
    total = 0.0
    for i in range(n):
        total = total + bumpy(x + 0.1 * i, s)
        x = np.cos(x) + total * 0.01
    return total


def test_a_call_with_a_branch_in_a_loop_compiles_and_matches_finite_differences():
    g = tad.grad(walked, wrt=(0, 1), compile="numba")
    for x, s in [(0.3, 0.5), (1.2, 0.1), (-0.4, 2.0)]:
        got = g(x, s, 12)
        _close(got, tad.grad(walked, wrt=(0, 1))(x, s, 12))
        want = (numerical_grad(walked, (x, s, 12), 0), numerical_grad(walked, (x, s, 12), 1))
        _close(got, want, tol=1e-6)
    assert "def forward_bumpy(" in tad.show_source(g, 0.3, 0.5, 12)


def test_an_unsupported_call_names_the_line_not_a_numba_traceback():
    module = EVERY_BY_NAME["gp_nll"]
    args = module.make_inputs(module.SMALL, np.random.default_rng(0))
    g = tad.grad(module.loss, wrt=module.WRT, compile="numba")
    with pytest.raises(tad.CompileError) as info:
        g(*args)
    text = str(info.value)
    assert info.value.filename.endswith("gp_nll.py")
    assert "solve_triangular" in text and "Traceback" not in text and "\x1b[" not in text


def test_fallback_runs_as_python_with_a_warning():
    module = EVERY_BY_NAME["gp_nll"]
    args = module.make_inputs(module.SMALL, np.random.default_rng(0))
    g = tad.grad(module.loss, wrt=module.WRT, compile="numba", fallback=True)
    with pytest.warns(RuntimeWarning, match="runs as Python"):
        got = g(*args)
    _close(got, tad.grad(module.loss, wrt=module.WRT)(*args))


def test_options_are_checked():
    with pytest.raises(ValueError, match="compile="):
        tad.grad(damped, compile="llvm")
    with pytest.raises(ValueError, match="fallback"):
        tad.grad(damped, fallback=True)


def test_without_numba_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba raises ImportError

    def fresh(k, c, n):
        return damped(k, c, n) * 1.0

    with pytest.raises(tad.CompileError, match="pip install numba"):
        tad.grad(fresh, compile="numba")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        g = tad.grad(fresh, compile="numba", fallback=True)
    assert any("runs as Python" in str(w.message) for w in seen)
    _close(g(1.0, 0.2, 10), tad.grad(fresh)(1.0, 0.2, 10))


def test_particle_workload_hand_gradient_and_compiled_gradient():
    from benchmarks.workloads import particle
    args = particle.make_inputs(particle.SMALL, None)
    hand = particle.grad_by_hand(*args)
    _close(hand, tuple(numerical_grad(particle.loss, args, i) for i in particle.WRT), tol=1e-6)
    _close(tad.grad(particle.loss, wrt=particle.WRT, compile="numba")(*args), hand, tol=1e-10)


def mean_square(x, y):
    return np.mean((x * y) ** 2)


def test_a_mean_compiles_with_the_numba_size_of():
    x, y = np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 2.0, 6)
    g = tad.grad(mean_square, compile="numba")
    _close(g(x, y), tad.grad(mean_square)(x, y))
    _close(g(x, y), numerical_grad(mean_square, (x, y), 0), tol=1e-6)


CLI_MODEL = '''import numpy as np

DT = 0.01


def damped(k, c, n=300):
    x = 1.0
    v = 0.0
    for i in range(n):
        a = -k * x - c * v
        v = v + DT * a
        x = x + DT * v
        if x > 1.5:
            x = 1.5
    return x * x + np.sin(v)


def damped_example_args():
    return 1.2, 0.3, 300
'''


def test_the_command_line_writes_the_compiled_form(tmp_path):
    import importlib.util
    import subprocess

    (tmp_path / "model.py").write_text(CLI_MODEL)
    done = subprocess.run([sys.executable, "-m", "tangent_ad", "model.py:damped",
                           "--wrt", "k,c", "--compile", "numba", "--check", "-o", "out.py"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "check passed: the compiled ddamped_dk_c matches the Python one" in done.stderr
    text = (tmp_path / "out.py").read_text()
    assert "@numba.njit\ndef ddamped_dk_c(k, c, n=300, bresult=1.0):" in text
    assert "from tangent_ad.compiled.helpers import " in text and "reversed(" not in text
    spec = importlib.util.spec_from_file_location("written_compiled", tmp_path / "out.py")
    written = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(written)
    assert isinstance(written.ddamped_dk_c, numba.core.registry.CPUDispatcher)
    spec = importlib.util.spec_from_file_location("cli_model", tmp_path / "model.py")
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    _close(written.ddamped_dk_c(1.2, 0.3), tad.grad(model.damped, wrt=(0, 1))(1.2, 0.3))


def step(x, v, k, c):
    a = -k * x - c * v
    v2 = v + DT * a
    return x + DT * v2, v2


def stepped(k, c, n):
    x = 1.0
    v = 0.0
    for i in range(n):
        x, v = step(x, v, k, c)
    return x * x + np.sin(v)


def test_a_called_step_function_is_written_out_and_compiles():
    g = tad.grad(stepped, wrt=(0, 1), compile="numba")
    _close(g(1.0, 0.2, 200), tad.grad(stepped, wrt=(0, 1))(1.0, 0.2, 200))
    source = tad.show_source(g, 1.0, 0.2, 200)
    assert "pullback" not in source and "stack_x" in source
    # without compile=, the call stays a call (its pullback is a closure)
    assert "pullback_step" in tad.show_source(tad.grad(stepped, wrt=(0, 1)))


def writes_in_a_loop(x, n):
    y = x * 1.0
    for i in range(n):
        y[i % 3] = y[i % 3] * 0.5 + x[(i + 1) % 3]
    return np.sum(np.abs(y))


def test_item_writes_and_reads_compile():
    # the Numba versions of updated, unindex, zeroed, accumulate and abs_slope
    x = np.array([0.4, -1.3, 2.2, 0.7])
    g = tad.grad(writes_in_a_loop, compile="numba")
    _close(g(x, 7), tad.grad(writes_in_a_loop)(x, 7))
    _close(g(x, 7), numerical_grad(writes_in_a_loop, (x, 7), 0), tol=1e-6)
    assert "updated(" in tad.show_source(g, x, 7) or "[" in tad.show_source(g, x, 7)



def _helper_cases():
    rng = np.random.default_rng(11)
    a, g = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    v = rng.normal(size=4)
    return [
        ("cast_like", (v, v.astype(np.float32))),
        ("cast_like", (2.5, 1.0)),
        ("float_argument", (3,)),
        ("float_argument", (np.arange(3),)),
        ("zeros_like", (a,)),
        ("zero_tangent", (1.5,)),
        ("unbroadcast", (g, a)),
        ("unbroadcast", (g, v)),
        ("unbroadcast", (g, 2.0)),
        ("size_of", (a,)),
        ("abs_slope", (v,)),
        ("accumulate", (a, g)),
        ("accumulate", (1.5, 2.0)),
        ("iterated", (a,)),
        ("uniterated", (g, a)),
        ("unindex", (v, a, 1)),
        ("unindex", (2.0, v, 3)),
        ("updated", (a, (1, 2), 7.0)),
        ("zeroed", (a, 2)),
        ("accumulate_at", (a, v, a, 0)),
        ("conj_complex", (a,)),
    ]


@pytest.mark.parametrize("name,args", _helper_cases(),
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(_helper_cases())])
def test_each_numba_helper_agrees_with_the_python_one(name, args):
    from tangent_ad import runtime
    from tangent_ad.compiled import helpers
    stand_in = getattr(helpers, name)
    count = len(args)
    source = f"def call({', '.join(f'a{i}' for i in range(count))}):\n" \
             f"    return helper({', '.join(f'a{i}' for i in range(count))})\n"
    namespace = {"helper": stand_in}
    exec(source, namespace)
    compiled = numba.njit(namespace["call"])(*args)
    want = getattr(runtime, name)(*args)
    np.testing.assert_allclose(np.asarray(compiled), np.asarray(want), rtol=1e-12)
    assert np.shape(compiled) == np.shape(want)
    if isinstance(want, np.ndarray):
        assert compiled.dtype == want.dtype


def stops_early(x, n):
    for i in range(n):
        x = np.sin(x) * 1.3 + 0.4
        if x > 1.1:
            break
    return x * x


def test_a_loop_that_breaks_walks_back_only_the_turns_it_made():
    g = tad.grad(stops_early, compile="numba")
    for x in (0.1, 0.5, 2.0, -1.0):
        _close(g(x, 12), tad.grad(stops_early)(x, 12))
        _close(g(x, 12), numerical_grad(stops_early, (x, 12), 0), tol=1e-6)
    assert "[:" not in tad.show_source(g, 0.1, 12).split("def ", 2)[1]



def _golden_args(rng):
    import golden_functions as gf
    return {
        "tanh_sum": (gf.tanh_sum, (0,), (rng.normal(size=5),)),
        "mlp": (gf.mlp, (0, 1, 2), (rng.normal(size=(3, 4)), rng.normal(size=4),
                                    rng.normal(size=(4, 2)), rng.normal(size=(6, 3)),
                                    rng.normal(size=(6, 2)))),
        "overwrite": (gf.overwrite, (0, 1), (rng.normal(size=3), rng.normal(size=3))),
        "loop_branch": (gf.loop_branch, (0,), (0.7, 20)),
        "rnn": (gf.rnn, (0,), (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(5, 3)),
                               rng.normal(size=3))),
        "two_layers": (gf.two_layers, (0, 1), (rng.normal(size=(3, 3)), rng.normal(size=(2, 3)),
                                               rng.normal(size=3))),
        "use_power": (gf.use_power, (0,), (1.3,)),
    }


@pytest.mark.parametrize("name", ["tanh_sum", "mlp", "overwrite", "loop_branch", "rnn",
                                  "two_layers", "use_power"])
def test_golden_functions_compile_and_match_interpreted(name):
    func, wrt, args = _golden_args(np.random.default_rng(3))[name]
    compiled = tad.grad(func, wrt=wrt, compile="numba")
    interpreted = tad.grad(func, wrt=wrt)(*args)
    _close(compiled(*args), interpreted)
    _close(compiled(*args), interpreted)


CACHED_RUN = '''
import sys
sys.path.insert(0, {tests!r})
import numpy as np
import tangent_ad as tad
from test_compiled import damped
g = tad.grad(damped, wrt=(0, 1), compile="numba")
got = g(1.1, 0.2, 50)
stager = g.__tangent_ad_stager__
hits = sum(sum(k.kernel.stats.cache_hits.values()) for k in stager.kernels.values())
print(hits, repr(got))
'''


def test_a_second_run_loads_the_compiled_kernel_from_the_disk_cache(tmp_path):
    import os
    import subprocess
    code = CACHED_RUN.format(tests=os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TANGENT_AD_CACHE=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    (hits1, value1), (hits2, value2) = [r.stdout.split(" ", 1) for r in runs]
    assert int(hits1) == 0 and int(hits2) >= 1 and value1 == value2
    assert len(list((tmp_path / "numba").glob("form_*.py"))) >= 1
    off = dict(env, TANGENT_AD_CACHE="off")
    run = subprocess.run([sys.executable, "-c", code], env=off, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.split(" ", 1) == ["0", value1], run.stderr


def test_the_disk_cache_is_off_where_it_cannot_be_written(tmp_path, monkeypatch):
    from tangent_ad.compiled import disk_cache
    monkeypatch.setenv("TANGENT_AD_CACHE", "off")
    assert disk_cache.directory() is None
    assert disk_cache.source_file("x = 1\n", {}) is None
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("TANGENT_AD_CACHE", str(blocked))
    assert disk_cache.source_file("x = 1\n", {}) is None
    monkeypatch.setenv("TANGENT_AD_CACHE", str(tmp_path / "ok"))
    path = disk_cache.source_file("x = 1\n", {"np": np})
    assert path is not None and open(path).read() == "x = 1\n"
    assert disk_cache.source_file("x = 1\n", {"np": np}) == path  # named by its text
    assert disk_cache.source_file("x = 1\n", {"f": lambda: 0}) is None  # no fingerprint
