"""The ``tangent-ad`` command: differentiate a function in a file, save a module.

``tangent-ad model.py:loss --wrt W,b -o loss_grad.py`` writes a standalone
module defining ``dloss_dW_b`` (see docs/cli.md). It is meant for scripts and
build steps, so it is strict: exit 0, 1 (a problem with the user's file or its
derivative: one line on stderr, never a traceback) or 2 (bad usage); it never
overwrites without ``--force`` and never leaves a half-written file.
"""

import argparse
import contextlib
import inspect
import itertools
import keyword
import os
import sys
import traceback
from importlib import machinery, util

from tangent_ad import output
from tangent_ad.errors import InternalError, TangentADError

PROG = "tangent-ad"
EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
EXAMPLE_SUFFIX = "_example_args"
CHECK_SEED = 0

_module_ids = itertools.count()

_DESCRIPTION = """\
Differentiate FUNC, defined in FILE.py, and write the derivative as a
standalone Python module that needs only numpy (the tangent_ad helpers it
calls are copied into it).
The generated function is named d<FUNC>_d<WRT names joined by _>, for
example dloss_dW_b, and takes the same arguments as FUNC. With --order 2
it is the derivative of that derivative (ddloss_dW_dW), and so on."""

_EPILOG = f"""\
--check convention:
  If FILE.py defines a function <FUNC>{EXAMPLE_SUFFIX}() (no parameters) that
  returns a tuple of arguments for FUNC, the check runs at those arguments;
  otherwise every positional parameter gets a random float64 scalar in
  [0.5, 1.5) (seed {CHECK_SEED}). The check runs before anything is written: on a
  mismatch nothing is written and the exit code is 1.

exit codes:
  0  success
  1  error: FILE cannot be loaded, FUNC cannot be differentiated, --check
     failed, or OUT exists (use --force) or cannot be written
  2  usage error: bad options, missing :FUNC, unknown --wrt name, or
     -o naming FILE itself (never overwritten, even with --force)

output:
  stdout carries the generated module and nothing else: whatever FILE
  prints when it is imported goes to stderr. -o - also means stdout.

example:
  {PROG} model.py:loss --wrt W,b -o loss_grad.py   # defines dloss_dW_b
"""


class CLIError(Exception):
    """A problem reported as ``tangent-ad: error: <message>``; exit ``code``."""

    def __init__(self, message, code=EXIT_ERROR):
        super().__init__(message)
        self.code = code


def build_parser():
    """The argument parser; a function so tests and docs can inspect it."""
    parser = argparse.ArgumentParser(
        prog=PROG, description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"{PROG} {_version()}")
    parser.add_argument("target", metavar="FILE.py:FUNC",
                        help="the file to load and the function in it")
    parser.add_argument("--wrt", metavar="NAME[,NAME...]",
                        help="parameters to differentiate with respect to "
                             "(default: the first parameter)")
    parser.add_argument("--mode", choices=("reverse", "forward"),
                        default="reverse", help="AD mode (default: reverse)")
    parser.add_argument("-o", "--output", metavar="OUT.py",
                        help="write the module here; '-' or no -o: stdout")
    parser.add_argument("--force", action="store_true",
                        help="overwrite OUT.py if it exists")
    parser.add_argument("--check", action="store_true",
                        help="compare the derivative with central finite "
                             "differences before writing (see below)")
    parser.add_argument("--no-optimize", action="store_true",
                        help="skip the simplification passes (longer code)")
    parser.add_argument("--compile", choices=("numba",), default=None,
                        help="write the Numba form of the derivative, under "
                             "@numba.njit (docs/compiled.md)")
    parser.add_argument("--order", type=int, default=1, metavar="N",
                        help="reverse mode only: the N-th derivative, for "
                             "scalar WRT arguments (default: 1)")
    return parser


def _version():
    from tangent_ad import __version__
    return __version__


def main(argv=None):
    """Run the command on ``argv`` (default: ``sys.argv[1:]``); return the code.

    Failures become a message on stderr, never a traceback: the caller is a
    shell, not a Python programmer.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse reported
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    saved_path = list(sys.path)
    try:
        return _run(args)
    except CLIError as exc:
        if exc.code == EXIT_USAGE:
            parser.print_usage(sys.stderr)
        _say(f"error: {exc}")
        return exc.code
    except TangentADError as exc:
        _say(f"error: {exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except Exception as exc:  # anything else escaping is our bug
        message = " ".join(str(exc).split())  # one line, always
        _say(f"internal error: {type(exc).__name__}: {message} (this is a bug)")
        return EXIT_ERROR
    finally:
        sys.path[:] = saved_path


def _run(args):
    """Load, differentiate, optionally check, then print or write the module.

    Whatever the user's code prints while it is loaded, differentiated or
    checked goes to stderr: stdout carries the generated module only.
    """
    path, func_name = _split_target(args.target)
    out = None if args.output in (None, "-") else args.output
    if out is not None:
        _check_destination(out, path, args.force)
    with contextlib.redirect_stdout(sys.stderr):
        text, name = _generate(args, path, func_name)
    if out is None:
        output.write_stdout(text)
    else:
        try:
            output.write_atomically(out, text, args.force)
        except FileExistsError:
            raise CLIError(f"{out} already exists; use --force to overwrite it"
                           ) from None
        except OSError as exc:
            raise CLIError(f"cannot write {out}: {exc.strerror or exc}") from None
        _say(f"wrote {name} to {out}")
    return EXIT_OK


def _check_destination(out, path, force):
    """Refuse an -o that is a directory, the input file itself (even with
    --force: that would destroy the user's code), or an existing file
    without --force."""
    if os.path.isdir(out):
        raise CLIError(f"{out} is a directory; give a file name to -o")
    if _same_file(out, path):
        raise CLIError(f"-o {out} is the input file; the generated module must "
                       "go to another file", EXIT_USAGE)
    if os.path.lexists(out) and not force:
        raise CLIError(f"{out} already exists; use --force to overwrite it")


def _same_file(a, b):
    """Whether paths `a` and `b` name one file (through links too)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


def _generate(args, path, func_name):
    """The module text and the generated function's name."""
    module = _load_module(path)
    try:
        func = _find_function(module, path, func_name)
        params = _positional_params(func, func_name)
        wrt = _parse_wrt(args.wrt, params, func_name, _keyword_only(func))
        if args.order < 1 or (args.order > 1 and args.mode != "reverse"):
            raise CLIError("--order must be 1, or more in reverse mode", EXIT_USAGE)
        from tangent_ad import api  # late: keeps --help and usage errors fast
        previous, generated = func, api.autodiff(func, mode=args.mode, wrt=wrt,
                                                 optimized=not args.no_optimize)
        if getattr(generated, "__tangent_ad_per_call__", False):  # variadic.at_call
            raise CLIError(f"{func_name} takes *args or keyword-only parameters, which are "
                           "not supported in a derivative written for every call: list its "
                           "parameters explicitly, or differentiate it from Python "
                           "(tangent_ad.grad), call by call")
        if getattr(generated, "__tangent_ad__", None) is None:  # api.by_classes
            raise CLIError(f"{func_name} uses methods or properties of its arguments, "
                           "which depend on their classes: differentiate it from "
                           "Python (tangent_ad.grad), where a call gives them")
        for _ in range(args.order - 1):  # the derivative of the derivative
            previous, generated = generated, api.autodiff(
                generated, wrt=wrt, optimized=not args.no_optimize)
        text = _module_text(generated, _importable_modules(module, path), args.compile)
        if args.check:
            _check(module, path, func_name, previous, generated, params, wrt)
            if args.compile:
                _check_compiled(text, module, path, func_name, generated, params)
    finally:
        sys.modules.pop(module.__name__, None)
    return text, generated.__name__


def _say(message):
    print(f"{PROG}: {message}", file=sys.stderr)


def _split_target(target):
    """``'dir/model.py:loss'`` -> ``('dir/model.py', 'loss')`` (last colon)."""
    path, sep, name = target.rpartition(":")
    if not (sep and path and name.isidentifier()):
        raise CLIError(f"expected FILE.py:FUNC, got {target!r}", EXIT_USAGE)
    return path, name


def _load_module(path):
    """Import ``path`` under a fresh module name, with its directory on sys.path.

    The directory stays on sys.path until ``main`` returns, so sibling imports
    work both while loading and when ``--check`` runs the function.
    """
    if not os.path.exists(path):
        raise CLIError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CLIError(f"{path} is a directory, not a Python file")
    stem = os.path.splitext(os.path.basename(path))[0]
    safe = "".join(c if c.isalnum() else "_" for c in stem)
    name = f"_tangent_ad_cli_{next(_module_ids)}_{safe}"
    loader = machinery.SourceFileLoader(name, path)
    spec = util.spec_from_file_location(name, path, loader=loader)
    module = util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.modules[name] = module
    try:
        loader.exec_module(module)
    except SyntaxError as exc:  # IndentationError and TabError too
        sys.modules.pop(name, None)
        raise CLIError(_syntax_message(exc, path)) from None
    except TangentADError:  # e.g. a tad.grad(...) at import time: keep its text
        sys.modules.pop(name, None)
        raise
    except (Exception, SystemExit) as exc:  # a stray sys.exit() included
        sys.modules.pop(name, None)
        raise CLIError(f"cannot load {path}: {_describe(exc, path)}") from None
    return module


def _syntax_message(exc, path):
    where = exc.filename or path
    if exc.lineno:
        where += f":{exc.lineno}"
        if exc.offset:
            where += f":{exc.offset}"
    text = (exc.text or "").strip()
    return f"{where}: {exc.msg}" + (f": {text}" if text else "")


def _describe(exc, path):
    """``'ValueError: msg (at model.py:7)'``, locating the deepest user frame.

    The user's frames are those in the loaded file's directory: the line to
    look at is there, not inside numpy or importlib.
    """
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    folder = os.path.dirname(os.path.abspath(path)) + os.sep
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if os.path.abspath(frame.filename).startswith(folder):
            return f"{text} (at {frame.filename}:{frame.lineno})"
    return text


def _find_function(module, path, name):
    func = getattr(module, name, None)
    if func is None:
        defined = sorted(
            key for key, value in vars(module).items()
            if callable(value) and getattr(value, "__module__", None)
            == module.__name__ and not key.startswith("_"))
        listing = ", ".join(defined) if defined else "none"
        raise CLIError(f"{path} has no function {name!r} "
                       f"(functions defined there: {listing})")
    if not callable(func):
        raise CLIError(f"{path}: {name!r} is a {type(func).__name__}, "
                       "not a function")
    return func


def _positional_params(func, name):
    """Names of the parameters that can be passed by position, in order."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"cannot read the parameters of {name}: {exc}") from None
    kinds = (inspect.Parameter.POSITIONAL_ONLY,
             inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in signature.parameters.values() if p.kind in kinds]


def _keyword_only(func):
    """Names of `func`'s keyword-only parameters (none if unreadable)."""
    try:
        values = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in values if p.kind is inspect.Parameter.KEYWORD_ONLY)


def _parse_wrt(spec, params, func_name, keyword_only=()):
    """``'W,b'`` -> ``('W', 'b')``, each checked against ``params``."""
    if spec is None:
        if not params:
            raise CLIError(f"{func_name} has no positional parameters: "
                           "there is nothing to differentiate")
        return (params[0],)
    names = tuple(part.strip() for part in spec.split(","))
    listing = ", ".join(params) if params else "(none)"
    for name in names:
        if not name:
            raise CLIError(f"--wrt {spec!r} has an empty name", EXIT_USAGE)
        if name not in params and name in keyword_only:
            raise CLIError(f"--wrt: {name!r} is a keyword-only parameter of "
                           f"{func_name}, and keyword-only parameters are not "
                           "supported yet; make it an ordinary positional "
                           "parameter", EXIT_USAGE)
        if name not in params:
            raise CLIError(f"--wrt: {func_name} has no parameter {name!r}; "
                           f"its parameters are: {listing}", EXIT_USAGE)
    if len(set(names)) != len(names):
        raise CLIError(f"--wrt {spec!r} names a parameter twice", EXIT_USAGE)
    return names


def _importable_modules(module, path):
    """``{loaded name: import name}`` for the modules a written file may
    import a global from: FILE itself, under its file name (when that is an
    identifier), and the modules FILE imported from its own directory."""
    folder = os.path.dirname(os.path.abspath(path)) + os.sep
    found = {name: name for name, mod in list(sys.modules.items())
             if "." not in name and os.path.abspath(
                 getattr(mod, "__file__", None) or os.sep).startswith(folder)}
    stem = os.path.splitext(os.path.basename(path))[0]
    found.pop(module.__name__, None)
    if stem.isidentifier() and not keyword.iskeyword(stem):
        found[module.__name__] = stem
    return found


def _module_text(generated, modules, compiled=None):
    """The standalone module's source, refused if it does not even compile."""
    from tangent_ad import standalone
    text = standalone.standalone_module(generated, modules, compiled=compiled is not None)
    if not text.endswith("\n"):
        text += "\n"
    try:
        compile(text, f"<{PROG} output>", "exec")
    except SyntaxError as exc:
        raise InternalError("the generated module does not compile: "
                            f"line {exc.lineno}: {exc.msg}") from None
    return text


def _check(module, path, func_name, previous, generated, params, wrt):
    """Compare ``generated`` with finite differences of ``previous`` (the
    function, or the derivative of one order less); CLIError on a mismatch."""
    from tangent_ad import testing
    args, origin = _example_args(module, path, func_name, params)
    indices = tuple(params.index(name) for name in wrt)
    forward = generated.__tangent_ad__.mode == "forward"
    check = testing.check_jvp if forward else testing.check_grads
    try:
        check(previous, generated, args, wrt=indices)
    except AssertionError as exc:
        raise CLIError(f"check failed: {generated.__name__} disagrees with "
                       f"finite differences on {origin}:\n{exc}") from None
    except TangentADError:
        raise
    except Exception as exc:  # usually the user's function failing on the inputs
        raise CLIError(f"--check could not run on {origin}: "
                       f"{_describe(exc, path)}") from None
    _say(f"check passed: {generated.__name__} matches central finite "
         f"differences on {origin}")


def _check_compiled(text, module, path, func_name, generated, params):
    """Run the written module's compiled derivative (Numba compiles it now)
    and compare it with the Python one on the --check arguments."""
    import numpy as np
    from tangent_ad import testing
    args, origin = _example_args(module, path, func_name, params)
    namespace = {"__name__": f"{PROG}_check"}
    try:
        exec(compile(text, f"<{PROG} output>", "exec"), namespace)
        got = namespace[generated.__name__](*args)
    except Exception as exc:  # noqa: BLE001 - Numba's refusal, said plainly
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise CLIError(f"--check: the compiled module does not run on {origin}: "
                       f"{type(exc).__name__}: {first}") from None
    want = generated(*args)
    for (_, a), (_, b) in zip(testing._leaves(got), testing._leaves(want)):
        if not np.allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12):
            raise CLIError(f"check failed: the compiled {generated.__name__} disagrees "
                           f"with the Python one on {origin}")
    _say(f"check passed: the compiled {generated.__name__} matches the Python one "
         f"on {origin}")


def _example_args(module, path, func_name, params):
    """Arguments for --check and a phrase naming where they came from."""
    maker_name = func_name + EXAMPLE_SUFFIX
    maker = getattr(module, maker_name, None)
    if maker is None:
        import numpy as np
        rng = np.random.default_rng(CHECK_SEED)
        values = rng.uniform(0.5, 1.5, size=len(params))
        return (tuple(np.float64(v) for v in values),
                f"random float64 scalars (seed {CHECK_SEED})")
    try:
        args = maker()
    except Exception as exc:
        raise CLIError(f"{maker_name}() raised {_describe(exc, path)}"
                           ) from None
    if isinstance(args, list):
        args = tuple(args)
    if not isinstance(args, tuple):
        raise CLIError(f"{maker_name}() must return a tuple of arguments for "
                       f"{func_name}, not a {type(args).__name__}")
    return args, f"the arguments from {maker_name}()"
