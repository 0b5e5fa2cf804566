"""``autograd.scipy`` is SciPy: ``autograd.scipy.X`` is ``scipy.X``, and
``autograd.scipy.stats.<dist>`` is SciPy's distribution object; but
``autograd.scipy.signal`` is this package's own (autograd's ``convolve``
takes ``axes`` and ``dot_axes``, SciPy's does not)."""
import importlib
import sys

import scipy

_SUBMODULES = ["integrate", "linalg", "special", "stats", "misc", "fft"]
for _name in _SUBMODULES:
    try:
        _module = importlib.import_module(f"scipy.{_name}")
    except ImportError:
        continue
    sys.modules[f"{__name__}.{_name}"] = _module
    globals()[_name] = _module

# autograd has modules autograd.scipy.stats.norm etc.; SciPy has objects
for _dist in ["norm", "t", "gamma", "beta", "chi2", "poisson", "dirichlet",
              "multivariate_normal"]:
    if "stats" in globals() and hasattr(stats, _dist):
        sys.modules[f"{__name__}.stats.{_dist}"] = getattr(stats, _dist)

from . import signal  # noqa: E402,F401
