"""``autograd.scipy.signal``: SciPy's module, with autograd's own
``convolve``, which also takes ``axes`` (the pairs of axes convolved) and
``dot_axes`` (pairs summed over, as by ``np.tensordot``).

Without them it is ``scipy.signal.convolve`` (which has a rule). With
them it is written here in NumPy that tangent_ad differentiates by
reading it, so every mode and order comes from the rules of ``np.pad``,
``sliding_window_view``, ``np.flip`` and ``np.einsum``: the full
convolution is one einsum of the windows of the larger array (the smaller
one's size, over the zero-padded larger one) with the smaller one flipped,
then cut to the mode. The axes of the result are `A`'s other axes, then
`B`'s, then the convolved ones, as autograd's.
"""
import itertools

import numpy as np
import scipy.signal
from numpy.lib.stride_tricks import sliding_window_view
from scipy.signal import *  # noqa: F401,F403


def convolve(A, B, axes=None, dot_axes=((), ()), mode="full"):
    if axes is None and not (list(dot_axes[0]) or list(dot_axes[1])):
        return scipy.signal.convolve(A, B, mode)
    filter_is_A, labels_windows, labels_filter, labels_out, pad, sizes, slid_axes, \
        filter_axes, cut = _plan(np.shape(A), np.shape(B), axes, dot_axes, mode)
    slid, small = (B, A) if filter_is_A else (A, B)
    windows = sliding_window_view(np.pad(slid, pad), sizes, axis=slid_axes)
    full = np.einsum(windows, labels_windows, np.flip(small, filter_axes), labels_filter,
                     labels_out, optimize=True)  # (a BLAS product, not a loop over the view)
    return full[cut]


def _plan(shape_A, shape_B, axes, dot_axes, mode):
    """Whether A is the filter (the array with fewer entries on the
    convolved axes; the full convolution is symmetric), the einsum labels
    of the other's windows and of the filter, and of the result, the
    padding of the other, the window's sizes, the convolved axes of each,
    and the cut of the full result to `mode`."""
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode {mode!r}: one of 'full', 'valid' and 'same'")
    if axes is None:
        axes = (list(range(len(shape_A))), list(range(len(shape_B))))
    conv_A, conv_B = list(axes[0]), list(axes[1])
    dot_A, dot_B = list(dot_axes[0]), list(dot_axes[1])
    ignore_A = [i for i in range(len(shape_A)) if i not in conv_A + dot_A]
    ignore_B = [i for i in range(len(shape_B)) if i not in conv_B + dot_B]
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
    offsets = [next(label) for _ in conv_A]  # the position inside the window
    labels_out = [of_A[a] for a in ignore_A] + [of_B[b] for b in ignore_B] + \
        [of_A[a] for a in conv_A]
    if filter_is_A:
        shape_f, conv_f, of_f, shape_s, conv_s, of_s = shape_A, conv_A, of_A, shape_B, conv_B, of_B
    else:
        shape_f, conv_f, of_f, shape_s, conv_s, of_s = shape_B, conv_B, of_B, shape_A, conv_A, of_A
    labels_filter = [offsets[conv_f.index(i)] if i in conv_f else of_f[i]
                     for i in range(len(shape_f))]
    labels_windows = [of_s[i] for i in range(len(shape_s))] + offsets
    sizes = [shape_f[i] for i in conv_f]
    pad = [(0, 0)] * len(shape_s)
    for i, k in zip(conv_s, sizes):
        pad[i] = (k - 1, k - 1)
    cut = [slice(None)] * len(labels_out)
    first = len(ignore_A) + len(ignore_B)
    for k, (a, b) in enumerate(zip(conv_A, conv_B)):
        n, m = shape_A[a], shape_B[b]
        if mode == "valid":
            cut[first + k] = slice(min(n, m) - 1, max(n, m))
        elif mode == "same":
            cut[first + k] = slice((m - 1) // 2, (m - 1) // 2 + n)
    return (filter_is_A, labels_windows, labels_filter, labels_out, pad, tuple(sizes),
            tuple(conv_s), tuple(conv_f), tuple(cut))
