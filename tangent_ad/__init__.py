"""tangent_ad: automatic differentiation of Python and NumPy by source
transformation, with derivatives you can read.

>>> import numpy as np, tangent_ad as tad
>>> def f(x):
...     return np.sum(np.tanh(x) * 2.0)
>>> df = tad.grad(f)
>>> print(tad.show_source(df))  # doctest: +SKIP
"""
from tangent_ad.api import (
    autodiff, grad, hessian, hvp, jacobian, jvp, show_source, value_and_grad, vjp)
from tangent_ad.errors import (
    InternalError, NoDerivativeError, NonDifferentiableArgumentError, NonScalarOutputError, SourceUnavailableError,
    TangentADError, TemplateError, UnsupportedSyntaxError)
from tangent_ad.hooks import checkpoint, checkpointed, insert_grad_code, stop_gradient
from tangent_ad.registry import adjoint, tangent
from tangent_ad.trees import tree_map

__all__ = [
    "grad", "value_and_grad", "vjp", "jvp", "hvp", "jacobian", "hessian", "autodiff",
    "show_source", "adjoint", "tangent", "tree_map",
    "insert_grad_code", "stop_gradient", "checkpoint", "checkpointed",
    "TangentADError", "UnsupportedSyntaxError", "NoDerivativeError",
    "SourceUnavailableError", "NonScalarOutputError", "NonDifferentiableArgumentError",
    "TemplateError",
    "InternalError",
]
__version__ = "0.1.0"
