"""Numba, run on the Numba form of a derivative, and what it reports.

`compile_unit` writes the Numba form (``numba_form``) of a unit's trees,
compiles it for the types of one call's arguments (so compile time is
spent, and reported, before the derivative runs), and returns the
compiled kernel with the source Numba compiled. Whatever Numba refuses
becomes a `CompileError` that names the user's line and the construct:
never a Numba traceback.
"""
import re
import dataclasses
import time
import warnings
from dataclasses import dataclass

import gast
import numpy as np

from tangent_ad import emit, loader, tracebacks
from tangent_ad.errors import CompileError
from tangent_ad.compiled import disk_cache, numba_form
from tangent_ad.nodes import walk
from tangent_ad import texts

BACKENDS = ("numba",)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class Compiled:
    """A compiled kernel: it takes the derivative's parameters, then the
    values of `live_names` (the data globals it reads live). `entry` is
    what a call runs: the kernel, or the kernel with its results cast to
    the dtypes NumPy gives (see `checked`)."""

    kernel: object
    source: str
    live_names: tuple
    seconds: float
    tree: object = None     # the Numba form compiled
    signature: tuple = ()   # the Numba types it was compiled for
    entry: object = None


@dataclass(frozen=True)
class Compiling:
    """How the copies of a derivative are compiled: with `backend`
    ("numba"); with `fallback`, a copy that cannot be runs as Python, with
    a warning; `verbose` reports the compile time."""

    backend: str = "numba"
    fallback: bool = False
    verbose: int = 0


def compiling(compile, fallback, verbose):
    """The `Compiling` a transform's options ask for, or None (compile=None,
    or Numba missing with `fallback`, which warns). Refuses a `compile`
    other than None and "numba"."""
    if compile is not None and compile not in BACKENDS:
        raise ValueError(f"compile={compile!r}: the choices are None (run as Python) "
                         f"and 'numba'")
    if fallback and compile is None:
        raise ValueError("fallback=True needs compile='numba'")
    if compile is None:
        return None
    chosen = Compiling(compile, bool(fallback), verbose)
    try:
        require_numba()  # before any work
    except CompileError as exc:
        give_up(exc, chosen, "the derivative")
        return None
    return chosen


def give_up(error, chosen, what):
    """Raise the CompileError `error`; with ``chosen.fallback``, warn that
    `what` runs as Python instead."""
    if not chosen.fallback:
        raise error
    warnings.warn(f"tangent_ad: {what} runs as Python, not compiled:\n{error}",
                  RuntimeWarning, stacklevel=5)


def require_numba():
    """The numba module, or a CompileError saying how to install it."""
    try:
        import numba
    except ImportError:
        raise CompileError(
            "compile='numba' needs Numba, which is not installed",
            hint="pip install numba (or pip install 'tangent-sct[numba]'); "
                 "compile=None runs the derivative as Python") from None
    return numba


def compile_unit(trees, namespace, live_values, primal, args, label, general, kinds=None):
    """Compile the unit `trees` (see ``numba_form.run``) for the types of
    `args`, the parameters' values, and check it against the interpreted
    derivative `general` on them (`checked`). `live_values` maps the data
    globals the derivative reads live to their values now; `namespace` is
    the generated code's; `label` names the file; `kinds` gives the kinds
    staging found for each function's variables (``numba_form``)."""
    numba = require_numba()

    def locate(text):
        return _user_line(primal, text)

    first = _compile_form(numba, numba_form.run(trees, tuple(live_values), locate,
                                                kinds=kinds), namespace,
                          live_values, primal, args, label)
    done = first
    sites = _number_sites(first)
    if sites:
        try:  # the same form with arrays for the lists of numbers
            form = numba_form.run(trees, tuple(live_values), locate, sites, kinds=kinds)
            second = _compile_form(numba, form, namespace, live_values, primal, args, label)
            done = dataclasses.replace(second, seconds=first.seconds + second.seconds)
        except CompileError:
            pass
    values = [live_values[n] for n in done.live_names]
    cast = checked(lambda *a: done.kernel(*a, *values), general, args, primal)
    if cast is None:
        return dataclasses.replace(done, entry=done.kernel)
    kernel = done.kernel
    return dataclasses.replace(done, entry=lambda *a: cast(kernel(*a)))


def source_of(form, cache=False):
    """The text of the Numba form `form`: each function under ``@numba.njit``
    (``@numba.njit(cache=True)`` with `cache`, see ``disk_cache``)."""
    decorator = "@numba.njit(cache=True)\n" if cache else "@numba.njit\n"
    return "\n\n".join(decorator + emit.run(f) for f in form.functions)


def form_namespace(numba, form, namespace):
    """The namespace the text of `form` runs in: the generated code's,
    helpers swapped for their Numba versions, with ``numba``, the typed
    ``List`` and the item type of each list the functions share."""
    from tangent_ad.compiled import helpers

    ns = helpers.namespace(namespace)
    ns["numba"] = numba
    if form.item_types:
        ns["List"] = numba.typed.List
    for type_name, (dtype, ndim) in form.item_types.items():
        item = numba.from_dtype(np.dtype(dtype))
        ns[type_name] = numba.types.Array(item, ndim, "C") if ndim else item
    return ns


def _compile_form(numba, form, namespace, live_values, primal, args, label):
    tree = form.root
    live = tuple(a.id for a in tree.args.args[len(args):])
    ns = form_namespace(numba, form, namespace)
    defined = {f.name for f in form.functions}
    reads = {n.id: ns[n.id] for f in form.functions for n in walk(f)
             if isinstance(n, gast.Name) and n.id in ns and n.id not in defined}
    for key, value in reads.items():
        code = getattr(value, "__code__", None)
        if code is not None and code.co_filename.startswith("<tangent_ad "):
            raise CompileError(
                f"this derivative cannot be compiled with numba: it calls {key}, the general "
                f"pullback of a call whose argument kinds staging could not fix, which stays "
                f"a closure", filename=_file(primal), lineno=_first_line(primal),
                hint="a call whose arguments keep one kind (a float, an array of one shape "
                     "and dtype) compiles; compile=None runs it as Python")
    source = source_of(form, cache=True)
    # one function only: Numba 0.68 crashed loading a cached recursive tape
    filename = disk_cache.source_file(source, reads) if len(form.functions) == 1 else None
    if filename is None:  # not cached: compiled from the text alone
        source = source_of(form)
        filename = f"<tangent_ad {tree.name} {label}>"
        texts.register(filename, source)
    else:  # Numba's cache finds the globals of what it loads by module name
        ns = disk_cache.module_namespace(filename, ns)
    start = time.perf_counter()
    exec(compile(source, filename, "exec"), ns)
    kernel = ns[tree.name]
    try:
        signature = tuple(numba.typeof(v) for v in list(args) + [live_values[n] for n in live])
    except ValueError as exc:
        raise CompileError(f"this derivative cannot be compiled with numba: an argument "
                           f"has a type Numba does not take ({exc})",
                           filename=_file(primal), lineno=_first_line(primal),
                           hint="numba form takes numbers and NumPy arrays; "
                                "compile=None runs it as Python") from None
    try:
        kernel.compile(signature)
    except numba.core.errors.NumbaError as exc:
        raise _explain(exc, filename, source, primal) from None
    kernel.disable_compile()  # a call of other types goes through the guard first
    return Compiled(kernel, source, live, time.perf_counter() - start, tree, signature)


def _number_sites(done):
    """{list: NumPy dtype name} for the save lists whose items Numba typed
    as numbers or bools (possibly None at first: a placeholder)."""
    from numba import types
    from numba.np.numpy_support import as_dtype
    try:
        typemap = done.kernel.overloads[done.signature].type_annotation.typemap
    except (AttributeError, KeyError):
        return {}
    found = {}
    for site in numba_form.site_lists(done.tree):
        typ = typemap.get(site)
        item = getattr(typ, "dtype", None)
        if isinstance(item, types.Optional):
            item = item.type
        if isinstance(item, (types.Float, types.Integer, types.Boolean)):
            dtype = as_dtype(item).name
            found[site] = "bool_" if dtype == "bool" else dtype
    return found


def numba_record(info):
    """The `Generated` record `info` of a derivative with its source and
    namespace in Numba form, for a file (``standalone``, ``--compile numba``):
    compiled when the file's function is first called, for the types of
    that call; its save lists stay lists (no call has typed them) and the
    globals it reads are frozen as the file holds them."""
    numba = require_numba()
    trees = list(info.trees)
    if not trees:
        raise CompileError("this derivative has no stored tree to compile "
                           "(a wrapper such as hvp's)", hint="write it without --compile")
    form = numba_form.run(trees, (), lambda text: _user_line(info.primal, text),
                          keep_defaults=True)
    functions = [emit.printed(f)[1] for f in form.functions]
    return dataclasses.replace(info, source=source_of(form),
                               namespace=form_namespace(numba, form, info.namespace),
                               trees=tuple(form.functions),
                               loads=tuple(loader.free_names(functions)) + ("numba",),
                               defines=tuple(f.name for f in functions))


def _explain(exc, filename, source, primal):
    """A CompileError for what Numba reported: its reason, at the user's line."""
    text = _ANSI.sub("", str(exc))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    reasons = [line for line in lines if not line.startswith(("Failed in ", "During:", "File "))
               and not set(line) <= set("^-")]
    reason = reasons[0] if reasons else "Numba could not compile it"
    found = re.findall(rf'File "{re.escape(filename)}", line (\d+)', text)
    where = (_file(primal), _first_line(primal), None)
    generated = None
    if found:
        lineno = int(found[-1])
        generated = source.splitlines()[lineno - 1].strip()
        comment = _comment_above(source.splitlines(), lineno)
        where = _user_line(primal, comment)
    message = f"this derivative cannot be compiled with numba: {reason}"
    if generated:
        message += f"\n  (generated line: {generated})"
    return CompileError(message, filename=where[0], lineno=where[1], source_line=where[2],
                        hint="tad.show_source(g, *args) shows the code Numba compiled; "
                             "compile='numba', fallback=True runs it as Python with a "
                             "warning, compile=None without one")


def _comment_above(lines, lineno):
    for line in reversed(lines[:lineno - 1]):
        stripped = line.strip()
        if stripped.startswith("# Grad of: "):
            return stripped[len("# Grad of: "):]
        if stripped.startswith("def "):
            return None
    return None


def _user_line(primal, text):
    """(file, line, source) of the user's line that a ``# Grad of: text``
    comment names; the function's first line when there is none."""
    if text is not None and primal is not None:
        found = tracebacks.find_statement(primal, text)
        if found is not None:
            return found
    return _file(primal), _first_line(primal), text


def _file(primal):
    code = getattr(primal, "__code__", None)
    return code.co_filename if code is not None else None


def _first_line(primal):
    code = getattr(primal, "__code__", None)
    return code.co_firstlineno if code is not None else None


def checked(run, general, args, primal):
    """Run the compiled `run` and the interpreted `general` once on `args`
    and compare: a disagreement beyond rounding is a CompileError (a Numba
    semantics difference must never become a wrong number). Returns None,
    or a function that casts the compiled results to the dtypes NumPy
    gives (Numba promotes ``float32 * 2.0`` to float64; NumPy does not)."""
    want = general(*args)  # the user's own error, if any, is raised as Python raises it
    try:
        got = run(*args)
    except Exception as exc:  # noqa: BLE001 - Numba's run-time checks of values
        raise CompileError(
            f"the compiled derivative fails where the interpreted one does not "
            f"({type(exc).__name__}: {exc})",
            filename=_file(primal), lineno=_first_line(primal),
            hint="compile=None runs it as Python; please report the function") from None
    casts = []
    if not _agree(got, want, casts):
        raise CompileError(
            "the compiled derivative disagrees with the interpreted one on the first "
            "call (a difference of Numba's semantics from NumPy's)",
            filename=_file(primal), lineno=_first_line(primal),
            hint="compile=None runs it as Python; please report the function")
    return _cast_to(want) if casts else None


def _agree(got, want, casts):
    if isinstance(want, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(want) and \
            all(_agree(g, w, casts) for g, w in zip(got, want))
    if want is None or got is None:
        return want is got
    w, g = np.asarray(want), np.asarray(got)
    if w.shape != g.shape:
        return False
    if isinstance(want, (np.ndarray, np.generic)) and g.dtype != w.dtype:
        casts.append(True)
    tol = 1e-5 if w.dtype.itemsize <= 4 or g.dtype.itemsize <= 4 else 1e-9
    return bool(np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True))


def _cast_to(like):
    """A function giving a value of the structure of `like` its dtypes."""
    if isinstance(like, (tuple, list)):
        parts = [_cast_to(item) for item in like]
        kind = type(like)
        return lambda value: kind(p(v) for p, v in zip(parts, value))
    if isinstance(like, np.ndarray):
        dtype = like.dtype
        return lambda value: value.astype(dtype, copy=False)
    if isinstance(like, np.generic):
        kind = type(like)
        return lambda value: kind(value)
    return lambda value: value
