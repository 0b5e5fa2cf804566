"""The stages of a transformation, in order, and the loop that runs them.

    parse -> signatures -> inline -> statements -> comprehensions -> builtin_forms
          -> function_values
          -> validate -> resolve -> normalize -> exits -> activity
          -> reverse | forward -> [zero_backs] -> optimize -> boundary -> emit -> load

Each function of a unit (the requested one and every pullback or forward
function it calls) goes through the stages up to differentiation first;
``zero_backs``, the one stage that reads the whole unit (which pullbacks
may return no back, and who calls them), runs on the reverse-mode trees
before each is optimized.

A derivative differentiated again is parsed to the tree it was printed
from, and ``reread`` takes it to the core form in place of the stages
before ``exits`` (``frontend/reread.py``): the user's stages read the
user's Python only.

The six stages before validation rewrite Python's richer forms (match,
walrus, generator expressions, map, sorted, functions as values, calls
that pass or return closures, ...)
and a called function's ``*args`` and keyword-only parameters into the
constructs the later stages know.

Each stage is one module with a ``run(tree, ctx)`` function. With
``verbose=2`` the source is printed after every stage.
"""
import gast

from tangent_ad import collector, emit, live, loader
from tangent_ad.ad import boundary, forward, reverse, zero_backs
from tangent_ad.analysis import activity
from tangent_ad.context import Context
from tangent_ad.errors import InternalError, TangentADError, UnsupportedSyntaxError
from tangent_ad.frontend import (aux, builtin_forms, comprehensions, exits, function_values,
                                 generated, generators, inline, normalize, reread, resolve,
                                 signatures, source, statements, validate)
from tangent_ad.frontend import unit_writes
from tangent_ad.limits import rounds
from tangent_ad.nodes import walk
from tangent_ad.live import Dependencies
from tangent_ad.optimize import fixed_point

# Functions of one unit (each round generates at least one): a call graph
# that keeps growing, say a helper passing a new lambda to itself, stops here.
MAX_FUNCTIONS = 256
FRONTEND = (generators, signatures, inline, statements, comprehensions, builtin_forms, function_values,
            validate, resolve, normalize, exits, aux, activity)
GENERATED_FRONTEND = (reread, exits, aux, activity)  # a derivative differentiated again
# mode -> (differentiating stage, kind of the requested function, of its callees)
MODES = {"reverse": (reverse, "gradient", "pullback"),
         "forward": (forward, "jvp", "jvp")}


@collector.paused
def transform(func, *, wrt, mode="reverse", optimized=True,
              preserve_result=False, verbose=0, kind=None, has_aux=False, scalar=False,
              conjugate=True, inline_calls=False):
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
    scalar as a gradient's is, though the value is returned too. Without
    `conjugate`, a non-holomorphic unit keeps JAX's convention in its
    results too: the transposes that the derived rules of
    ``second_order.py`` are built from. With `inline_calls` (a derivative to
    compile, ``tangent_ad.compiled``), every call of a plain straight-line
    function is written out in its caller (``frontend/inline.py``), so that
    fewer pullbacks, which are closures, are left.
    """
    options = dict(mode=mode, optimized=optimized, verbose=verbose, inline_calls=inline_calls)
    calls, unit = {}, {}
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
        tree, ctx = _generate(func, tuple(wrt), kind, calls, unit=unit,
                              preserve_result=preserve_result, has_aux=has_aux,
                              scalar=scalar, **options)
        namespace, contexts, trees = dict(ctx.namespace), [ctx], [tree]
        for _ in rounds("the set of called functions to differentiate", MAX_FUNCTIONS):
            if len(done) >= len(calls):
                break
            for key in [k for k in calls if k not in done]:
                done.add(key)
                callee_tree, callee = _generate(key[0], key[1], callee_kind, calls, unit=unit,
                                                static_args=dict(key[2]), callee=True,
                                                **options)
                trees.append(callee_tree)
                contexts.append(callee)
        unit_writes.check_unit(unit)  # the calls of all its functions are known now
        if mode == "reverse":  # the pullbacks that may return no back, known now too
            trees = zero_backs.run(trees, contexts)
        if optimized:
            trees = [_stage(fixed_point, t, c) for t, c in zip(trees, contexts)]
        tree = trees[0]
        defines = [t.name for t in trees]
        live_anywhere = set().union(*(c.facts["live_names"] for c in contexts))
        printed, emitted = [], []
        for callee_tree, callee in zip(trees[1:], contexts[1:]):
            renames = _merge(namespace, callee.namespace, callee, callee_tree, defines,
                             live_anywhere, ctx)
            emitted.append(_renamed(callee_tree, renames))
            printed.append(emit.printed(emitted[-1], callee))
        ctx.facts["unit_nonholomorphic"] = any(c.facts.get("nonholomorphic") for c in contexts)
        if mode == "reverse" and conjugate and ctx.facts["unit_nonholomorphic"]:
            tree = reverse.conjugate_complex_results(tree, ctx)
            ctx.facts["conjugated"] = True
        tree = boundary.run(tree, ctx)  # the requested function's arguments and results
        printed.insert(0, emit.printed(tree, ctx))
        text = "\n\n".join(t for t, _ in printed)
        fn = loader.run(text, ctx, [f for _, f in printed], namespace,
                        _live_groups(contexts, defines),
                        Dependencies.union([c.facts["dependencies"].result()
                                            for c in contexts], version=live.rules_version()),
                        trees=(tree, *emitted))
    except TangentADError:
        raise
    except RecursionError:
        raise InternalError("the function is too deeply nested to transform") from None
    except Exception as exc:  # anything else is our bug: say so, plainly
        raise InternalError(f"{type(exc).__name__}: {exc}") from exc
    if verbose >= 1:
        print(text)
    return fn


def _generate(func, wrt, kind, calls, *, mode, optimized, verbose, unit=None,
              preserve_result=False, static_args=None, callee=False, has_aux=False,
              scalar=False, inline_calls=False):
    """Run the stages on one function; return (derivative tree, context)."""
    ctx = Context(func=func, wrt=wrt, mode=mode, optimized=optimized,
                  preserve_result=preserve_result, verbose=verbose, kind=kind,
                  calls=calls, static_args=static_args or {}, callee=callee,
                  unit={} if unit is None else unit)
    ctx.facts["has_aux"] = has_aux
    ctx.facts["scalar_output"] = scalar or has_aux
    ctx.facts["inline_calls"] = inline_calls
    tree, ctx.info = source.parse_function(func)
    for stage in GENERATED_FRONTEND if generated.is_generated(func) else FRONTEND:
        tree = _stage(stage, tree, ctx)
    tree = _stage(MODES[mode][0], tree, ctx)
    return tree, ctx


def _live_groups(contexts, defines):
    """[(module dict, names read from it live, {function defined: the names
    it reads live})], one entry per module whose data globals the unit's
    functions read, in the order of the functions (usually one: that of the
    requested function). Each function reads live only its own names: for
    another function of the unit the same name may be a closure's cell."""
    groups = {}
    for ctx, defined in zip(contexts, defines):
        if not ctx.facts["live_names"]:
            continue  # reads no data global: no module dict to hold
        live = ctx.facts["live"]
        _, names, functions = groups.setdefault(id(live), (live, set(), {}))
        names.update(ctx.facts["live_names"])
        functions[defined] = frozenset(ctx.facts["live_names"])
    return list(groups.values())


def _merge(namespace, extra, ctx, tree, defines, live_anywhere, first):
    """Add the objects a callee's generated code reads (`extra`) to the
    unit's `namespace`. Where a name already denotes another object there
    (two closures of one factory: each ``unpack`` or ``scale`` a cell of
    its own), or another function of the unit reads a global of that name
    live, the callee reads it under a fresh name, so that each name of the
    unit means one thing (second-order code reads the unit by its names):
    the renames, for `_renamed`."""
    live_names = ctx.facts["live_names"]
    renames = {}
    for key, value in extra.items():
        if key in live_names:
            if key in first.namespace and key not in first.facts["live_names"]:
                raise UnsupportedSyntaxError(
                    f"{ctx.func.__qualname__} reads the global '{key}', and "
                    f"{first.func.__qualname__} a variable of that name of its own",
                    hint="give the two variables different names")
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
        if key in live_anywhere or key in namespace and namespace[key] is not value and \
                live.behind(namespace[key]) is not live.behind(value):
            fresh = _fresh(key, namespace, tree, defines)
            if fresh is None:
                raise UnsupportedSyntaxError(
                    f"{ctx.func.__qualname__} uses the global name '{key}' for a "
                    "different object than the function that calls it",
                    hint="give the two globals different names")
            renames[key] = fresh
            namespace[fresh] = value
            continue
        namespace[key] = value
    return renames


def _fresh(key, namespace, tree, defines):
    """A name for the global `key` of `tree` that nothing in the unit uses,
    or None when `tree` also binds `key` (so not every use of the name is
    the global)."""
    ids = set()
    for node in walk(tree):
        if isinstance(node, gast.Name):
            if node.id == key and not isinstance(node.ctx, gast.Load):
                return None
            ids.add(node.id)
        elif isinstance(node, gast.FunctionDef):
            ids.add(node.name)
    i = 2
    while f"{key}_{i}" in namespace or f"{key}_{i}" in ids or f"{key}_{i}" in defines:
        i += 1
    return f"{key}_{i}"


def _renamed(tree, renames):
    """`tree` with its reads of the globals `renames` maps under their new names."""
    for node in walk(tree):
        if isinstance(node, gast.Name) and node.id in renames:
            node.id = renames[node.id]
    return tree


def _stage(stage, tree, ctx):
    tree = stage.run(tree, ctx)
    if ctx.verbose >= 2:
        if isinstance(tree, gast.FunctionDef):
            print(f"# after {stage.__name__.rsplit('.', 1)[-1]}:")
            print(emit.run(tree, ctx))
    return tree
