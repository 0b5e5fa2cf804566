"""``autograd.scipy.signal``: SciPy's module, with autograd's own
``convolve``, which also takes ``axes`` (the pairs of axes convolved) and
``dot_axes`` (pairs summed over, as by ``np.tensordot``).

Without them it is ``scipy.signal.convolve`` (which has a rule). With
them it is written here in NumPy that tangent_ad differentiates by
reading it, so every mode and order comes from the rules of ``np.pad``,
indexing and ``np.einsum``: the full convolution is a sum over the
offsets of the smaller array's convolved axes (the filter) of einsums of
one slice of it with a window of the other, zero-padded, then cut to the
mode. The axes of the
result are `A`'s other axes, then `B`'s, then the convolved ones, as
autograd's.
"""
import itertools

import numpy as np
import scipy.signal
from scipy.signal import *  # noqa: F401,F403


def convolve(A, B, axes=None, dot_axes=((), ()), mode="full"):
    if axes is None and not (list(dot_axes[0]) or list(dot_axes[1])):
        return scipy.signal.convolve(A, B, mode)
    labels_A, labels_B, labels_out, pad_A, pad_B, terms, cut = _plan(
        np.shape(A), np.shape(B), axes, dot_axes, mode)
    padded_A, padded_B = np.pad(A, pad_A), np.pad(B, pad_B)
    full = 0.0
    for index_A, index_B in terms:
        full = full + np.einsum(padded_A[index_A], labels_A, padded_B[index_B], labels_B,
                                labels_out)
    return full[cut]


def _plan(shape_A, shape_B, axes, dot_axes, mode):
    """The einsum labels, the padding of A and B, the (A index, B index)
    of each offset of the smaller one (the filter, flipped: indexed by
    ints) in the other (zero-padded, a window per offset), and the cut of
    the full result to `mode`."""
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode {mode!r}: one of 'full', 'valid' and 'same'")
    if axes is None:
        axes = (list(range(len(shape_A))), list(range(len(shape_B))))
    conv_A, conv_B = list(axes[0]), list(axes[1])
    dot_A, dot_B = list(dot_axes[0]), list(dot_axes[1])
    ignore_A = [i for i in range(len(shape_A)) if i not in conv_A + dot_A]
    ignore_B = [i for i in range(len(shape_B)) if i not in conv_B + dot_B]
    # the filter has the fewer offsets; the full convolution is symmetric
    filter_is_A = int(np.prod([shape_A[a] for a in conv_A])) <= \
        int(np.prod([shape_B[b] for b in conv_B]))
    label = itertools.count()
    of_A, of_B = {}, {}
    for a in ignore_A:
        of_A[a] = next(label)
    for b in ignore_B:
        of_B[b] = next(label)
    for a, b in zip(dot_A, dot_B):
        of_A[a] = of_B[b] = next(label)
    for a, b in zip(conv_A, conv_B):
        of_A[a] = of_B[b] = next(label)  # the slid array's axis, the result's
    labels_A = [of_A[a] for a in range(len(shape_A)) if not (filter_is_A and a in conv_A)]
    labels_B = [of_B[b] for b in range(len(shape_B)) if filter_is_A or b not in conv_B]
    labels_out = [of_A[a] for a in ignore_A] + [of_B[b] for b in ignore_B] + \
        [of_A[a] for a in conv_A]
    pad_A, pad_B = [(0, 0)] * len(shape_A), [(0, 0)] * len(shape_B)
    filters = [(a, b, shape_A[a] if filter_is_A else shape_B[b]) for a, b in zip(conv_A, conv_B)]
    for a, b, k in filters:
        if filter_is_A:
            pad_B[b] = (k - 1, k - 1)
        else:
            pad_A[a] = (k - 1, k - 1)
    terms = []
    for offset in itertools.product(*[range(k) for _, _, k in filters]):
        index_A = [slice(None)] * len(shape_A)
        index_B = [slice(None)] * len(shape_B)
        for (a, b, k), j in zip(filters, offset):
            length = shape_A[a] + shape_B[b] - 1
            if filter_is_A:
                index_A[a], index_B[b] = k - 1 - j, slice(j, j + length)
            else:
                index_A[a], index_B[b] = slice(j, j + length), k - 1 - j
        terms.append((tuple(index_A), tuple(index_B)))
    cut = [slice(None)] * len(labels_out)
    first = len(ignore_A) + len(ignore_B)
    for k, (a, b) in enumerate(zip(conv_A, conv_B)):
        n, m = shape_A[a], shape_B[b]
        if mode == "valid":
            cut[first + k] = slice(min(n, m) - 1, max(n, m))
        elif mode == "same":
            cut[first + k] = slice((m - 1) // 2, (m - 1) // 2 + n)
    return labels_A, labels_B, labels_out, pad_A, pad_B, terms, tuple(cut)
