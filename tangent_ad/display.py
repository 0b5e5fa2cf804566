"""How generated source shows itself: in Jupyter, IPython and terminals.

`show_source` returns a `SourceText`: a `str` (equal to the plain text,
usable wherever a string is) that a notebook renders as highlighted code
rather than as an escaped one-line string. Pygments is optional: with it the
code is coloured, without it the notebook shows a plain ``<pre>`` block.
"""
import html
import sys


class SourceText(str):
    """The source of generated code, as a `str` with rich display methods."""

    __slots__ = ()

    def _repr_html_(self):
        """HTML for Jupyter: highlighted when Pygments is installed."""
        highlighted = _highlight(self, "html")
        if highlighted is not None:
            return highlighted
        return f"<pre><code>{html.escape(str(self))}</code></pre>"

    def _repr_pretty_(self, printer, cycle):
        """IPython's text display: the code itself, coloured on a terminal."""
        text = str(self)
        if _is_terminal():
            text = _highlight(self, "terminal") or text
        printer.text(text.rstrip("\n"))


def _is_terminal():
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed stdout
        return False


def _highlight(text, kind):
    """`text` highlighted by Pygments as HTML or ANSI text; None without it."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter, TerminalFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return None
    if kind == "html":
        formatter = HtmlFormatter(noclasses=True, nobackground=True)
    else:
        formatter = TerminalFormatter()
    return highlight(str(text), PythonLexer(), formatter)
