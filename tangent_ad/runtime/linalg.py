"""Runtime helpers of the linear-algebra rules (templates/numpy_linalg.py):
the adjoint of each operand of a product (``grad_X_lhs``/``grad_X_rhs``)
or of a decomposition, for operands of any rank.

Products are holomorphic, so complex operands need no conjugate: adjoints
follow JAX's convention (the adjoint of `a` in ``a @ b`` is ``g @ b.T``),
and a gradient conjugates its results once at the end when it has to
(``core.conj_complex``). The helpers of triangular matrices (Cholesky's
adjoint among them) are in ``triangles.py``."""
import numpy as np

from tangent_ad.runtime.core import _axes, _like, unbroadcast

__all__ = ["grad_matmul_lhs", "grad_matmul_rhs", "grad_tensordot_lhs", "grad_tensordot_rhs", "grad_dot_lhs", "grad_dot_rhs", "grad_kron_lhs", "grad_kron_rhs", "grad_einsum", "matrix_transpose", "grad_solve_rhs", "grad_solve_lhs", "grad_eigh", "conjugate_transpose"]


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
