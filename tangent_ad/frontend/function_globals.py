"""What the names a user's function reads from outside it denote.

`function_scope` gives their values now (closure cells over globals) and
the module dict the derivative reads data globals from when it runs;
`Dependencies` collects the checks that keep a derivative current while
those names keep their values (``live.py``); `RESERVED` lists the globals
generated code itself calls by name, which a user's global of the same
name must not replace (the resolver writes it under another name).
"""
import builtins
import types

import numpy as np

from tangent_ad import runtime
from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.frontend import closures
from tangent_ad.live import LIVE_KEY, shapes_code
from tangent_ad.live import Dependencies as Checks
from tangent_ad.scopes import live_key

# the globals generated code calls by name: NumPy, the runtime helpers and
# the builtins its own statements use
RESERVED = {"np": np, **{h: getattr(runtime, h) for h in runtime.__all__},
            **{b: getattr(builtins, b) for b in ("float", "int", "bool", "complex", "range",
                                                "reversed", "len", "type", "tuple", "list",
                                                "zip", "enumerate", "isinstance")}}


def function_scope(func):
    """The names visible to `func`: ``(scope, live, snapshot, cells)``.

    `scope` maps every visible name to its value now (closure cells over
    globals). `live` is the module dict from which the derivative reads
    the data globals when it runs, as Python would (``scopes.read_live``);
    `snapshot` names the entries of `scope` that do not come from `live`
    (closure cells; for generated code, a derivative differentiated again,
    its own namespace of NumPy, runtime helpers and pullbacks, beside the
    user's module dict it reads live); `cells` maps the names of closure
    variables to their cells.
    """
    if isinstance(func, closures.LocalFunction):
        return function_scope(func.parent)
    globals_ = func.__globals__
    live = globals_.get(LIVE_KEY)
    if live_key(1) in globals_:
        raise UnsupportedSyntaxError(
            f"{func.__name__} calls functions of several modules that read their "
            "own module's globals, so it cannot be differentiated again yet",
            hint="pass those globals to the functions as arguments")
    if live is None:
        live, scope, snapshot, cells = globals_, dict(globals_), set(), {}
    else:
        own = {k: v for k, v in globals_.items() if not k.startswith("__")}
        scope, snapshot, cells = dict(live), set(own), {}
        scope.update(own)
    code = func.__code__
    for name, cell in zip(code.co_freevars, func.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell: the variable is not yet assigned
            continue
        snapshot.add(name)
        cells[name] = cell
    return scope, live, snapshot, cells


class Dependencies:
    """Collects what the derivative's code depends on; `result` is the
    ``live.Dependencies`` checks of it all."""

    def __init__(self, func, live, cells):
        self.live, self.cells = live, cells
        self.names, self.cell_checks, self.codes, self.parts = [], [], [], []
        if isinstance(getattr(func, "__code__", None), types.CodeType) and \
                not isinstance(func, closures.LocalFunction):
            self.codes.append((func, func.__code__))
        self.generated(func)

    def name(self, name, value, live):
        if name in self.cells:
            self.cell_checks.append((self.cells[name], value))
        elif live and shapes_code(value):
            self.names.append((self.live, name, value))
        self.generated(value)

    def attribute(self, base, attr, value):
        if isinstance(base, types.ModuleType) and isinstance(value, types.FunctionType):
            self.names.append((vars(base), attr, value))  # mylib.helper
        self.generated(value)

    def generated(self, value):
        deps = getattr(getattr(value, "__tangent_ad__", None), "deps", None)
        if deps is not None:
            self.parts.append(deps)

    def result(self):
        return Checks.union(
            self.parts + [Checks(self.names, self.cell_checks, self.codes)])
