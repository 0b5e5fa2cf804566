"""The example scripts run to the end without an error (newton.py also
checks the minimum it finds).

examples/long_simulation.py takes about 10 s and is left to
``python examples/long_simulation.py``.
"""
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name", ["newton.py", "ode_fit.py", "rnn_clipping.py",
                                  "tree_network.py"])
def test_example_runs(name):
    result = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                            text=True, timeout=300, cwd=EXAMPLES.parent)
    assert result.returncode == 0, result.stderr[-2000:]


def test_the_dask_example_runs_on_a_small_dataset():
    pytest.importorskip("distributed")
    result = subprocess.run([sys.executable, str(EXAMPLES / "dask_logistic.py"), "--rows", "20000",
                             "--chunk", "5000", "--steps", "2", "--workers", "1",
                             "--in-process"],
                            capture_output=True, text=True, timeout=300, cwd=EXAMPLES.parent)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "step 1: loss" in result.stdout and "peak memory" in result.stdout
    assert "same numbers: False" not in result.stdout
