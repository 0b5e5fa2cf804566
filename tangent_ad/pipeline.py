"""The stages of a transformation, in order, and the loop that runs them.

    parse -> signatures -> inline -> statements -> comprehensions -> builtin_forms
          -> function_values
          -> validate -> resolve -> normalize -> exits -> activity
          -> reverse | forward -> optimize -> boundary -> emit -> load

The six stages before validation rewrite Python's richer forms (match,
walrus, generator expressions, map, sorted, functions as values, calls
that pass or return closures, ...)
and a called function's ``*args`` and keyword-only parameters into the
constructs the later stages know.

Each stage is one module with a ``run(tree, ctx)`` function. With
``verbose=2`` the source is printed after every stage.
"""
import gast

from tangent_ad import emit, live, loader
from tangent_ad.ad import boundary, forward, reverse
from tangent_ad.analysis import activity
from tangent_ad.context import Context
from tangent_ad.errors import InternalError, TangentADError, UnsupportedSyntaxError
from tangent_ad.frontend import (aux, builtin_forms, comprehensions, exits, function_values,
                                 inline, normalize, resolve, signatures, source, statements,
                                 validate)
from tangent_ad.limits import rounds
from tangent_ad.live import Dependencies
from tangent_ad.optimize import fixed_point

# Functions of one unit (each round generates at least one): a call graph
# that keeps growing, say a helper passing a new lambda to itself, stops here.
MAX_FUNCTIONS = 256
FRONTEND = (signatures, inline, statements, comprehensions, builtin_forms, function_values,
            validate, resolve, normalize, exits, aux, activity)
# mode -> (differentiating stage, kind of the requested function, of its callees)
MODES = {"reverse": (reverse, "gradient", "pullback"),
         "forward": (forward, "jvp", "jvp")}


def transform(func, *, wrt, mode="reverse", optimized=True,
              preserve_result=False, verbose=0, kind=None, has_aux=False, scalar=False):
    """Generate, load and return the derivative function of `func`.

    The derivative of a function that calls other Python functions is a
    *unit*: the requested function first, then the pullback (reverse
    mode) or forward function (forward mode) of every function it calls
    (transitively), loaded together into one namespace. A reverse-mode
    unit that used a non-holomorphic rule anywhere has the requested
    function conjugate its complex results (``reverse.py``). `kind` overrides
    the mode's kind of the requested function ("vjp": a reverse-mode
    derivative of any output, taking its cotangent; "hvp": a forward-mode
    derivative of a gradient that returns the tangent only). With
    `has_aux`, `func` returns ``(loss, aux)`` and the derivative is that of
    ``loss``, with the pair as its value (``frontend/aux.py``). With
    `scalar` (``value_and_grad``), the output is checked to be a real
    scalar as a gradient's is, though the value is returned too.
    """
    options = dict(mode=mode, optimized=optimized, verbose=verbose)
    calls = {}
    try:
        if mode not in MODES:
            raise UnsupportedSyntaxError(
                f"mode={mode!r} is not a differentiation mode",
                hint="use mode='reverse' (tangent_ad.grad) or mode='forward' "
                     "(tangent_ad.jvp)")
        _, default_kind, callee_kind = MODES[mode]
        kind = kind or default_kind
        done = set()
        if mode == "forward" and kind == "jvp":  # a recursive call reuses it
            done.add(forward.register(calls, func, tuple(wrt)))
        tree, ctx = _generate(func, tuple(wrt), kind, calls,
                              preserve_result=preserve_result, has_aux=has_aux,
                              scalar=scalar, **options)
        texts, namespace, contexts = [], dict(ctx.namespace), [ctx]
        defines = [tree.name]
        for _ in rounds("the set of called functions to differentiate", MAX_FUNCTIONS):
            if len(done) >= len(calls):
                break
            for key in [k for k in calls if k not in done]:
                done.add(key)
                callee_tree, callee = _generate(key[0], key[1], callee_kind, calls,
                                                static_args=dict(key[2]), callee=True,
                                                **options)
                texts.append(emit.run(callee_tree, callee))
                contexts.append(callee)
                defines.append(callee_tree.name)
                _merge(namespace, callee.namespace, callee)
        if mode == "reverse" and any(c.facts.get("nonholomorphic") for c in contexts):
            tree = reverse.conjugate_complex_results(tree, ctx)
        tree = boundary.run(tree, ctx)  # the requested function's arguments and results
        text = "\n\n".join([emit.run(tree, ctx)] + texts)
        fn = loader.run(text, ctx, namespace, _live_groups(contexts, defines),
                        Dependencies.union([c.facts["dependencies"].result()
                                            for c in contexts], version=live.rules_version()))
    except TangentADError:
        raise
    except RecursionError:
        raise InternalError("the function is too deeply nested to transform") from None
    except Exception as exc:  # anything else is our bug: say so, plainly
        raise InternalError(f"{type(exc).__name__}: {exc}") from exc
    if verbose >= 1:
        print(text)
    return fn


def _generate(func, wrt, kind, calls, *, mode, optimized, verbose,
              preserve_result=False, static_args=None, callee=False, has_aux=False,
              scalar=False):
    """Run the stages on one function; return (derivative tree, context)."""
    ctx = Context(func=func, wrt=wrt, mode=mode, optimized=optimized,
                  preserve_result=preserve_result, verbose=verbose, kind=kind,
                  calls=calls, static_args=static_args or {}, callee=callee)
    ctx.facts["has_aux"] = has_aux
    ctx.facts["scalar_output"] = scalar or has_aux
    tree, ctx.info = source.parse_function(func)
    for stage in FRONTEND:
        tree = _stage(stage, tree, ctx)
    tree = _stage(MODES[mode][0], tree, ctx)
    if optimized:
        tree = _stage(fixed_point, tree, ctx)
    return tree, ctx


def _live_groups(contexts, defines):
    """[(module dict, names read from it live, functions defined)], one
    entry per module whose data globals the unit's functions read, in the
    order of the functions (usually one: that of the requested function)."""
    groups = {}
    for ctx, defined in zip(contexts, defines):
        if not ctx.facts["live_names"]:
            continue  # reads no data global: no module dict to hold
        live = ctx.facts["live"]
        _, names, functions = groups.setdefault(id(live), (live, set(), []))
        names.update(ctx.facts["live_names"])
        functions.append(defined)
    return list(groups.values())


def _merge(namespace, extra, ctx):
    live_names = ctx.facts["live_names"]
    for key, value in extra.items():
        if key in live_names:
            continue  # read from its own module when it runs
        if key in ctx.static_args:
            # a parameter bound to a known function: the generated function
            # still takes it as a parameter, which hides any global of that
            # name, so two specializations (``apply(square, x)``,
            # ``apply(cube, x)``) need not agree on it
            continue
        # (a derivative the user holds and the generated function behind it
        # are one function: a caller of a gradient binds the first, its
        # rule's seed adjoint the second)
        if key in namespace and namespace[key] is not value and \
                live.behind(namespace[key]) is not live.behind(value):
            raise UnsupportedSyntaxError(
                f"{ctx.func.__qualname__} uses the global name '{key}' for a "
                "different object than the function that calls it",
                hint="give the two globals different names")
        namespace[key] = value


def _stage(stage, tree, ctx):
    tree = stage.run(tree, ctx)
    if ctx.verbose >= 2:
        if isinstance(tree, gast.FunctionDef):
            print(f"# after {stage.__name__.rsplit('.', 1)[-1]}:")
            print(emit.run(tree, ctx))
    return tree
