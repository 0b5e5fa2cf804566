"""Calling conventions: autograd's (nary functions, keyword arguments bound
at call time, its complex convention) turned into tangent_ad's.

Everything here uses tangent_ad's public API only (``import tangent_ad as
tad``); nothing reaches into its modules.
"""
import inspect
import itertools
import keyword
import linecache

import numpy as np

import tangent_ad as tad

_COUNTER = itertools.count()
_CLOSED = {}


def argnums(argnum):
    """autograd's `argnum` (an int or a tuple of ints) as a tuple."""
    return tuple(argnum) if isinstance(argnum, (tuple, list)) else (argnum,)


def _fits(fun, nargs):
    """True when `fun` is a Python function with readable source whose
    parameters are exactly `nargs` positional ones (tangent_ad's derivative
    of it then takes the same arguments as autograd's caller gives)."""
    if not inspect.isfunction(fun):  # e.g. NumPy's dispatchers of Python functions
        return False
    try:
        inspect.getsource(fun)
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, OSError, ValueError):
        return False
    plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return len(params) == nargs and all(p.kind in plain for p in params)


def closed(fun, nargs, kwargs):
    """A Python function of `nargs` positional parameters that calls `fun`
    with them and with `kwargs` as constants.

    autograd differentiates ``fun(*args, **kwargs)`` with respect to some
    positional arguments; tangent_ad differentiates a function with
    respect to its parameters. When `fun` already has exactly those
    parameters it is used as it is; otherwise (a NumPy function without
    Python source, keyword arguments, defaults left out) this writes a
    two-line ``def`` that calls it, registered in ``linecache`` so that
    tangent_ad can read its source.
    """
    form = getattr(fun, "tangent_ad_form", None)
    if form is not None and not kwargs:  # a gradient made by the shim, differentiated again
        return form(nargs)
    if not kwargs and _fits(fun, nargs):
        return fun
    try:
        key = (fun, nargs, tuple(sorted((k, _hashable(v)) for k, v in kwargs.items())))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _CLOSED:
        return _CLOSED[key]
    name = getattr(fun, "__name__", "fun")
    if not name.isidentifier() or keyword.iskeyword(name):
        name = "fun"
    params = ", ".join(f"x{i}" for i in range(nargs))
    keywords = "".join(f", {k}=kw_{k}" for k in kwargs)
    sep = ", " if params and keywords else ""
    source = f"def {name}({params}):\n    return target({params}{sep}{keywords.lstrip(', ')})\n"
    filename = f"<autograd shim {next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"target": fun, **{f"kw_{k}": v for k, v in kwargs.items()}}
    exec(compile(source, filename, "exec"), namespace)
    wrapper = namespace[name]
    if key is not None:
        _CLOSED[key] = wrapper
    return wrapper


def readable(name, nargs, body, namespace):
    """A function ``name(x0, ..., x{nargs-1})`` whose body is `body` (in
    terms of those parameters, ``{params}`` standing for them all), with
    `namespace` as its globals and its source in ``linecache``, so that
    tangent_ad can differentiate it (the shim's gradients, differentiated
    again, are such functions: calls of tangent_ad's generated derivatives)."""
    key, values = (name, nargs, body, tuple(namespace)), tuple(namespace.values())
    for known, made in _READABLE.get(key, ()):  # the same function, made before
        if all(a is b for a, b in zip(known, values)):
            return made
    params = ", ".join(f"x{i}" for i in range(nargs))
    source = f"def {name}({params}):\n    return {body.format(params=params)}\n"
    filename = f"<autograd shim {next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(namespace, np=np, conj_leaf=conj_leaf)
    exec(compile(source, filename, "exec"), namespace)
    made = _READABLE.setdefault(key, [])
    made.append((values, namespace[name]))
    del made[:-8]  # (a few per body: values made anew at each call are not kept)
    return namespace[name]


# A gradient that code makes again at each call (``lambda r: grad(f)(r)``)
# is the same function each time, as tangent_ad's own ``grad`` is (its
# cache): a new function object would be a new function value for the
# derivatives of that code, differentiated again at each of their calls.
_READABLE = {}  # (name, nargs, body, names of the namespace) -> [(its values, function)]


def _hashable(value):
    if isinstance(value, np.ndarray):
        return ("array", id(value))
    if isinstance(value, list):
        return ("list", tuple(_hashable(v) for v in value))
    hash(value)
    return value


_CONJUGATES = {}


def conjugates(generated):
    """True when tangent_ad conjugated `generated`'s complex results.

    tangent_ad's adjoints follow autograd's convention (``g * f'(z)`` for
    a holomorphic step) and, for a derivative that went through a
    non-holomorphic rule (``np.real``, ``np.abs``, ``np.conj``...),
    conjugate the complex results once before returning them, through the
    documented runtime helper ``conj_complex`` (docs/numpy-coverage.md,
    "Complex numbers"): its gradient is d/dRe + i d/dIm, autograd's is
    its conjugate. The generated source says which.
    """
    try:
        return _CONJUGATES[generated]
    except (KeyError, TypeError):
        pass
    found = "conj_complex(" in tad.show_source(generated)
    try:
        _CONJUGATES[generated] = found
    except TypeError:
        pass
    return found


def conj_tree(value):
    """The complex conjugate of the complex leaves of `value`."""
    if isinstance(value, (tuple, list)):
        return type(value)(conj_tree(v) for v in value)
    if isinstance(value, dict):
        return {k: conj_tree(v) for k, v in value.items()}
    if np.iscomplexobj(value):
        return np.conj(value)
    return value


def conj_leaf(value):
    """np.conj of an array or number; a container as it is (see
    autograd._in_autograd_convention). Simple enough for tangent_ad to
    differentiate to any order, as a form that calls it is."""
    if isinstance(value, (tuple, list, dict)):
        return value
    return np.conj(value)


def to_autograd(value, generated):
    """A reverse-mode result of `generated` in autograd's convention."""
    return conj_tree(value) if conjugates(generated) else value


def unary(fun, args, kwargs, argnum):
    """``x -> fun(*args with x at argnum, **kwargs)`` as a one-line ``def``
    (the other arguments are constants), so that tangent_ad can read it."""
    names = [f"c{i}" for i in range(len(args))]
    names[argnum] = "x"
    call = ", ".join(names + [f"{k}=kw_{k}" for k in kwargs])
    source = f"def unary_f(x):\n    return target({call})\n"
    filename = f"<autograd shim {next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"target": fun, **{f"c{i}": a for i, a in enumerate(args)},
                 **{f"kw_{k}": v for k, v in kwargs.items()}}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["unary_f"]
