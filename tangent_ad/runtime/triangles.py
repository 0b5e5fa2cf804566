"""Runtime helpers of the rules of triangular matrices: Cholesky's adjoint
(``grad_cholesky``, and ``grad_cholesky_triangle`` on the one triangle
NumPy reads), the triangle of a solve's adjoint (``product_triangle``),
and the symmetric matrix eigh and cholesky read from one triangle
(``triangle_matrix``) with its adjoint (``untriangle``).

Cholesky's adjoint of a real NumPy matrix calls SciPy's BLAS when SciPy
is installed (``_real_blas``): a triangular product and solves in place,
rather than a full product and solves that copy their operands, on
blocks of the matrix when it is large (``_folded_inner``). Other
arrays (stacks, complex values, Dask, CuPy) take the np.* path."""
import numpy as np

from tangent_ad.runtime.arrays import numpy_cholesky
from tangent_ad.runtime.linalg import conjugate_transpose, matrix_transpose

__all__ = ["product_triangle", "grad_cholesky", "grad_cholesky_triangle", "triangle_matrix",
           "untriangle"]


def product_triangle(a, b, lower=True, like=None):
    """The lower triangle of ``a @ b^T`` (the upper one unless `lower`),
    for matrices: the adjoint of a triangular matrix in a solve,
    ``tril(-gb x^T)``. A NumPy product is the helper's own array, so the
    other triangle is cleared in it, with no second N x N array. Columns
    (a vector's adjoint) multiply by broadcasting, the same products as
    np.matmul's in half its time. The result is in Fortran order when
    `like` (the triangular matrix) is, as ``L.T`` is: its adjoint, added
    back through the transpose, is then read in memory order.

    >>> product_triangle(np.array([[1.0], [2.0]]), np.array([[3.0], [4.0]]))
    array([[3., 0.],
           [6., 8.]])
    """
    flags = getattr(like, "flags", None)
    if flags is not None and flags.f_contiguous and not flags.c_contiguous:
        return matrix_transpose(product_triangle(b, a, not lower))  # tril(a b^T) = triu(b a^T)^T
    if np.shape(a)[-1] == 1:
        product = a * matrix_transpose(b)
    else:
        product = np.matmul(a, matrix_transpose(b))
    if type(product) is np.ndarray and product.ndim == 2:
        _clear_triangle(product, upper=lower)
        return product
    return np.tril(product) if lower else np.triu(product)


def grad_cholesky(g, lower, upper=False):
    """Adjoint of `a` in ``np.linalg.cholesky(a)`` (`lower` is the result;
    with `upper`, the result is its conjugate transpose), made symmetric
    (Hermitian) like `a`; JAX's convention for complex values.

    With ``P = phi(L^T g)``, the lower triangle of ``L^T g`` with its
    diagonal halved, the adjoint is ``sym(L^-T P conj(L)^-1)``. Only the
    lower triangle of `g` is read (``L^T`` is upper triangular).

    >>> grad_cholesky(np.array([[1.0]]), np.array([[2.0]]))
    array([[0.25]])
    """
    g, lower = _lower_factor(g, lower, upper)
    routines = _real_blas(("trmm", "trsm"), g, lower)
    if routines is not None:
        folded = _folded_inner(g, lower, *routines, _BLOCK)  # tril(s + s^T), s's diagonal
        sym = folded + matrix_transpose(folded)
        sym *= 0.5
        return sym
    inner = np.tril(np.matmul(matrix_transpose(lower), g))
    inner = inner - 0.5 * inner * np.eye(np.shape(lower)[-1], dtype=inner.dtype)
    # s = L^-T inner conj(L)^-1, by two solves with the triangular L^T and
    # L^H (no inverse); for real values both are L^T
    half = _solve_upper(matrix_transpose(lower), inner)
    s = matrix_transpose(_solve_upper(conjugate_transpose(lower), matrix_transpose(half)))
    return 0.5 * (s + conjugate_transpose(s))


def grad_cholesky_triangle(g, lower, upper=False):
    """Adjoint of `a` in ``np.linalg.cholesky(a)`` on the one triangle of
    `a` that NumPy reads: ``untriangle(grad_cholesky(g, lower, upper),
    upper)``. For a real NumPy matrix (with SciPy) the matrix
    ``S = L^-T P L^-1`` of `grad_cholesky` is folded onto the triangle
    directly, ``tril(S + S^T)`` with S's diagonal, which is what
    untriangle makes of ``sym(S)``, without ``sym(S)`` in between.

    >>> grad_cholesky_triangle(np.array([[1.0, 9.0], [0.0, 1.0]]), np.eye(2))
    array([[0.5, 0. ],
           [0. , 0.5]])
    """
    factor_g, factor = _lower_factor(g, lower, upper)
    routines = _real_blas(("trmm", "trsm"), factor_g, factor)
    if routines is None:
        return untriangle(grad_cholesky(g, lower, upper), upper)
    folded = _folded_inner(factor_g, factor, *routines, _BLOCK)
    return matrix_transpose(folded) if upper else folded  # s + s^T is symmetric


_BLOCK = 64  # orders up to this take the three BLAS calls at once (fastest, measured)


def _folded_inner(g, lower, trmm, trsm, block):
    """``_fold_matrix(S, upper=False)`` of ``S = L^-T P L^-1``: the
    adjoint of the lower triangle of `a`, for a real matrix `g` and its
    factor `lower`, by halves when the order is over `block`.

    Splitting ``a`` into blocks, Cholesky is ``L11 = chol(a11)``, ``L21 =
    a21 L11^-T`` and ``L22 = chol(a22 - L21 L21^T)``. Backwards: the lower
    block's adjoint F22 (recursively), which adds ``-(F22 + F22^T) L21``
    to L21's; then ``a21``'s adjoint ``X = g21 L11^-1``, which adds ``-X^T
    L21`` to L11's; then the upper block's adjoint F11 (recursively).
    About a third of the arithmetic of the three calls on the whole
    matrix: 1.6x faster at order 128, 3x at 1000."""
    n = lower.shape[0]
    if n <= block:
        return _fold_matrix(_cholesky_inner_blas(g, lower, trmm, trsm), False)
    k = n // 2
    l11, l21 = lower[:k, :k], lower[k:, :k]
    f22 = _folded_inner(g[k:, k:], lower[k:, k:], trmm, trsm, block)
    g21 = g[k:, :k] - (f22 + matrix_transpose(f22)) @ l21
    x = trsm(1.0, l11, g21, side=1, lower=1)  # X L11 = g21
    f11 = _folded_inner(g[:k, :k] - matrix_transpose(x) @ l21, l11, trmm, trsm, block)
    folded = np.zeros_like(f22, shape=(n, n))
    folded[:k, :k] = f11
    folded[k:, :k] = x
    folded[k:, k:] = f22
    return folded


def _lower_factor(g, lower, upper):
    """(g, L) for the lower factor L: the upper factor is L^H, and its
    adjoint conj(g^T) L's."""
    lower = numpy_cholesky(lower)
    if upper:
        return conjugate_transpose(g), conjugate_transpose(lower)
    return g, lower


def _cholesky_inner_blas(g, lower, trmm, trsm):
    """``S = L^-T P L^-1`` of `grad_cholesky` for a real matrix `g` and
    factor `lower`, by SciPy's BLAS: one triangular product and two
    triangular solves (half the arithmetic of a full product and no
    inverse), in place on the arrays it allocates.

    BLAS reads Fortran order, and the transpose of a C-ordered array is
    one, so it computes ``P^T = g^T L`` and ``W = P^T L^-1``; then
    ``S = W^T L^-1``. Both solves multiply by ``L^-1`` from the right,
    which OpenBLAS does faster than from the left (by half at N = 128).
    W, computed in place of P^T, goes before S is returned: at most two
    matrices at once, so less memory at the peak."""
    lt = matrix_transpose(lower)  # L^T, upper triangular
    work = trmm(1.0, lt, matrix_transpose(g), side=1, lower=0, trans_a=1)  # P^T = g^T L
    # phi keeps P's lower triangle (P^T's upper one) and halves its diagonal
    _clear_triangle(work, upper=False)
    np.fill_diagonal(work, 0.5 * np.diagonal(work))
    work = trsm(1.0, lt, work, side=1, lower=0, trans_a=1, overwrite_b=1)  # W = P^T L^-1
    return trsm(1.0, lt, matrix_transpose(work), side=1, lower=0, trans_a=1, overwrite_b=1)


def _real_blas(names, *matrices):
    """SciPy's BLAS routines `names` for `matrices`, when they are real
    NumPy matrices of one dtype and SciPy is installed; else None, and the
    caller takes its general path in np.* functions (which stacks, complex
    values and other array libraries dispatch)."""
    first = matrices[0]
    if not all(type(m) is np.ndarray and m.ndim == 2 and m.dtype == first.dtype
               for m in matrices) or first.dtype not in (np.float32, np.float64):
        return None
    try:  # imported here: SciPy is optional, and slow to import
        from scipy.linalg import blas
    except ImportError:
        return None
    return blas.get_blas_funcs(names, matrices)


def _clear_triangle(m, upper):
    """Set the strict upper (or lower) triangle of the matrix `m` to zero,
    in place."""
    rows, cols = m.shape
    strict = ~np.tri(rows, cols, dtype=bool) if upper else np.tri(rows, cols, -1, dtype=bool)
    np.copyto(m, 0, where=strict)


def _solve_upper(u, b):
    """u^-1 b for upper-triangular (stacks of) `u`: back substitution by
    SciPy's solve_triangular for NumPy matrices when SciPy is installed,
    else NumPy's solve (which other array types dispatch)."""
    if type(u) is np.ndarray and type(b) is np.ndarray and u.ndim == 2 and b.ndim == 2:
        try:  # imported here: SciPy is optional, and slow to import
            from scipy.linalg import solve_triangular
        except ImportError:
            pass
        else:
            return solve_triangular(u, b, lower=False, check_finite=False)
    return np.linalg.solve(u, b)


def untriangle(s, upper=False):
    """Adjoint of the symmetric matrix that eigh, eigvalsh and cholesky
    build from one triangle of their argument, ``tril(a) + tril(a, -1).T``
    (``triu`` when `upper` is true or ``"U"``): the adjoint `s` of that
    matrix folded onto the triangle, ``tril(s) + tril(s.T, -1)``. NumPy
    never reads the other triangle, so its adjoint is zero. A complex
    matrix is read as Hermitian, ``tril(a, -1) + re diag(a) + tril(a, -1)^H``,
    so its adjoint (in JAX's convention) folds ``conj(s.T)`` and keeps the
    real part of the diagonal.

    >>> untriangle(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[1., 0.],
           [5., 4.]])
    """
    if isinstance(upper, str):
        upper = upper.upper() == "U"
    if type(s) is np.ndarray and s.ndim == 2 and not np.iscomplexobj(s):
        return _fold_matrix(s, upper)
    part, offset = (np.triu, 1) if upper else (np.tril, -1)
    if not np.iscomplexobj(s):
        return part(s) + part(matrix_transpose(s), offset)
    # a complex matrix is read as Hermitian: the other triangle is the
    # conjugate, and only the real part of the diagonal counts
    folded = part(s, offset) + part(np.conj(matrix_transpose(s)), offset)
    diagonal = np.real(np.diagonal(s, axis1=-2, axis2=-1))
    return folded + np.expand_dims(diagonal, -1) * np.eye(np.shape(s)[-1], dtype=s.dtype)


def _fold_matrix(s, upper):
    """`untriangle` of a real NumPy matrix, in one new array: ``s + s.T``
    off the diagonal of the kept triangle, `s` on it, zero elsewhere."""
    folded = s + matrix_transpose(s)
    _clear_triangle(folded, upper=not upper)
    np.fill_diagonal(folded, np.diagonal(s))
    return folded


def triangle_matrix(a, upper=False):
    """The matrix eigh and cholesky decompose when given `a`: the lower
    triangle of `a` (the upper one when `upper` is true or ``"U"``)
    mirrored, ``tril(a) + tril(a, -1).T``; for a complex `a`, Hermitian,
    with the conjugate mirrored and the real part of the diagonal. It is
    linear, and `untriangle` is its adjoint.

    >>> triangle_matrix(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[1., 3.],
           [3., 4.]])
    """
    if isinstance(upper, str):
        upper = upper.upper() == "U"
    part, offset = (np.triu, 1) if upper else (np.tril, -1)
    strict = part(a, offset)
    if not np.iscomplexobj(a):
        return part(a) + matrix_transpose(strict)
    diagonal = np.real(np.diagonal(a, axis1=-2, axis2=-1))
    return strict + np.conj(matrix_transpose(strict)) + \
        np.expand_dims(diagonal, -1) * np.eye(np.shape(a)[-1], dtype=a.dtype)
