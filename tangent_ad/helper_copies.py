"""Copies of the runtime helpers a standalone file calls, so it needs only NumPy.

A derivative calls a few helpers from ``tangent_ad.runtime`` (``unbroadcast``,
``cast_like``...). Importing them would pull in all of tangent_ad (and gast
and astor with it), so the command writes their source into the file
instead: each helper, the private functions and constants of its module
that it reads, the error classes it raises, and the imports they need, in
an order where a class follows its base. The source is the helper's own,
docstrings and comments included, so the file stays readable.
"""
import ast
import inspect
import sys
import textwrap
import types


class CannotCopy(Exception):
    """A helper cannot be copied (no source, or two helpers share a name);
    the file then imports ``tangent_ad.runtime`` as before."""


def copies(names, runtime_namespace):
    """``(import lines, [source chunks])`` defining `names`, helpers found
    in `runtime_namespace` (``vars(tangent_ad.runtime)``), with everything
    they read. Raises CannotCopy."""
    collector = _Collector()
    for name in sorted(names):
        collector.visit(name, runtime_namespace)
    return sorted(collector.imports), collector.chunks


class _Collector:
    def __init__(self):
        self.imports = set()
        self.chunks = []
        self.defined = {}  # name -> the value or source text it stands for
        self.visiting = set()

    def visit(self, name, namespace):
        if name not in namespace:
            return  # a builtin, or a local name of the function read
        value = namespace[name]
        if isinstance(value, types.ModuleType):
            self._claim(name, value)
            self.imports.add(f"import {value.__name__}" if value.__name__ == name
                             else f"import {value.__name__} as {name}")
            return
        owner = getattr(value, "__module__", None) or ""
        if isinstance(value, (types.FunctionType, type)) and owner.startswith("tangent_ad"):
            self._copy_definition(name, value)
            return
        self._copy_constant(name, value, namespace)

    def _claim(self, name, value):
        """Record that the file's `name` is `value`; False if already done."""
        if name in self.defined:
            if self.defined[name] is not value and self.defined[name] != value:
                raise CannotCopy(f"two helpers need the name {name}")
            return False
        self.defined[name] = value
        return True

    def _copy_definition(self, name, value):
        if value.__name__ != name:
            raise CannotCopy(f"{value.__name__} is used under the name {name}")
        if not self._claim(name, value) or name in self.visiting:
            return
        self.visiting.add(name)
        try:
            source = textwrap.dedent(inspect.getsource(value))
        except (OSError, TypeError) as exc:
            raise CannotCopy(f"no source for {name}: {exc}") from None
        module = sys.modules[value.__module__]
        for read in _names_read(source):
            self.visit(read, vars(module))
        self.chunks.append(source.rstrip("\n"))  # after what it needs: a base class first

    def _copy_constant(self, name, value, namespace):
        module = sys.modules.get(namespace.get("__name__", ""))
        statement = _module_assignment(module, name)
        if statement is None:
            raise CannotCopy(f"cannot find where {name} is defined")
        if not self._claim(name, statement):
            return
        for read in _names_read(statement):
            self.visit(read, namespace)
        self.chunks.append(statement)


def _names_read(source):
    tree = ast.parse(source)
    return sorted({node.id for node in ast.walk(tree)
                   if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)})


def _module_assignment(module, name):
    """The source of the module-level ``name = ...`` statement of `module`."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return None
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.get_source_segment(source, node)
    return None
