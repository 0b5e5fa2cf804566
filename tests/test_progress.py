"""Slow transformations and staging steps say so (tangent_ad/progress.py)."""
import logging

import numpy as np

import tangent_ad as tad
from tangent_ad import progress


def f(x):
    return np.sum(np.sin(x) * x)


def g(x):
    return np.sum(np.cos(x) * x)


def test_a_slow_transformation_is_reported_once_as_a_warning(monkeypatch, caplog):
    monkeypatch.setattr(progress, "SLOW_SECONDS", 0.0)
    monkeypatch.setattr(progress, "_warned", False)
    with caplog.at_level(logging.INFO, logger="tangent_ad"):
        df = tad.grad(f, optimized=False)
        tad.grad(g, optimized=False)
    records = [r for r in caplog.records if r.name == "tangent_ad"]
    assert records[0].levelno == logging.WARNING
    assert "differentiating f took" in records[0].getMessage()
    assert all(r.levelno == logging.INFO for r in records[1:])
    assert any("differentiating g took" in r.getMessage() for r in records[1:])
    assert np.allclose(df(np.array([0.5])), np.sin(0.5) + 0.5 * np.cos(0.5))


def test_verbose_prints_each_slow_step(monkeypatch, capsys):
    monkeypatch.setattr(progress, "SLOW_SECONDS", 0.0)
    progress.report("differentiating h took 3.0 s", verbose=1)
    assert capsys.readouterr().err == "tangent_ad: differentiating h took 3.0 s\n"


def test_staging_a_copy_is_timed(monkeypatch, caplog):
    monkeypatch.setattr(progress, "SLOW_SECONDS", 0.0)
    monkeypatch.setattr(progress, "_warned", True)

    def h(x):
        return np.sum(np.tanh(x) ** 2)

    dh = tad.grad(h)
    with caplog.at_level(logging.INFO, logger="tangent_ad"):
        for _ in range(5):
            dh(np.ones(3))
    assert any("specializing dh_dx to its arguments took" in r.getMessage()
               for r in caplog.records)


def test_fast_work_is_silent(caplog):
    def k(x):
        return np.sum(x * 3.0)

    with caplog.at_level(logging.INFO, logger="tangent_ad"):
        tad.grad(k)(np.ones(2))
    assert not [r for r in caplog.records if r.name == "tangent_ad"]
