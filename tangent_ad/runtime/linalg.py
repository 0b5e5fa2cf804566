"""Runtime helpers of the linear-algebra rules (templates/numpy_linalg.py):
the adjoint of each operand of a product (``grad_X_lhs``/``grad_X_rhs``)
or of a decomposition, for operands of any rank.

Products are holomorphic, so complex operands need no conjugate: adjoints
follow JAX's convention (the adjoint of `a` in ``a @ b`` is ``g @ b.T``),
and a gradient conjugates its results once at the end when it has to
(``core.conj_complex``).

Cholesky's adjoint of a real NumPy matrix calls SciPy's BLAS when SciPy
is installed (``_real_blas``): a triangular product and solves in place,
rather than a full product and solves that copy their operands. Other
arrays take the np.* path."""
import numpy as np

from tangent_ad.runtime.arrays import numpy_cholesky
from tangent_ad.runtime.core import _axes, _like, unbroadcast

__all__ = ["grad_matmul_lhs", "grad_matmul_rhs", "grad_tensordot_lhs", "grad_tensordot_rhs", "grad_dot_lhs", "grad_dot_rhs", "grad_kron_lhs", "grad_kron_rhs", "grad_einsum", "matrix_transpose", "grad_solve_rhs", "grad_solve_lhs", "product_triangle", "grad_cholesky", "grad_cholesky_triangle", "grad_eigh", "triangle_matrix", "untriangle", "conjugate_transpose"]


def _matmul_operands(g, a, b):
    """Promote 1-D operands (and `g` with them) to matrices, as `@` does."""
    a2 = a[None, :] if np.ndim(a) == 1 else a
    b2 = b[:, None] if np.ndim(b) == 1 else b
    if np.ndim(b) == 1:
        g = np.expand_dims(g, -1)
    if np.ndim(a) == 1:
        g = np.expand_dims(g, -2)
    return g, a2, b2


def _matmul_lhs_fast(g, a, b):
    """`g @ b.T` and its 1-D variants for NumPy arrays of rank 1 or 2, else
    None. `g` has the product's shape, so nothing is broadcast."""
    na, nb = a.ndim, b.ndim
    if na == 2:
        if nb == 2:
            return g @ b.T
        if nb == 1:
            return np.multiply.outer(g, b)
    elif na == 1 and nb == 2:
        return b @ g
    return None


def _matmul_rhs_fast(g, a, b):
    """`a.T @ g` and its 1-D variants, as `_matmul_lhs_fast`."""
    na, nb = a.ndim, b.ndim
    if nb == 2:
        if na == 2:
            return a.T @ g
        if na == 1:
            return np.multiply.outer(a, g)
    elif nb == 1 and na == 2:
        return g @ a
    return None


def grad_matmul_lhs(g, a, b):
    """Adjoint of `a` in `a @ b` (for matrices: `g @ b.T`), any ranks.

    >>> grad_matmul_lhs(np.ones((1, 2)), np.zeros((1, 3)), np.arange(6.0).reshape(3, 2))
    array([[1., 5., 9.]])
    >>> grad_matmul_lhs(np.ones(3), np.zeros((3, 2)), np.array([1.0, 2.0]))
    array([[1., 2.],
           [1., 2.],
           [1., 2.]])
    """
    if type(a) is np.ndarray and type(b) is np.ndarray and type(g) is np.ndarray:
        ga = _matmul_lhs_fast(g, a, b)
        if ga is not None and ga.dtype == a.dtype:
            return ga
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    g2, _, b2 = _matmul_operands(g, a, b)
    ga = np.matmul(g2, np.swapaxes(b2, -1, -2))
    if np.ndim(a) == 1:
        ga = ga[..., 0, :]
    return unbroadcast(ga, a)


def grad_matmul_rhs(g, a, b):
    """Adjoint of `b` in `a @ b` (for matrices: `a.T @ g`), any ranks.

    >>> grad_matmul_rhs(np.ones((1, 2)), np.array([[1.0, 2.0, 3.0]]), np.zeros((3, 2)))
    array([[1., 1.],
           [2., 2.],
           [3., 3.]])
    >>> grad_matmul_rhs(np.ones(2), np.array([1.0, 2.0]), np.zeros((2, 2)))
    array([[1., 1.],
           [2., 2.]])
    """
    if type(a) is np.ndarray and type(b) is np.ndarray and type(g) is np.ndarray:
        gb = _matmul_rhs_fast(g, a, b)
        if gb is not None and gb.dtype == b.dtype:
            return gb
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    g2, a2, _ = _matmul_operands(g, a, b)
    gb = np.matmul(np.swapaxes(a2, -1, -2), g2)
    if np.ndim(b) == 1:
        gb = gb[..., 0]
    return unbroadcast(gb, b)


def _tensordot_axes(a, b, axes):
    """The contracted axes of a and b in np.tensordot(a, b, axes), as two
    tuples of non-negative axes (none when either operand is a scalar)."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return (), ()
    if np.ndim(axes) == 0:
        return tuple(range(na - axes, na)), tuple(range(axes))
    a_axes, b_axes = axes
    return _axes(a_axes, na), _axes(b_axes, nb)


def grad_tensordot_lhs(g, a, b, axes=2):
    """Adjoint of `a` in ``np.tensordot(a, b, axes)``: `g` contracted with
    `b` over `b`'s free axes, then `a`'s axes put back in order.

    >>> grad_tensordot_lhs(np.ones((2, 4)), np.zeros((2, 3)), np.ones((3, 4)), 1)
    array([[4., 4., 4.],
           [4., 4., 4.]])
    """
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    a_free = [i for i in range(np.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(np.ndim(b)) if i not in b_axes]
    ga = np.tensordot(g, b, axes=(list(range(len(a_free), np.ndim(g))), b_free))
    order = a_free + [a_axes[b_axes.index(i)] for i in sorted(b_axes)]
    return _like(np.transpose(ga, _inverse(order)), a)


def grad_tensordot_rhs(g, a, b, axes=2):
    """Adjoint of `b` in ``np.tensordot(a, b, axes)``.

    >>> grad_tensordot_rhs(np.ones((2, 4)), np.ones((2, 3)), np.zeros((3, 4)), 1)
    array([[2., 2., 2., 2.],
           [2., 2., 2., 2.],
           [2., 2., 2., 2.]])
    """
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    a_free = [i for i in range(np.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(np.ndim(b)) if i not in b_axes]
    gb = np.tensordot(a, g, axes=(a_free, list(range(len(a_free)))))
    order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + b_free
    return _like(np.transpose(gb, _inverse(order)), b)


def _inverse(order):
    """The permutation that undoes `order`, as a tuple of ints (other array
    libraries take axes as Python ints, not as a NumPy array)."""
    return tuple(int(i) for i in np.argsort(order))


def _dot_axes(a, b):
    """np.dot contracts the last axis of a with the second-to-last of b."""
    return (-1,), (-2 if np.ndim(b) > 1 else -1,)


def grad_dot_lhs(g, a, b):
    """Adjoint of `a` in ``np.dot(a, b)``, for operands of any rank.

    >>> grad_dot_lhs(1.0, np.zeros(2), np.array([3.0, 4.0]))
    array([3., 4.])
    """
    return grad_tensordot_lhs(g, a, b, _dot_axes(a, b))


def grad_dot_rhs(g, a, b):
    """Adjoint of `b` in ``np.dot(a, b)``, for operands of any rank.

    >>> grad_dot_rhs(np.ones(2), np.eye(2), np.zeros(2))
    array([1., 1.])
    """
    return grad_tensordot_rhs(g, a, b, _dot_axes(a, b))


def grad_kron_lhs(g, a, b):
    """Adjoint of `a` in ``np.kron(a, b)``: each block of `g` against `b`.

    >>> grad_kron_lhs(np.ones(6), np.zeros(2), np.array([1.0, 2.0, 3.0]))
    array([6., 6.])
    """
    blocks, sa, sb = _kron_blocks(g, a, b)
    weights = np.reshape(b, [k for n in sb for k in (1, n)])
    summed = np.sum(blocks * weights, axis=tuple(range(1, 2 * len(sb), 2)))
    return _like(np.reshape(summed, np.shape(a)), a)


def grad_kron_rhs(g, a, b):
    """Adjoint of `b` in ``np.kron(a, b)``: the blocks of `g` weighted by `a`.

    >>> grad_kron_rhs(np.ones(6), np.array([1.0, 2.0]), np.zeros(3))
    array([3., 3., 3.])
    """
    blocks, sa, sb = _kron_blocks(g, a, b)
    weights = np.reshape(a, [k for n in sa for k in (n, 1)])
    summed = np.sum(blocks * weights, axis=tuple(range(0, 2 * len(sa), 2)))
    return _like(np.reshape(summed, np.shape(b)), b)


def _kron_blocks(g, a, b):
    """`g` as blocks (a0, b0, a1, b1, ...) and both shapes at the same rank."""
    n = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (n - np.ndim(a)) + np.shape(a)
    sb = (1,) * (n - np.ndim(b)) + np.shape(b)
    return np.reshape(g, [k for pair in zip(sa, sb) for k in pair]), sa, sb


def grad_einsum(g, operands):
    """Adjoints of the arrays in ``np.einsum(*operands)``: None for the
    subscripts, then one per array. Each is an einsum of `g` with the other
    arrays; an index repeated in its array (a diagonal) gets an identity
    matrix, and an index found only in its array gets a vector of ones.

    >>> x, y = np.ones((2, 3)), np.arange(3.0)
    >>> grad_einsum(np.ones(2), ("ij,j->i", x, y))
    [None, array([[0., 1., 2.],
           [0., 1., 2.]]), array([2., 2., 2.])]
    """
    if not isinstance(operands[0], str):  # the sublist form: einsum(a, [0, 1], b, [1, 2])
        subscripts, positions = _sublist_subscripts(operands)
        grads = grad_einsum(g, (subscripts,) + tuple(operands[p] for p in positions))
        spread = [None] * len(operands)
        for p, grad in zip(positions, grads[1:]):
            spread[p] = grad
        return spread
    inputs, output, sizes = _einsum_subscripts(operands[0], operands[1:])
    spare = iter(sorted(set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
                        - set(sizes)))
    grads = [None]
    for k, x in enumerate(operands[1:]):
        subs = [output] + [s for j, s in enumerate(inputs) if j != k]
        values = [g] + [a for j, a in enumerate(operands[1:]) if j != k]
        dtype = np.result_type(g, x)
        target = ""
        for c in inputs[k]:
            if c in target:  # a repeated index: the adjoint lives on a diagonal
                target += next(spare)
                subs.append(c + target[-1])
                values.append(np.eye(sizes[c], dtype=dtype))
            else:
                target += c
        for c in sorted(set(inputs[k]) - set("".join(subs))):
            subs.append(c)
            values.append(np.ones(sizes[c], dtype=dtype))
        grad = np.einsum(",".join(subs) + "->" + target, *values, optimize=True)
        grads.append(unbroadcast(grad, x))
    return grads


def _sublist_subscripts(operands):
    """The subscript string of ``np.einsum(a, sub_a, b, sub_b, ..., [out])``
    and the positions of its arrays: index k is the k-th letter, Ellipsis
    is '...'."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def spell(sublist):
        return "".join("..." if k is Ellipsis else letters[k] for k in sublist)

    positions = list(range(0, len(operands) - 1, 2))
    subscripts = ",".join(spell(operands[p + 1]) for p in positions)
    if len(operands) % 2:
        subscripts += "->" + spell(operands[-1])
    return subscripts, positions


def _einsum_subscripts(subscripts, arrays):
    """(input subscripts, output subscripts, {index: size}) of an einsum,
    with '...' spelled out in capital letters and the output made explicit."""
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, rhs = subscripts.partition("->")
    inputs = lhs.split(",")
    ellipsis = max([np.ndim(a) - len(s.replace("...", "")) for s, a in zip(inputs, arrays)
                    if "..." in s], default=0)
    letters = "".join(sorted(set("ABCDEFGHIJKLMNOPQRSTUVWXYZ") - set(subscripts)))[:ellipsis]
    inputs = [s.replace("...", letters[ellipsis - (np.ndim(a) - len(s) + 3):])
              if "..." in s else s for s, a in zip(inputs, arrays)]
    if arrow:
        output = rhs.replace("...", letters)
    else:
        joined = "".join(inputs)
        output = letters + "".join(sorted(c for c in set(joined) - set(letters)
                                          if joined.count(c) == 1))
    sizes = {}
    for s, a in zip(inputs, arrays):
        for c, n in zip(s, np.shape(a)):
            sizes[c] = max(sizes.get(c, 1), n)
    return inputs, output, sizes


def matrix_transpose(x):
    """`x` with its last two axes swapped (a stack of transposed matrices).

    >>> matrix_transpose(np.zeros((4, 2, 3))).shape
    (4, 3, 2)
    """
    return np.swapaxes(x, -1, -2)


def conjugate_transpose(x):
    """The conjugate transpose of (a stack of) matrices; the transpose of
    real ones (no copy is conjugated)."""
    x = matrix_transpose(x)
    return np.conj(x) if np.iscomplexobj(x) else x


def grad_solve_rhs(g, a, x):
    """Adjoint of `b` in ``x = np.linalg.solve(a, b)``, before reducing it
    to `b`'s shape: the solution of a.T y = g.

    >>> grad_solve_rhs(np.array([2.0, 4.0]), 2.0 * np.eye(2), np.zeros(2))
    array([1., 2.])
    """
    at = matrix_transpose(a)
    if np.ndim(x) == np.ndim(a) - 1:  # b was a vector
        return np.linalg.solve(at, g[..., None])[..., 0]
    return np.linalg.solve(at, g)


def grad_solve_lhs(gb, a, x):
    """Adjoint of `a` in ``x = np.linalg.solve(a, b)``, given `gb` from
    :func:`grad_solve_rhs`: -gb x.T.

    >>> grad_solve_lhs(np.array([1.0, 2.0]), np.eye(2), np.array([1.0, 0.0]))
    array([[-1., -0.],
           [-2., -0.]])
    """
    if np.ndim(x) == np.ndim(a) - 1:
        ga = -gb[..., :, None] * x[..., None, :]
    else:
        ga = -np.matmul(gb, matrix_transpose(x))
    return unbroadcast(ga, a)


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
        s = _cholesky_inner_blas(g, lower, *routines)
        sym = s + matrix_transpose(s)
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
    return _fold_matrix(_cholesky_inner_blas(factor_g, factor, *routines), upper)


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


def grad_eigh(g, result):
    """Adjoint of `a` in ``w, v = np.linalg.eigh(a)`` (distinct eigenvalues),
    made symmetric (Hermitian) like `a`; `g` is the pair of adjoints of
    (w, v), either of which may be None. In JAX's convention for complex
    values: ``conj(v) (diag(re gw) + F * (v^T gv)) v^T`` with
    ``F_ij = 1 / (w_j - w_i)`` off the diagonal.

    >>> grad_eigh((np.array([1.0, 0.0]), None), np.linalg.eigh(np.diag([1.0, 2.0])))
    array([[1., 0.],
           [0., 0.]])
    """
    (gw, gv), (w, v) = g, result
    inner = np.zeros_like(v)
    if gw is not None:
        inner = inner + np.expand_dims(np.real(gw), -1) * np.eye(np.shape(w)[-1], dtype=v.dtype)
    if gv is not None:
        gap = np.expand_dims(w, -2) - np.expand_dims(w, -1)  # w[j] - w[i]
        off = ~np.eye(np.shape(w)[-1], dtype=bool)
        inverse_gap = np.divide(1.0, gap, out=np.zeros_like(gap), where=off)
        inner = inner + inverse_gap * np.matmul(matrix_transpose(v), gv)
    s = np.matmul(np.matmul(np.conj(v), inner), matrix_transpose(v))
    return 0.5 * (s + np.conj(matrix_transpose(s)))


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
