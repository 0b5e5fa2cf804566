"""Staging: derivatives specialized for the kinds of their arguments.

The general derivative cannot know whether ``a * x`` multiplies two Python
floats or broadcasts a vector over a matrix, so it keeps ``unbroadcast``,
the generic matrix-product adjoints, and the values they read for their
shapes. `staged` wraps a generated function in a *dispatcher* with the same
signature. Once a call repeats the kinds of the arguments (a Python
float; an array's shape and dtype; see ``kinds.py``) of an earlier call,
the dispatcher writes a copy of the derivative for those kinds, with
copies of the pullbacks it calls (``unit.py``), each made by ``passes.py``
(``specialize.py`` and the general passes to a fixed point, then
``sums.py``, ``inline.py``, ``full_sums.py``, ``release.py`` and
``accumulate.py``; ``branch_lists.py`` and ``shared_factors.py`` for a
copy run as Python). From then on it runs the copy behind a guard on the
arguments' kinds:

    def dloss_dW(W, x, bresult=1.0):
        if not (type(W) is _tad_ndarray and W.shape == _tad_c0
                and W.dtype is _tad_c1 and type(bresult) is _tad_c2):
            return _tad_stage(W, x, bresult)
        ...the specialized derivative...

That guarded copy becomes the dispatcher's own code (``__code__``), so a
call that passes the guard costs the checks and nothing else. Other kinds
go through ``_tad_stage``, which keeps up to `MAX_VARIANTS` copies and
guards the most recent. The general derivative stays what ``show_source``
prints and what ``__wrapped__`` (for ``inspect`` and for transforming the
derivative again) refers to; `variants` lists the copies' sources.
"""
import ast
import copy
import inspect
import types

import numpy as np

from tangent_ad import collector, emit, printed_places, progress, scopes, tracebacks
from tangent_ad.live import LIVE_KEY, LIVE_NAMES_KEY
from tangent_ad.nodes import copy_tree
from tangent_ad.optimize import fixed_point
from tangent_ad.staging import guards
from tangent_ad.staging.guards import Guards
from tangent_ad.staging.passes import optimize
from tangent_ad.staging.kinds import Kinds, kind_of
from tangent_ad.staging.unit import OUTPUT_ADJOINT, Unit
from tangent_ad.compiled import compiler
from tangent_ad.errors import CompileError
from tangent_ad import texts

CALLS_BEFORE_STAGING = 2  # calls with the same kinds before a copy is written
MAX_VARIANTS = 8          # copies per derivative; more kinds run the general one
MAX_SEEN = 256            # kinds remembered before staging


def staged(fn, rebuild=None, compiled=None):
    """A dispatcher for the generated function `fn` (see the module
    docstring); `fn` itself when its signature or namespace rule staging
    out (keyword-only or variadic parameters, helpers reading the globals
    of other modules). The passes know the functions the derivative calls
    by object, looked up in its namespace (``callees.py``); the calls they
    write (``np.sum``, ``float``) name what the namespace binds to those
    names (the resolver renames a user's global that shadows one). With `rebuild`,
    the dispatcher calls it for a new general derivative when `fn`'s
    dependencies change (``live.py``). With `compiled` (a ``compiler.Compiling``),
    each copy is compiled (``tangent_ad.compiled``), on the first call with
    new kinds; `fn` itself then means it cannot be."""
    if hasattr(fn, "__tangent_ad_stager__"):
        return fn  # already staged
    info = fn.__tangent_ad__
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params) or \
            scopes.live_key(1) in info.namespace or not info.trees:
        return fn  # no trees (a wrapper's record): nothing to specialize
    return _Stager(fn, [p.name for p in params], rebuild, compiled).dispatcher


def variants(fn):
    """{kinds of the arguments: source} of the copies `fn` has written."""
    stager = getattr(fn, "__tangent_ad_stager__", None)
    return dict(stager.sources) if stager is not None else {}


def source_for(fn, args, kwargs):
    """The source of the copy of `fn` that a call with `args` and `kwargs`
    runs (written now if it is not yet, but not run), without its guard;
    None when such a call runs the general derivative."""
    stager = getattr(fn, "__tangent_ad_stager__", None)
    if stager is None:
        return None
    stager.refresh()
    bound = inspect.signature(stager.general).bind(*args, **kwargs)
    bound.apply_defaults()
    key = stager.key(bound.args)
    if key not in stager.variants:
        if stager.compiling is not None:
            stager.variants[key] = stager._compiled(key, bound.args)
        else:
            try:
                stager.variants[key] = stager._variant(key)
            except Exception as exc:  # noqa: BLE001 - as in a call: the general one runs
                stager.errors[key] = exc
                stager.variants[key] = stager.general
    return stager.sources.get(key) if stager.variants[key] is not stager.general else None


class _Stager:
    def __init__(self, general, params, rebuild=None, compiling=None):
        self.params = params
        self.compiling = compiling
        self.name = general.__name__
        self.rebuild = rebuild  # makes the general derivative again, when it is stale
        self.ns = {}
        self.dispatcher = None
        self._reset(general)
        arguments = ", ".join(params)
        self.dispatch_code = self._compile(
            f"def {self.name}({arguments}):\n    return _tad_stage({arguments})\n",
            "dispatch").__code__
        self.dispatcher = types.FunctionType(self.dispatch_code, self.ns, self.name)
        self.dispatcher.__tangent_ad_stager__ = self
        self.dispatcher.__tangent_ad_refresh__ = self.current
        self._point_at(general)

    def _reset(self, general):
        """Start over from the general derivative `general`: no copies yet."""
        self.general = general
        self.info = general.__tangent_ad__
        self.seen = {}       # kinds -> calls so far, before staging
        self.variants = {}   # kinds -> function to run
        self.sources = {}    # kinds -> source of the copy
        self.printed = {}    # kinds -> the ast functions of a copy that reads globals live
        self.guarded = {}    # kinds -> code of the copy behind its guard
        self.guards = Guards(self.ns)  # writes the guards' checks
        self.copies = 0      # pullback copies written so far
        self.errors = {}     # kinds -> the exception that stopped their copy
        self.kernels = {}    # kinds -> compiler.Compiled, when compiling
        self.unspecialized = None  # code running the general one, when no copy helps
        self.ns.clear()
        self.ns.update(self.info.namespace)
        self.ns.update(np=np, _tad_stage=self.stage, _tad_ndarray=np.ndarray)

    def _point_at(self, general):
        for attr in ("__defaults__", "__doc__", "__qualname__", "__module__"):
            setattr(self.dispatcher, attr, getattr(general, attr))
        self.dispatcher.__code__ = self.dispatch_code
        self.dispatcher.__tangent_ad__ = self.info
        # inspect (getsource, signature) and the front end, when the
        # derivative is differentiated again, read the general function
        self.dispatcher.__wrapped__ = general

    def current(self):
        """The general derivative, generated again first if it is stale."""
        self.refresh()
        return self.general

    def refresh(self):
        """Generate the derivative again if what it was generated from has
        changed (a helper redefined, a rule registered; see ``live.py``)."""
        deps = self.info.deps
        if self.rebuild is None or deps is None or deps.current():
            return
        general = self.rebuild()
        self._reset(general)
        self._point_at(general)

    def stage(self, *args):
        """Run the copy for the kinds of `args`, writing it if they repeat,
        and guard the dispatcher's code for them (the most recent kinds win)."""
        self.refresh()
        key = self.key(args)
        fn = self.variants.get(key)
        if fn is None:
            count = self.seen.get(key, 0) + 1
            if self.compiling is not None and len(self.variants) < MAX_VARIANTS:
                count = CALLS_BEFORE_STAGING  # compiled on the first call
            if count < CALLS_BEFORE_STAGING or len(self.variants) >= MAX_VARIANTS:
                if len(self.seen) > MAX_SEEN:
                    self.seen.clear()
                self.seen[key] = count
                try:
                    return self.general(*args)
                except Exception as exc:
                    tracebacks.annotate(exc)  # name the user's line
                    raise
            if self.compiling is not None:
                fn = self._compiled(key, args)
            else:
                try:
                    with progress.timed(f"specializing {self.name} to its arguments"):
                        fn = self._variant(key)
                except Exception as exc:  # noqa: BLE001 - a bug must not cost the gradient
                    self.errors[key] = exc
                    fn = self.general
            self.variants[key] = fn
        if fn is not self.general:
            if key not in self.guarded:
                self.guarded[key] = self._guarded(key)
            self.dispatcher.__code__ = self.guarded[key]
        elif len(self.variants) == 1:  # nothing to specialize: guard the general one
            if self.unspecialized is None:
                self.unspecialized = self._unspecialized()
            self.dispatcher.__code__ = self.unspecialized
        try:
            return fn(*args)
        except Exception as exc:
            tracebacks.annotate(exc)
            raise

    def key(self, args):
        """The kinds a copy for a call with `args` assumes (and guards)."""
        return tuple(kind_of(a) for a in args) + self._global_kinds()

    def _global_kinds(self):
        """``((name, kind), ...)`` for the data globals the derivative reads
        live whose values have a kind now (``DT = 0.05``): a copy may
        assume them, and its guard checks them on every call, as it checks
        the arguments' (the values stay live: only their kinds are fixed)."""
        module = self.ns.get(LIVE_KEY)
        if module is None:
            return ()
        found = []
        for name in sorted(self.ns.get(LIVE_NAMES_KEY, ())):
            kind = kind_of(module.get(name))
            if kind is not None:
                found.append((name, kind))
        return tuple(found)

    def _unspecialized(self):
        """The dispatcher's code when no copy is worth writing: the general
        derivative, behind the checks that it is current."""
        arguments = ", ".join(self.params)
        self.ns["_tad_general"] = self.general
        checks = self.guards.dependency_checks(self.info.deps) or [ast.Constant(value=True)]
        _, guard = guards.statement(checks, self.params)
        source = "\n".join([f"def {self.name}({arguments}):", *guard,
                            f"    return _tad_general({arguments})", ""])
        return self._compile(source, "general, guarded").__code__

    @collector.paused
    def _variant(self, key):
        """The copy of the derivative for argument kinds `key`, with copies
        of the pullbacks it calls (the general derivative when specializing
        changes nothing)."""
        trees = self._specialized(key)
        if trees is None:
            return self.general
        printed = [emit.printed(tree) for tree in trees]
        self.sources[key] = "\n\n".join(text for text, _ in printed)
        functions = [function for _, function in printed]
        if _reads_any(functions, self.ns.get(LIVE_NAMES_KEY, ())):
            self.printed[key] = functions
        return self._compile(self.sources[key], f"for {_describe(key[:len(self.params)])}",
                             self.printed.get(key))

    def _compiled(self, key, args):
        """The compiled copy for kinds `key` (compiled for the types of
        `args`), as a function of the parameters; on a CompileError with
        ``fallback``, the general derivative, with a warning."""
        kinds = {}
        try:
            trees = self._specialized(key, kinds)
        except Exception as exc:  # noqa: BLE001 - compile the general one instead
            self.errors[key] = exc
            trees = None
        if trees is None:
            trees = [copy_tree(t) for t in self.info.trees]
            kinds = {trees[0].name: Kinds(trees[0], dict(zip(self.params, key)),
                                          namespace=self.ns).names}
        module = self.ns.get(LIVE_KEY) or {}
        live = {n: module[n] for n in sorted(self.ns.get(LIVE_NAMES_KEY, ())) if n in module}
        try:
            with progress.timed(f"compiling {self.name} with numba", self.compiling.verbose):
                done = compiler.compile_unit(trees, self.ns, live, self.info.primal, args,
                                             f"numba for {_describe(key[:len(self.params)])}",
                                             self.general, kinds)
        except CompileError as exc:
            self.errors[key] = exc
            compiler.give_up(exc, self.compiling, self.name)
            return self.general
        if self.compiling.verbose:
            progress.report(f"compiled {self.name} with numba in {done.seconds:.2f} s",
                            self.compiling.verbose)
        self.kernels[key] = done
        self.sources[key] = done.source
        entry, names = done.entry, done.live_names
        return entry if not names else (lambda *a: entry(*a, *[module[n] for n in names]))

    def _specialized(self, key, kinds=None):
        """The specialized trees of the unit for kinds `key`, or None when
        specializing changes nothing (or a fact changed while rewriting).
        `kinds`, a dict, receives {function name: {variable: kind}} for the
        trees returned (what the compiled form types its saves by); with it,
        the trees are returned even when they are the general ones."""
        functions = [copy_tree(t) for t in self.info.trees]
        root, pullbacks = functions[0], {f.name: f for f in functions[1:]}
        params = dict(zip(self.params, key))
        unit = Unit(pullbacks, self._fresh, dict(key[len(self.params):]), self.ns)
        unit.solve(root, params)
        dropped = set(unit.invalid)
        tally = fixed_point.Tally()  # did specializing change anything?
        as_python = kinds is None  # (a compiled copy keeps to NumPy and one stack per site)
        trees = [optimize(root, params, unit, tally=tally, as_python=as_python)]
        facts = [(params, ())]
        for spec_key, spec in unit.valid().items():
            tree = copy.deepcopy(pullbacks[spec_key[0]])
            tree.name = spec.name
            facts.append((unit.params(spec_key), (OUTPUT_ADJOINT,)))
            trees.append(optimize(tree, facts[-1][0], unit, facts[-1][1], as_python=as_python))
        if unit.invalid != dropped:
            return None  # a fact changed while rewriting: trust none
        if len(trees) == 1 and kinds is None and not tally.rewrites and \
                fixed_point.fingerprint(trees[0]) == fixed_point.fingerprint(self.info.trees[0]):
            return None  # (a text of each whole tree: compared only when no rewrite was counted)
        if kinds is not None:
            for tree, (tree_params, given) in zip(trees, facts):
                kinds[tree.name] = Kinds(tree, tree_params, unit, given).names
        return trees

    def _fresh(self, callee):
        self.copies += 1
        return f"{callee}_{self.copies}"

    def _guarded(self, key):
        """The code of the copy for `key` behind a guard on the arguments."""
        checks = self.guards.kind_checks(self.params, key) + \
            self.guards.dependency_checks(self.info.deps)
        if key in self.kernels:
            return self._guarded_kernel(key, checks)
        label = f"for {_describe(key[:len(self.params)])}, guarded"
        functions = self.printed.get(key)
        if not checks:
            return self._compile(self.sources[key], label, functions).__code__
        node, guard = guards.statement(checks, self.params)
        lines = self.sources[key].splitlines()
        start = next(i for i, line in enumerate(lines) if line.rstrip().endswith(":")) + 1
        source = "\n".join(lines[:start] + guard + lines[start:]) + "\n"
        if functions is not None:  # compiled from the tree: the guard goes in there too
            first = copy.copy(functions[0])
            first.body = [node] + first.body
            functions = [first] + functions[1:]
        return self._compile(source, label, functions).__code__

    def _guarded_kernel(self, key, checks):
        """The code that calls the compiled kernel for `key` behind its guard
        (the live globals it takes are read live here, at each call)."""
        done = self.kernels[key]
        kernel = self.guards.identity(done.entry)
        arguments = ", ".join(self.params)
        _, guard = guards.statement(checks or [ast.Constant(value=True)], self.params)
        taken = self.params + [guards.live_text(name) for name in done.live_names]
        source = "\n".join([f"def {self.name}({arguments}):", *guard,
                            f"    return {kernel}({', '.join(taken)})", ""])
        return self._compile(source, f"numba for {_describe(key[:len(self.params)])}, "
                                     f"guarded").__code__

    def _compile(self, source, label, functions=None):
        """Compile `source` into the namespace and take out its function.
        With `functions`, the ``ast`` functions `source` was printed from
        (a copy that reads the user's globals live, as the general
        derivative does), those are compiled instead, their reads of the
        globals rewritten (``scopes.read_live``), on the lines the text has
        (``printed_places``): the text is not parsed."""
        filename = f"<tangent_ad {self.name} {label}>"
        texts.register(filename, source)
        if functions is None:
            code = compile(source, filename, "exec")
        else:
            placed = printed_places.place(source, functions)
            live = (LIVE_KEY, self.ns.get(LIVE_NAMES_KEY, ()))
            module = scopes.read_live(printed_places.compilable(functions, placed),
                                      lambda name: live)
            code = compile(module, filename, "exec")
        exec(code, self.ns)
        return self.ns.pop(self.name)


def _reads_any(functions, names):
    """Whether the printed ``ast`` `functions` read any of `names` free."""
    if not names:
        return False
    loads = scopes.function_loads(ast.Module(body=list(functions), type_ignores=[]))
    return any(n.id in names for found in loads.values() for n in found)


def _describe(key):
    parts = []
    for kind in key:
        if kind is None:
            parts.append("?")
        elif kind.box == "array":
            parts.append(f"{kind.dtype}{list(kind.shape)}")
        else:
            parts.append(kind.box if kind.python else str(kind.dtype))
    return "(" + ", ".join(parts) + ")"
