"""Run one example program of autograd, unchanged, and record its gradients.

    python examples_runner.py EXAMPLE.py RECORD.json [--k 3] [--cap 12] [--time 0.5]

Run by autograd_examples.py twice per example, in a subprocess each: once
in a virtual environment with the real autograd, once with the shim
(autograd_shim/, on tangent_ad) first on ``sys.path``. Both runs get the
matplotlib stand-in (examples_stubs/) and this hook:

- every gradient transform of the ``autograd`` namespace (``grad``,
  ``value_and_grad``, ``elementwise_grad``, ``jacobian``, ``hessian``,
  ``make_vjp``...) is wrapped, before the example is executed as
  ``__main__``, so that the functions it returns record the outputs of
  their calls (the optimizers of ``autograd.misc.optimizers`` call those
  functions, so their gradients are recorded too);
- the example is stopped (`Stop`, a BaseException the example cannot
  catch) when one gradient function is called for the ``k+1``-th time or
  when ``cap`` outputs are recorded: no example trains for minutes;
- a download (``urllib.request.urlretrieve``) stops the example as
  "needs data";
- ``np.random.seed(0)`` before the example runs (most seed their own
  RandomState), an unseeded ``np.random.RandomState()`` is seeded with 0
  (convnet makes one), and the working directory is a fresh temporary one
  (some examples write or delete files there).

With ``--time S``, the ``k``-th call of each gradient function is also
timed: the function is called again with the same arguments for about S
seconds (at least 5 calls), and the median seconds per call is recorded
under ``timings`` (a staged derivative runs its specialized copy by then:
it is written at the second call with the same argument kinds).

The record (JSON) holds the outputs, in call order, keyed by the transform
and the order in which the gradient function was made, and how the run
ended: finished, stopped, needs data, or error (the exception's type, its
message, and whether it is a TangentADError).
"""
import argparse
import functools
import json
import os
import runpy
import sys
import time
import traceback

import numpy as np

TRANSFORMS = ("grad", "value_and_grad", "elementwise_grad", "jacobian", "hessian",
              "hessian_tensor_product", "hessian_vector_product", "tensor_jacobian_product",
              "vector_jacobian_product", "make_vjp", "make_jvp", "make_hvp", "make_ggnvp",
              "grad_and_aux", "deriv", "holomorphic_grad", "grad_named", "multigrad_dict")


class Stop(BaseException):
    """Raised in the example to end it once enough gradients are recorded."""


class NeedsData(BaseException):
    """Raised in the example when it tries to download data."""


def encode(value):
    """`value` (numbers, arrays, tuples, lists, dicts) as JSON data.

    >>> encode((1.5, [np.zeros(2)]))["t"]
    'tuple'
    """
    if isinstance(value, (tuple, list)):
        return {"t": type(value).__name__, "v": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"t": "dict", "k": [repr(k) for k in value], "v": [encode(v) for v in value.values()]}
    if value is None or isinstance(value, str):
        return {"t": "const", "v": value}
    if callable(value):
        return {"t": "callable"}
    try:
        array = np.asarray(value)
    except Exception:  # an object the comparison cannot read
        return {"t": "object", "v": type(value).__name__}
    if array.dtype == object:
        return {"t": "object", "v": type(value).__name__}
    flat = array.ravel()
    if np.iscomplexobj(array):
        data = [[float(z.real), float(z.imag)] for z in flat]
    else:
        data = [float(x) for x in flat.astype(np.float64)]
    return {"t": "array", "dtype": array.dtype.str, "shape": list(array.shape), "v": data}


class Recorder:
    """The outputs of the gradient functions the example makes."""

    def __init__(self, k, cap, seconds=0.0):
        self.k, self.cap, self.seconds = k, cap, seconds
        self.records, self.made, self.calls, self.depth = [], {}, {}, 0
        self.timings = []  # {"key", "seconds_per_call", "calls"}, with --time

    def transform(self, name, original):
        """`original` (a transform), whose gradient functions record."""
        @functools.wraps(original)
        def wrapped(*args, **kwargs):
            # a recorded gradient function given to a transform is given as
            # it was made: the hook observes, it is not what is differentiated
            args = [getattr(a, "__recorded__", a) for a in args]
            made = original(*args, **kwargs)
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if self.depth or not callable(made) or caller.split(".")[0] == "autograd":
                # (autograd's own uses: flatten is a make_vjp in autograd)
                return made
            count = self.made[name] = self.made.get(name, 0) + 1
            return self.recording(f"{name}#{count}", made)
        return wrapped

    def recording(self, key, function):
        @functools.wraps(function)
        def gradient(*args, **kwargs):
            if self.depth:  # a transform's own calls of transforms
                return function(*args, **kwargs)
            calls = self.calls[key] = self.calls.get(key, 0) + 1
            if calls > self.k or len(self.records) >= self.cap:
                raise Stop(key)
            self.depth += 1
            try:
                out = function(*args, **kwargs)
            finally:
                self.depth -= 1
            self.records.append({"key": key, "call": calls, "value": encode(out)})
            if self.seconds and calls == self.k:
                self.time(key, function, args, kwargs)
            if isinstance(out, tuple) and any(callable(part) for part in out):  # make_vjp, make_hvp
                out = tuple(self.recording(f"{key}.{i}", part) if callable(part) else part
                            for i, part in enumerate(out))
            return out
        gradient.__recorded__ = function
        return gradient

    def time(self, key, function, args, kwargs):
        """Median seconds of one call of `function` with these arguments."""
        times, deadline = [], time.perf_counter() + self.seconds
        self.depth += 1
        try:
            while len(times) < 5 or (time.perf_counter() < deadline and len(times) < 2000):
                start = time.perf_counter()
                function(*args, **kwargs)
                times.append(time.perf_counter() - start)
        finally:
            self.depth -= 1
        times.sort()
        self.timings.append({"key": key, "seconds_per_call": times[len(times) // 2],
                             "calls": len(times)})


def install(recorder):
    """Wrap the transforms of the ``autograd`` package (the real one or the
    shim, whichever is first on sys.path) and stop downloads."""
    import autograd
    for name in TRANSFORMS:
        if hasattr(autograd, name):
            setattr(autograd, name, recorder.transform(name, getattr(autograd, name)))
    import urllib.request

    def urlretrieve(url, *args, **kwargs):
        raise NeedsData(url)
    urllib.request.urlretrieve = urlretrieve
    return autograd


def describe(exc):
    """The exception as JSON data: type, message, where, kind."""
    try:
        from tangent_ad import NoDerivativeError, TangentADError
    except ImportError:
        TangentADError = NoDerivativeError = ()
    frames = traceback.extract_tb(exc.__traceback__)
    return {"type": type(exc).__name__, "message": str(exc),
            "tangent_ad": isinstance(exc, TangentADError) if TangentADError else False,
            "no_derivative": isinstance(exc, NoDerivativeError) if NoDerivativeError else False,
            "where": [f"{f.filename}:{f.lineno} {f.name}" for f in frames[-4:]]}


class _SeededRandomState(np.random.RandomState):
    """``RandomState()`` without a seed draws the same numbers in both runs
    (no ``__dict__``, as NumPy's: not an object with attributes to
    tangent_ad)."""

    __slots__ = ()

    def __init__(self, seed=None):
        super().__init__(0 if seed is None else seed)


def run(example, k, cap, seconds=0.0):
    """Execute `example` as ``__main__``; the record."""
    recorder = Recorder(k, cap, seconds)
    example = os.path.abspath(example)
    sys.path.insert(0, os.path.dirname(example))
    np.random.RandomState = _SeededRandomState  # (before autograd copies it)
    autograd = install(recorder)
    sys.argv = [example]
    np.random.seed(0)
    started = time.time()
    status, error = "finished", None
    try:
        runpy.run_path(example, run_name="__main__")
    except Stop:
        status = "stopped"
    except NeedsData as exc:
        status, error = "needs data", {"type": "NeedsData", "message": f"downloads {exc}"}
    except SystemExit as exc:
        if exc.code not in (None, 0):
            status, error = "error", describe(exc)
    except Exception as exc:
        status, error = "error", describe(exc)
    return {"status": status, "error": error, "records": recorder.records,
            "seconds": round(time.time() - started, 2), "autograd": autograd.__file__,
            "timings": recorder.timings}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("example")
    parser.add_argument("record")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--cap", type=int, default=12)
    parser.add_argument("--time", type=float, default=0.0,
                        help="seconds spent timing the k-th call of each gradient function")
    options = parser.parse_args(argv)
    record = run(options.example, options.k, options.cap, options.time)
    with open(options.record, "w") as handle:
        json.dump(record, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
