"""Where the Numba form is written, so that Numba's cache can keep its
machine code between runs.

Numba caches a compiled function on disk (``numba.njit(cache=True)``) only
when the function comes from a file. `source_file` writes the text of a
Numba form to ``<cache>/numba/form_<hash>.py``, named by a hash of the text
and of the globals it reads (Numba freezes those into the machine code it
keeps), and returns that path; compiled from there, the form's functions
are cached next to it. A second run of the same program with arguments of
the same types loads the machine code instead of compiling it again.

The cache directory is ``$TANGENT_AD_CACHE`` or ``$XDG_CACHE_HOME/tangent_ad``
(``~/.cache/tangent_ad``); ``TANGENT_AD_CACHE=off`` turns it off. A form
that reads a global whose value has no stable fingerprint (an object, a
closure) is not cached. Whatever comes back from the cache is still
checked on its first call against the interpreted derivative, as every
compiled derivative is (``compiler.checked``).
"""
import hashlib
import os
import pathlib
import sys
import types

import numpy as np

OFF = ("off", "0", "no", "false")


def directory():
    """The directory the forms go to, or None when caching is off."""
    chosen = os.environ.get("TANGENT_AD_CACHE")
    if chosen is not None and chosen.strip().lower() in OFF:
        return None
    try:
        base = pathlib.Path(chosen) if chosen else pathlib.Path(
            os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "tangent_ad"
    except RuntimeError:  # no home directory to find
        return None
    return base / "numba"


def source_file(source, reads):
    """The path of a file holding `source`, written now unless it is there
    already; None when caching is off, the directory cannot be written, or
    a value of `reads` ({global name: value}) has no fingerprint."""
    folder = directory()
    if folder is None:
        return None
    digest = hashlib.sha256(source.encode())
    digest.update(_versions().encode())
    for key in sorted(reads):
        mark = fingerprint(reads[key])
        if mark is None:
            return None
        digest.update(f"\0{key}={mark}".encode())
    path = folder / f"form_{digest.hexdigest()[:24]}.py"
    try:
        if not path.exists():  # written once: Numba's index keys on its time stamp
            folder.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(source)
            os.replace(partial, path)
        elif path.read_text() != source:
            return None
    except OSError:
        return None
    if not os.access(folder, os.W_OK):  # Numba keeps its machine code beside the file
        return None
    return str(path)


def module_namespace(path, namespace):
    """The dict of a module registered in ``sys.modules`` for the form file
    `path`, holding `namespace`: Numba, loading machine code from its cache,
    imports the module its functions came from to find their globals."""
    name = "tangent_ad_numba_" + pathlib.Path(path).stem
    module = sys.modules.get(name)
    if module is None:
        module = types.ModuleType(name)
        sys.modules[name] = module
    module.__dict__.update(namespace)
    module.__dict__.update(__name__=name, __file__=path)
    return module.__dict__


def fingerprint(value):
    """A text that stands for `value` across runs, or None."""
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    if isinstance(value, (bool, int, float, complex, str, type(None))):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, np.ndarray):
        return f"array {value.dtype.str} {value.shape} " + \
            hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
    if isinstance(value, np.generic):
        return f"scalar {value.dtype.str} {value!r}"
    if type(value).__module__.startswith("numba.core.types"):
        return f"numba type {value}"
    if isinstance(value, type) and value.__module__.startswith(("numpy", "numba", "builtins")):
        return f"class {value.__module__}.{value.__qualname__}"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) and \
            not getattr(value, "__closure__", None):
        module = getattr(value, "__module__", None) or ""
        if module.startswith(("numpy", "tangent_ad", "math", "builtins", "scipy")):
            return f"function {module}.{getattr(value, '__qualname__', value.__name__)}"
    return None


_VERSIONS = []


def _versions():
    """NumPy's and Numba's versions and the text of the Numba helpers: a
    cached kernel was compiled with these."""
    if not _VERSIONS:
        import numba
        helpers = pathlib.Path(__file__).with_name("helpers.py")
        _VERSIONS.append(f"{np.__version__} {numba.__version__} " +
                         hashlib.sha256(helpers.read_bytes()).hexdigest())
    return _VERSIONS[0]
