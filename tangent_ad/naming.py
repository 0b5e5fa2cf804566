"""Deterministic, clash-free names for the variables the transformer adds.

Temporaries are ``t``, ``t2``, ``t3``...; a redefined name ``x`` gets
``x2``; the adjoint of ``x`` is ``bx`` and its tangent ``dx``. A name is
never reused and never collides with a name of the user's function or its
globals, so the same input always gives the same, readable output.
"""
import itertools

# A call to this name, with a string, is how passes leave a comment in the
# tree; the emitter prints it as `# <string>`.
COMMENT_MARKER = "__tangent_ad_comment__"
# The comment above a gradient's ``bz = conj_complex(bz)`` lines.
COMPLEX_NOTE = "Complex arguments: d/dRe + i d/dIm (conjugate JAX's adjoints)"


def label(func):
    """The name of `func` as part of a generated name: a lambda's
    ``<lambda>`` is ``lambda_`` (what ``frontend.lambdas`` names its def)."""
    name = getattr(func, "__name__", type(func).__name__)
    return "lambda_" if name == "<lambda>" else name


class Namer:
    """Hands out fresh names, avoiding every name in `reserved`."""

    def __init__(self, reserved=()):
        self.taken = set(reserved)
        self._adjoints = {}
        self._tangents = {}

    def reserve(self, *names):
        self.taken.update(names)

    def fresh(self, base):
        """`base` if unused, else `base2`, `base3`, ... (marked as used)."""
        for candidate in itertools.chain(
                [base], (f"{base}{i}" for i in itertools.count(2))):
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate

    def adjoint(self, name):
        """The adjoint variable of `name`: ``b<name>``, the same every time."""
        if name not in self._adjoints:
            self._adjoints[name] = self.fresh("b" + name)
        return self._adjoints[name]

    def tangent(self, name):
        """The tangent variable of `name`: ``d<name>``, the same every time."""
        if name not in self._tangents:
            self._tangents[name] = self.fresh("d" + name)
        return self._tangents[name]

    def set_adjoint(self, name, adjoint_name):
        """Make `adjoint_name` (already reserved) the adjoint of `name`."""
        self._adjoints[name] = adjoint_name

    def adjoint_pairs(self):
        """(primal name, adjoint name) for every adjoint handed out so far."""
        return list(self._adjoints.items())

    def derivative_names(self):
        """Every adjoint and tangent variable handed out so far: values that
        are floats (or complex) whatever the primal's dtype."""
        return set(self._adjoints.values()) | set(self._tangents.values())
