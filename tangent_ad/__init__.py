"""tangent_ad: automatic differentiation of Python and NumPy by source
transformation, with derivatives you can read.

>>> import numpy as np, tangent_ad as tad
>>> def f(x):
...     return np.sum(np.tanh(x) * 2.0)
>>> df = tad.grad(f)
>>> print(tad.show_source(df))  # doctest: +SKIP
"""
import importlib

# Each public name and the module that defines it. They are imported on
# first use (PEP 562), so that ``import tangent_ad.runtime``, which the
# generated code and the files the command line writes do, loads NumPy and
# the runtime helpers only, not the transformer (gast, astor, the passes).
_EXPORTS = {
    **dict.fromkeys(("autodiff", "grad", "jvp", "show_source", "value_and_grad", "vjp"),
                    "tangent_ad.api"),
    **dict.fromkeys(("hessian", "hvp", "jacobian"), "tangent_ad.matrices"),
    **dict.fromkeys(("CompileError", "InternalError", "NoDerivativeError", "NonDifferentiableArgumentError",
                     "NonScalarOutputError", "SourceUnavailableError", "TangentADError",
                     "TemplateError", "UnsupportedSyntaxError"), "tangent_ad.errors"),
    **dict.fromkeys(("checkpoint", "checkpointed", "insert_grad_code", "stop_gradient"),
                    "tangent_ad.hooks"),
    **dict.fromkeys(("adjoint", "tangent"), "tangent_ad.registry"),
    "tree_map": "tangent_ad.trees",
}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tangent_ad' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "grad", "value_and_grad", "vjp", "jvp", "hvp", "jacobian", "hessian", "autodiff",
    "show_source", "adjoint", "tangent", "tree_map",
    "insert_grad_code", "stop_gradient", "checkpoint", "checkpointed",
    "TangentADError", "UnsupportedSyntaxError", "NoDerivativeError",
    "SourceUnavailableError", "NonScalarOutputError", "NonDifferentiableArgumentError",
    "TemplateError", "CompileError",
    "InternalError",
]
__version__ = "0.1.0"
