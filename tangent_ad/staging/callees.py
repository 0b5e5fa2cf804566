"""What the calls of a derivative call: objects, looked up in its namespace.

Staging's rules describe functions (``np.sum``, ``runtime.unbroadcast``,
``len``), so they are keyed by those objects, not by the names printed for
them. `Callees.of` reads a call's function the way Python will when the
copy runs: a name from the derivative's globals (then the builtins), an
attribute of a module found that way (``np.linalg.cholesky``, whatever
the module is called in the user's code). A name the function binds
itself, a global read live from the user's module, or an attribute of
anything but a module is unknown (None): no rule applies to it.
"""
import builtins
import types

import gast
import numpy as np

from tangent_ad import runtime
from tangent_ad.nodes import walk


# the globals generated code has when nothing shadows them: the runtime
# helpers and NumPy as ``np`` (for kinds asked without a derivative)
_STANDARD = {name: getattr(runtime, name) for name in runtime.__all__}
RUNTIME_HELPERS = frozenset(_STANDARD.values())
_STANDARD.update(np=np, __builtins__=builtins)


class Callees:
    """The objects calls refer to, in `namespace` (the derivative's
    globals; the standard ones when None), for a function that binds the
    names `bound`."""

    def __init__(self, namespace=None, bound=frozenset()):
        self.namespace = _STANDARD if namespace is None else namespace
        self.bound = bound
        built = self.namespace.get("__builtins__", builtins)
        self.builtins = built if isinstance(built, dict) else vars(built)

    def of(self, func):
        """The object the expression `func` names, or None when unknown."""
        if isinstance(func, gast.Name):
            if func.id in self.bound:
                return None
            found = self.namespace.get(func.id, _MISSING)
            if found is _MISSING:
                found = self.builtins.get(func.id)
            return _usable(found)
        if isinstance(func, gast.Attribute):
            owner = self.of(func.value)
            if isinstance(owner, types.ModuleType):
                return _usable(getattr(owner, func.attr, None))
        return None

    def of_call(self, node):
        """The object the call `node` calls; None for anything else."""
        return self.of(node.func) if isinstance(node, gast.Call) else None

    def is_numpy_member(self, func):
        """Whether the expression `func` is ``np.X``: an attribute of the
        NumPy module itself (however it is named)."""
        return isinstance(func, gast.Attribute) and self.of(func.value) is np


def for_function(fdef, namespace=None):
    """The `Callees` of the FunctionDef `fdef`, in `namespace`."""
    return Callees(namespace, bound_names(walk(fdef)))


def bound_names(nodes):
    """The names bound among `nodes` (a function's, parameters included)."""
    return {n.id for n in nodes if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Param))}


_MISSING = object()


def _usable(found):
    """`found` when rules may compare it (a module, or a hashable callable
    such as a function, a ufunc or a type); None otherwise."""
    if not (callable(found) or isinstance(found, types.ModuleType)):
        return None
    try:
        hash(found)
    except TypeError:
        return None
    return found

