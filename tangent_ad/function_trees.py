"""Small functions built as trees and defined without parsing any text.

``second_order`` writes a few functions of its own: the reverse rule of a
gradient, a jvp or a vjp, the one-line caller that is differentiated in
place of a gradient, and a gradient's seed adjoint. They are built here as
gast trees and printed once (``emit.printed``) for what reads text:
``inspect.getsource``, tracebacks and ``show_source``. What runs is
compiled from the printed ``ast`` copy, placed on the text's lines
(``printed_places``); what is differentiated or expanded as a template
again is the tree itself (``__tangent_ad_tree__``). No text is parsed.
"""
import types

import gast

from tangent_ad import emit, loader, printed_places, texts
from tangent_ad.nodes import SHARED, call, const, name


def item(value, index):
    """``value[index]``: `index` an int, or a name given as a str."""
    key = name(index) if isinstance(index, str) else const(index)
    return gast.Subscript(value=value, slice=key, ctx=SHARED[gast.Load])


def adjoint(target):
    """A template's ``d[target]`` for the name `target`."""
    return item(name("d"), target)


def total(parts):
    """``parts[0] + parts[1] + ...``."""
    result = parts[0]
    for part in parts[1:]:
        result = gast.BinOp(left=result, op=SHARED[gast.Add], right=part)
    return result


def calling(func, args):
    """``func(*args)``; the arguments are nodes or names given as str."""
    return call(func, *[name(a) if isinstance(a, str) else a for a in args])


def assigned(target, value):
    """``target = value``; `target` a name or a node such as ``d[x]``."""
    if isinstance(target, str):
        target = name(target, store=True)
    else:
        target = gast.Subscript(value=target.value, slice=target.slice,
                                ctx=SHARED[gast.Store])
    return gast.Assign(targets=[target], value=value, type_comment=None)


def returned(value):
    return gast.Return(value=value)


def function(fname, params, body):
    """``def fname(params): body``; `params` lists (name, default node or
    None), the defaults last, as Python has them."""
    args = [gast.Name(id=p, ctx=SHARED[gast.Param], annotation=None, type_comment=None)
            for p, _ in params]
    defaults = [d for _, d in params if d is not None]
    arguments = gast.arguments(args=args, posonlyargs=[], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=defaults)
    return gast.FunctionDef(name=fname, args=arguments, body=list(body),
                            decorator_list=[], returns=None, type_comment=None,
                            type_params=[])


def define(fdef, filename, namespace):
    """The function the gast FunctionDef `fdef` defines, run in `namespace`
    and kept under `filename` (``<... #2>`` if another text has it: a
    function is read back by its file's lines), with `fdef` as its
    ``__tangent_ad_tree__``, its statements placed on the printed lines."""
    text, printed = emit.printed(fdef)
    filename = texts.unique_filename(filename, text)
    texts.register(filename, text)
    placed = printed_places.place(text, [printed])
    module = printed_places.compilable([printed], placed)
    if placed:
        loader.locate([fdef], module)
    namespace["__name__"] = "tangent_ad.second_order"
    exec(compile(module, filename, "exec"), namespace)
    fn = namespace[fdef.name]
    assert isinstance(fn, types.FunctionType)
    fn.__tangent_ad_tree__ = fdef
    return fn
