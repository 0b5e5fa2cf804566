"""The source texts tangent_ad compiles, kept where nothing else clears them.

Every function tangent_ad writes (a derivative, a rule from a table, the
caller of a gradient, a staged copy) is compiled from text under a name
like ``<tangent_ad grad_f>``. Tracebacks and ``pdb`` find that text in
``linecache``, and some of these functions are read back as source later
(a rule's template when it is first used; ``tad.grad(tad.grad(f))``).
``linecache.clearcache()``, which any program may call, empties
``linecache``: had tangent_ad read only from there, the next template or
second derivative would have found no source. So the texts are kept here
too, and put back into ``linecache`` when read.
"""
import inspect
import linecache

_TEXTS = {}  # filename -> source


def register(filename, source):
    """Keep `source` as the text of `filename` (here and in ``linecache``)."""
    _TEXTS[filename] = source
    _cache(filename, source)


def unique_filename(filename, source):
    """`filename` (``<... NAME>``), or ``<... NAME #2>``, ``#3``... when
    another text is kept under it: each name keeps its own lines, which is
    where tracebacks, and tangent_ad reading its code back, find them."""
    base, i = filename, 2
    while filename in _TEXTS and _TEXTS[filename] != source or \
            filename not in _TEXTS and filename in linecache.cache and \
            "".join(linecache.cache[filename][2]) != source:
        filename, i = f"{base[:-1]} #{i}>", i + 1
    return filename


def lines(filename, module_globals=None):
    """The lines of `filename`: the kept text of one tangent_ad compiled
    (put back into ``linecache`` if it was cleared), else what
    ``linecache`` finds."""
    source = _TEXTS.get(filename)
    if source is None:
        return linecache.getlines(filename, module_globals)
    if filename not in linecache.cache:
        _cache(filename, source)
    return source.splitlines(True)


def function_lines(obj):
    """``(lines, first line)`` of the function or code object `obj` when
    its text is one tangent_ad kept (what ``inspect.getsourcelines``
    returns), else None."""
    code = getattr(obj, "__code__", obj)
    filename = getattr(code, "co_filename", None)
    if filename not in _TEXTS:
        return None
    first = code.co_firstlineno
    return inspect.getblock(lines(filename)[first - 1:]), first


def _cache(filename, source):
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
