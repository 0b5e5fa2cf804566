"""The errors tangent_ad raises, one class per kind of problem.

Every error a user can meet derives from :class:`TangentADError`. When the
problem sits at a place in the user's source, the error carries that place
(file, line, column and the source line) and prints it the way compilers do,
with a caret under the offending column, followed by a hint that says what
to do about it.
"""


class TangentADError(Exception):
    """Base class of every error tangent_ad raises on purpose."""

    default_hint = ""

    def __init__(self, message, *, filename=None, lineno=None, col=None,
                 source_line=None, hint=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        self.hint = self.default_hint if hint is None else hint
        super().__init__(self._render())

    def _render(self):
        parts = []
        where = ""
        if self.filename is not None:
            where = str(self.filename)
            if self.lineno is not None:
                where += f":{self.lineno}"
                if self.col is not None:
                    where += f":{self.col + 1}"
            where += ": "
        parts.append(f"{where}{self.message}")
        if self.source_line:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            parts.append("    " + stripped)
            if self.col is not None:
                offset = self.col - (len(text) - len(stripped))
                if offset >= 0:
                    parts.append("    " + " " * offset + "^")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


class UnsupportedSyntaxError(TangentADError):
    """The function uses a construct tangent_ad cannot differentiate (yet)."""

    default_hint = ("rewrite this part of the function with supported "
                    "constructs (see docs/supported-python.md), or move it "
                    "into a function with a registered derivative")


class NoDerivativeError(TangentADError, NotImplementedError):
    """A called function has neither a derivative template nor Python source,
    or its rule does not cover these arguments (a NotImplementedError too)."""

    default_hint = ("register a derivative with @tangent_ad.adjoint(func), "
                    "or wrap the call in tangent_ad.stop_gradient if its "
                    "result should not be differentiated")


class SourceUnavailableError(TangentADError):
    """The function's Python source cannot be found (builtin, C, or exec'd)."""

    default_hint = ("tangent_ad reads source code: define the function in a "
                    ".py file, or register a derivative for it with "
                    "@tangent_ad.adjoint")


class NonScalarOutputError(TangentADError, TypeError):
    """`grad` was asked for the gradient of a function with a non-scalar output.

    Also a TypeError, as JAX and autograd raise for it, so that code written
    for them catches it."""

    default_hint = ("grad needs a scalar output; use tangent_ad.vjp for "
                    "array or tuple outputs, or reduce the output "
                    "(e.g. np.sum) first")


class NonDifferentiableArgumentError(TangentADError):
    """A ``wrt`` argument has no derivative (a bool, or an array of bools)."""

    default_hint = ("leave the argument out of wrt, or pass it as a float "
                    "(float(x), or x.astype(float) for an array)")


class TemplateError(TangentADError):
    """A derivative template registered with @adjoint or @tangent is malformed."""

    default_hint = ("write the rule as a function whose parameters are "
                    "'result' and the function's own parameter names, with "
                    "one 'd[x] = ...' line per argument, e.g.\n"
                    "    @tad.adjoint(cube)\n"
                    "    def _(result, x):\n"
                    "        d[x] = d[result] * 3 * x * x")


class CompileError(TangentADError):
    """A derivative asked for with ``compile="numba"`` that cannot be
    compiled: Numba is not installed, or the derivative holds a construct
    Numba does not support (named with the user's line it comes from)."""

    default_hint = ("pass compile=None to run the derivative as Python, or "
                    "compile=\"numba\", fallback=True to run it as Python with a warning "
                    "when it cannot compile")


class InternalError(TangentADError):
    """Something went wrong inside tangent_ad itself: this is a bug."""

    default_hint = ("this is a bug in tangent_ad; please report it with the "
                    "function that triggered it")
