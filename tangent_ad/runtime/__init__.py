"""The helpers that generated derivative code calls.

Generated functions, and the files the command line writes, import these
and nothing else from tangent_ad (``from tangent_ad.runtime import ...``),
so this package depends on NumPy only. Each helper does one small piece of
bookkeeping a reader can look up here:

* ``arrays``: allocation and scatter-add in the operands' own array
  library (NumPy, Dask, CuPy), so that derivatives follow the arrays;
* ``boundary``: what a derivative does with its arguments and results:
  an integer argument enters as float64 (``float_argument``), a result
  leaves in its argument's type, structure and dtype (``cast_like``);
* ``core``: undoing broadcasting (``unbroadcast``), spreading a
  reduction's adjoint back (``unreduce``), scattering an indexing's adjoint
  back (``unindex``), and the scalar-output check;
* ``structures``: adjoints of tuples, lists and dicts, and the functional
  forms of ``append`` and item assignment;
* ``objects``: attributes of dataclasses and user objects (``field``) and
  their adjoints and tangents;
* ``function_values``: calls of functions known only when the code runs,
  and the derivatives of those values, made when they are first called;
* ``odes``: the adjoint and tangent of scipy.integrate.odeint, ODEs
  solved with odeint;
* ``loops``: the segment length of a checkpointed loop;
* ``ordering``: the positions ``sorted``, ``min``, ``max`` and ``reversed``
  pick, for the indexing the front end writes in their place;
* ``tangents``: forward-mode helpers (zero tangents, broadcasting a
  tangent to its result's shape, tangents of decompositions);
* ``linalg_tangents``: the tangents of the decompositions' adjoints
  (Cholesky's, eigh's, the matrix 2-norm's and nuclear norm's), for
  forward mode over a gradient;
* ``array_ops``: the adjoints of np.cross (with its axis arguments),
  np.gradient and np.select;
* ``fft``: the adjoints of the discrete Fourier transforms; ``svd``: the
  adjoints and tangents of the singular value decomposition, whose
  formulas for the vectors (``svd_formulas``) also run on dual numbers
  for second derivatives;
* ``factorizations``: the row permutation of scipy.linalg.lu_factor and
  the banded storage of solve_banded;
* ``interpolation``: the adjoints of np.interp, np.polyval, np.trapezoid,
  np.correlate and np.meshgrid;
* ``linalg_general``: pieces of the rules of np.linalg.eig, eigvals and
  lstsq;
* ``quantiles``: the adjoints of np.quantile and np.percentile (and the
  nan* forms), method 'linear';
* ``shared_lu``: one LU factorization for the solves, determinant and
  inverse of a matrix, in a specialized copy (``staging/shared_factors.py``);
* ``triangles``: Cholesky's adjoint, the triangle of a triangular
  solve's adjoint, and the symmetric matrix read from one triangle;
* ``reductions``, ``shapes``, ``linalg``: the helpers of the NumPy rules,
  one per function whose adjoint is more than a line of NumPy: ``unX``
  undoes the data movement of ``np.X``, ``grad_X`` is the adjoint of an
  operand of a product or a decomposition.
"""
from tangent_ad.runtime import (
    array_ops, arrays, boundary, core, factorizations, fft, function_values, interpolation, linalg,
    linalg_general, odes,
    linalg_tangents, loops, objects, ordering, quantiles, reductions, shapes, shared_lu, structures,
    svd,
    svd_formulas, tangents, triangles)
from tangent_ad.runtime.array_ops import *  # noqa: F401,F403
from tangent_ad.runtime.arrays import *  # noqa: F401,F403
from tangent_ad.runtime.boundary import *  # noqa: F401,F403
from tangent_ad.runtime.core import *  # noqa: F401,F403
from tangent_ad.runtime.factorizations import *  # noqa: F401,F403
from tangent_ad.runtime.fft import *  # noqa: F401,F403
from tangent_ad.runtime.function_values import *  # noqa: F401,F403
from tangent_ad.runtime.interpolation import *  # noqa: F401,F403
from tangent_ad.runtime.linalg import *  # noqa: F401,F403
from tangent_ad.runtime.linalg_general import *  # noqa: F401,F403
from tangent_ad.runtime.linalg_tangents import *  # noqa: F401,F403
from tangent_ad.runtime.loops import *  # noqa: F401,F403
from tangent_ad.runtime.odes import *  # noqa: F401,F403
from tangent_ad.runtime.objects import *  # noqa: F401,F403
from tangent_ad.runtime.ordering import *  # noqa: F401,F403
from tangent_ad.runtime.quantiles import *  # noqa: F401,F403
from tangent_ad.runtime.reductions import *  # noqa: F401,F403
from tangent_ad.runtime.shapes import *  # noqa: F401,F403
from tangent_ad.runtime.shared_lu import *  # noqa: F401,F403
from tangent_ad.runtime.structures import *  # noqa: F401,F403
from tangent_ad.runtime.svd import *  # noqa: F401,F403
from tangent_ad.runtime.tangents import *  # noqa: F401,F403
from tangent_ad.runtime.triangles import *  # noqa: F401,F403

MODULES = (arrays, boundary, core, structures, objects, loops, ordering, reductions, shapes, linalg,
           linalg_tangents, tangents, fft, svd, array_ops, interpolation, quantiles,
           linalg_general, factorizations, svd_formulas, function_values, odes, triangles,
           shared_lu)
__all__ = [name for module in MODULES for name in module.__all__]
