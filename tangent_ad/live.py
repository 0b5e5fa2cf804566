"""What a derivative was generated from, and whether that is still so.

A generated derivative reads the user's data globals when it runs
(``scopes.read_live``: from the module dict, held under `LIVE_KEY`), so
rebinding a global array or number needs nothing here. What it cannot
read live is what shaped its *code*: the helper functions it generated
pullbacks for, the modules and classes it resolved, the closure cells it
copied, the code objects it read, and the registered rules. `Dependencies`
records those when the derivative is generated; `current()` says, in a
few dictionary look-ups, whether they all still hold. A derivative whose
dependencies changed is generated again (``api.py``).
"""
import numbers
import types

LIVE_KEY = "__tad_live__"  # in a generated namespace: the user's module dict
LIVE_NAMES_KEY = "__tad_live_names__"  # ... and the data globals read from it

_rules_version = [0]
_MISSING = object()


def rules_changed():
    """Called by the registry whenever a rule is registered or removed."""
    _rules_version[0] += 1


def rules_version():
    return _rules_version[0]


def rules_version_cell():
    """The one-item list holding the rules' version (for guards in code)."""
    return _rules_version


def shapes_code(value):
    """True for a value whose identity the generated code depends on: a
    function, class or module (data, such as arrays and numbers, is read
    when the derivative runs)."""
    if isinstance(value, (numbers.Number, str, bytes, type(None))):
        return False
    if type(value).__module__ == "numpy" and not callable(value):
        return False  # arrays and NumPy scalars
    return callable(value) or isinstance(value, types.ModuleType)


class Dependencies:
    """Checks that must all hold for a derivative to be reused.

    Each check is a tuple: ``(mapping, name, value)`` for a global name,
    ``(cell, value)`` for a closure cell, ``(function, code)`` for a
    function's code object.
    """

    __slots__ = ("names", "cells", "codes", "version")

    def __init__(self, names=(), cells=(), codes=(), version=None):
        self.names = tuple(names)
        self.cells = tuple(cells)
        self.codes = tuple(codes)
        self.version = rules_version() if version is None else version

    def current(self):
        """True while every recorded binding, cell, code object and the
        rules are what they were when the derivative was generated."""
        if self.version != _rules_version[0]:
            return False
        for mapping, name, value in self.names:
            if mapping.get(name, _MISSING) is not value:
                return False
        for cell, value in self.cells:
            try:
                if cell.cell_contents is not value:
                    return False
            except ValueError:  # the cell was emptied
                return False
        for function, code in self.codes:
            if getattr(function, "__code__", None) is not code:
                return False
        return True

    @classmethod
    def union(cls, parts, version=None):
        """One set of checks holding all of `parts` (each de-duplicated)."""
        names, cells, codes = {}, {}, {}
        for part in parts:
            for check in part.names:
                names.setdefault((id(check[0]), check[1]), check)
            for check in part.cells:
                cells.setdefault(id(check[0]), check)
            for check in part.codes:
                codes.setdefault(id(check[0]), check)
        return cls(names.values(), cells.values(), codes.values(),
                   min((p.version for p in parts), default=version)
                   if version is None else version)


def current(fn):
    """True unless the generated function `fn` was generated from
    something that has changed since."""
    info = getattr(fn, "__tangent_ad__", None)
    deps = getattr(info, "deps", None)
    return deps is None or deps.current()


def behind(fn):
    """The current generated function behind the dispatcher `fn` (what the
    transforms return), generated again if it was stale; other objects
    as they are."""
    refresh = getattr(fn, "__tangent_ad_refresh__", None)
    return fn if refresh is None else refresh()


def dispatcher(fn, rebuild):
    """A function that runs the generated function `fn`, and first, when
    `fn`'s dependencies have changed, ``fn = rebuild()``: what `grad` and
    the other transforms return when the derivative is not staged. It
    carries `fn`'s record (``__tangent_ad__``) and ``__wrapped__``, so
    ``inspect.signature`` and ``show_source`` see the current `fn`."""
    def refresh():
        deps = call.__tangent_ad__.deps
        if deps is not None and not deps.current():
            _point_at(call, rebuild())
        return call.__wrapped__

    def call(*args, **kwargs):
        return refresh()(*args, **kwargs)

    call.__tangent_ad_refresh__ = refresh
    _point_at(call, fn)
    return call


def _point_at(call, fn):
    for attr in ("__name__", "__qualname__", "__doc__", "__module__", "__tangent_ad__"):
        setattr(call, attr, getattr(fn, attr))
    call.__wrapped__ = fn
