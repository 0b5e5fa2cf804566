"""Runtime helpers of loop checkpointing (``tad.checkpointed``)."""
import math

__all__ = ["segment_length"]


def segment_length(n):
    """Iterations per segment of a checkpointed loop of `n` iterations:
    about sqrt(n), so that snapshots and per-segment saves both stay
    O(sqrt(n)).

    >>> segment_length(10000), segment_length(0)
    (100, 1)
    """
    return max(1, math.isqrt(max(n - 1, 0)) + 1)
