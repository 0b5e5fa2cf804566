"""Parse text to a gast tree: ``ast.parse`` and a plain copy into gast's classes.

``gast.parse`` converts with a NodeTransformer: a visit, a getattr and a
keyword constructor call per field of every node, four times the time of
``ast.parse`` itself (6 of 7.6 ms for the 199-line function of
``benchmarks/long_function.py``). This copy gives the same tree (classes,
fields, their values and the four location attributes, node for node;
``tests/test_to_gast.py`` compares the two on a large corpus) several times
faster: one converter per ast class, made once from the ``_fields`` of the
ast class and of the installed gast class of the same name, each copying
the node's attribute dictionary and converting the values that are nodes.

The differences gast makes (for the gast and Python versions it supports):

* ``arg`` becomes ``Name(id, ctx=Param(), annotation, type_comment)``;
* an ``ExceptHandler``'s name (a str) becomes ``Name(name, ctx=Store())``
  without a location;
* a field gast has and ast lacks gets gast's value for it (``type_params``
  an empty list, ``Name``'s ``annotation`` and ``type_comment`` None);
* every ``ctx`` and operator is a new object (ast shares one per kind).

Locations are copied as the ast node has them. (gast's ``Name`` leaves out
a line or column that is None, as ``ast.copy_location`` does; ``ast.parse``
gives none, so only ``arg`` and ``ExceptHandler``, built anew, follow that
rule here.)

A node this copy cannot match (a class gast lacks, or whose fields differ
from gast's in a way not listed above) makes `convert` hand the whole tree
to gast's own converter instead: the result is always gast's.
"""
import ast
import functools

import gast

_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
# A field gast's class has and ast's lacks -> a function making gast's value
# for it, or None for None.
_GAST_ONLY = {"type_params": list, "annotation": None, "type_comment": None}
# Fields that hold a name, a flag or a number, never a node: copied as they
# are, without a look at their value.
_LEAVES = frozenset(("id", "attr", "arg", "kind", "type_comment", "level", "module",
                     "conversion", "simple", "is_async", "asname"))


class _Unmatched(Exception):
    """A node this copy does not know how to give as gast gives it."""


def parse(text):
    """``gast.parse(text)``, faster (see the module's docstring)."""
    return convert(ast.parse(text))


def convert(tree):
    """The gast tree of the ast tree `tree` (not changed): ``gast.ast_to_gast(tree)``."""
    try:
        return _copy(tree)
    except _Unmatched:
        return gast.ast_to_gast(tree)


_new = ast.AST.__new__
_CONVERTERS = {}  # ast class -> its converter, filled at the end of the module


def _copy(node):
    """The gast copy of the ast node `node`."""
    converter = _CONVERTERS.get(node.__class__)
    if converter is None:
        raise _Unmatched(node.__class__.__name__)
    return converter(node)


def _unmatched(node):
    """The converter of an ast class this copy cannot match."""
    raise _Unmatched(node.__class__.__name__)


def _place(made, values):
    """`made` (a new node's dictionary) given the location in `values` (an
    ast node's) as ``ast.copy_location`` gives it: a line or a column that
    is None is left out, an end that is None is kept."""
    for attr in _LOCATION:
        if attr in values and (values[attr] is not None or attr.startswith("end_")):
            made[attr] = values[attr]


def _same_fields(target, fields):
    """The converter of an ast class whose fields are gast's: a copy of
    the node's dictionary (fields, then location) with its nodes converted."""
    fields = tuple(f for f in fields if f not in _LEAVES)

    def convert_node(node):
        values = node.__dict__.copy()
        _convert_fields(values, fields)
        new = _new(target)
        new.__dict__ = values
        return new
    return convert_node


def _convert_fields(values, fields):
    """Convert, in the node dictionary `values`, the nodes (and lists of
    nodes) held by `fields`."""
    converters = _CONVERTERS
    for field in fields:
        value = values[field]
        kind = value.__class__
        if kind in converters:
            values[field] = converters[kind](value)
        elif kind is list:
            values[field] = [item if item.__class__ not in converters
                             else converters[item.__class__](item) for item in value]


def _marker(target):
    """The converter of a ``ctx`` or an operator: a new empty node (a
    partial of ``AST.__new__``, which ignores the node: no Python frame)."""
    return functools.partial(_new, target)


def _gast_fields(target, fields):
    """The converter of an ast class missing some of gast's fields: gast's
    fields in gast's order (the missing ones made by ``_GAST_ONLY``), then
    the node's location attributes."""
    order = tuple(target._fields)
    made_fields = tuple((f, _GAST_ONLY[f]) for f in order
                        if f not in fields and _GAST_ONLY[f] is not None)
    fields = tuple(f for f in fields if f not in _LEAVES)

    def convert_node(node):
        values = dict.fromkeys(order)  # gast's order, then the location below
        values.update(node.__dict__)
        _convert_fields(values, fields)
        for field, make in made_fields:
            values[field] = make()
        new = _new(target)
        new.__dict__ = values
        return new
    return convert_node


def _arg():
    """``arg(arg, annotation, type_comment)`` -> ``Name(arg, Param(), ...)``
    with the arg's location (``ast.copy_location``: a line or column that
    is None is not copied)."""
    name_class, param = gast.Name, gast.Param
    if name_class._fields != ("id", "ctx", "annotation", "type_comment"):
        return _unmatched

    def convert_node(node):
        values = node.__dict__
        annotation = values["annotation"]
        new = _new(name_class)
        new.__dict__ = made = {
            "id": values["arg"], "ctx": _new(param),
            "annotation": None if annotation is None else _copy(annotation),
            "type_comment": values["type_comment"]}
        _place(made, values)
        return new
    return convert_node


def _except_handler(fields):
    """``ExceptHandler(type, name, body)``: a name becomes a Name (Store)
    with no location; the handler keeps its own."""
    target, generic = gast.ExceptHandler, _same_fields(gast.ExceptHandler, fields)
    if target._fields != ("type", "name", "body"):
        return _unmatched

    def convert_node(node):
        values = node.__dict__
        if not values["name"]:
            return generic(node)
        name = _new(gast.Name)
        name.__dict__ = {"id": values["name"], "ctx": _new(gast.Store),
                         "annotation": None, "type_comment": None}
        made = {"type": None if values["type"] is None else _copy(values["type"]),
                "name": name, "body": [_copy(s) for s in values["body"]]}
        _place(made, values)
        new = _new(target)
        new.__dict__ = made
        return new
    return convert_node


def _converter(cls):
    """The converter of the ast class `cls` (see the module's docstring)."""
    name = cls.__name__
    if name == "arg":
        return _arg()
    target = getattr(gast, name, None)
    fields = tuple(cls._fields)
    if target is None or not isinstance(target, type) or target is cls:
        return _unmatched
    if name == "ExceptHandler":
        return _except_handler(fields)
    if not fields and not cls._attributes and not target._fields:
        return _marker(target)
    gast_fields = tuple(target._fields)
    if set(gast_fields) == set(fields):  # (``arguments``: in another order, kept)
        return _same_fields(target, fields)
    if set(fields) <= set(gast_fields) and set(cls._attributes) <= set(target._attributes) \
            and all(f in fields or f in _GAST_ONLY for f in gast_fields):
        return _gast_fields(target, fields)
    return _unmatched


def _ast_classes(base=ast.AST):
    """Every class under `base` in the ast module, `base` included."""
    found = [base]
    for sub in base.__subclasses__():
        if sub.__module__ == "ast":
            found.extend(_ast_classes(sub))
    return found


_CONVERTERS.update((cls, _converter(cls)) for cls in _ast_classes())
