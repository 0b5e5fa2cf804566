"""The stages of a transformation, in order, and the loop that runs them.

    parse -> validate -> resolve -> normalize -> exits -> activity
          -> reverse -> optimize -> emit -> load

Each stage is one module with a ``run(tree, ctx)`` function. With
``verbose=2`` the source is printed after every stage.
"""
import gast

from tangent_ad import emit, loader
from tangent_ad.ad import reverse
from tangent_ad.analysis import activity
from tangent_ad.context import Context
from tangent_ad.errors import InternalError, TangentADError, UnsupportedSyntaxError
from tangent_ad.frontend import exits, normalize, resolve, source, validate
from tangent_ad.optimize import fixed_point

FRONTEND = (validate, resolve, normalize, exits, activity)


def transform(func, *, wrt, mode="reverse", optimized=True,
              preserve_result=False, verbose=0):
    """Generate, load and return the derivative function of `func`."""
    ctx = Context(func=func, wrt=tuple(wrt), mode=mode, optimized=optimized,
                  preserve_result=preserve_result, verbose=verbose)
    try:
        tree, ctx.info = source.parse_function(func)
        for stage in FRONTEND:
            tree = _stage(stage, tree, ctx)
        if mode != "reverse":
            raise UnsupportedSyntaxError(
                f"mode={mode!r} is not available yet; only 'reverse' is",
                hint="use mode='reverse' (tangent_ad.grad)")
        tree = _stage(reverse, tree, ctx)
        if optimized:
            tree = _stage(fixed_point, tree, ctx)
        text = emit.run(tree, ctx)
        fn = loader.run(text, ctx)
    except TangentADError:
        raise
    except RecursionError:
        raise InternalError("the function is too deeply nested to transform") from None
    except Exception as exc:  # anything else is our bug: say so, plainly
        raise InternalError(f"{type(exc).__name__}: {exc}") from exc
    if verbose >= 1:
        print(text)
    return fn


def _stage(stage, tree, ctx):
    tree = stage.run(tree, ctx)
    if ctx.verbose >= 2:
        if isinstance(tree, gast.FunctionDef):
            print(f"# after {stage.__name__.rsplit('.', 1)[-1]}:")
            print(emit.run(tree, ctx))
    return tree
