"""Custom logic in the backward pass: hooks, gradient stops, checkpoints.

These are ordinary Python objects, so a function that uses them still runs
when called directly; tangent_ad recognises them when it transforms the
function.
"""
import copy
import functools


class insert_grad_code:
    """``with insert_grad_code(x) as dx:`` runs its body in the backward pass.

    In the derivative, the body is removed from the forward sweep and
    placed in the adjoint sweep at the point where ``x``'s adjoint is
    complete, with ``dx`` bound to that adjoint; assigning to ``dx``
    replaces it (clip it, scale it, log it, set a breakpoint).

    When the function is called directly, the block runs once as ordinary
    code with ``dx`` bound to a copy of the value of ``x``; nothing it
    does, in place or not, changes ``x``.
    """

    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return copy.deepcopy(self.value)  # in-place changes must not reach x

    def __exit__(self, *exc):
        return False


def stop_gradient(x):
    """Identity in the forward computation; no gradient flows through it.

    >>> stop_gradient(3.0)
    3.0
    """
    return x


class checkpoint:
    """Mark a function whose intermediate values are recomputed, not stored.

    ``g = checkpoint(f)`` (or ``@checkpoint`` on ``f``) behaves like ``f``.
    In a derivative, a call to it stores only its arguments during the
    forward sweep; the backward sweep runs ``f``'s forward sweep again to
    get the intermediates it needs. Memory is traded for time.
    """

    def __init__(self, func):
        self.__wrapped__ = func
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)


def checkpointed(steps):
    """Mark a ``range`` loop whose derivative keeps O(sqrt(n)) snapshots.

    ``for i in checkpointed(range(n)):`` iterates exactly like
    ``range(n)``. In a derivative, the loop-carried variables are saved
    only at the start of segments of about sqrt(n) iterations, and each
    segment is run forward again during the backward sweep: memory is
    traded for recomputation.
    """
    return steps
