"""The one registry of derivative templates, keyed by Python object.

Built-in rules (the modules of ``tangent_ad.templates``) and user rules
(``@tad.adjoint(func)``) live in the same table, so ``np.sum``,
``numpy.sum`` and ``from numpy import sum`` all find the same rule: the key
is the function object itself, never its name.

A *template* is a plain function whose parameters are the names it binds
(``result`` first) and whose body is written in the ``d[x]`` notation. It is
parsed by ``tangent_ad.templating.templates`` and never called.

Functions whose derivative is zero everywhere it exists (``np.sign``,
comparisons, ``np.shape``) are registered as *non-differentiable*: their
results are constants for differentiation.

Functions of complex numbers that are not holomorphic (``np.real``,
``np.abs``, ``np.conj``, ...) are declared *non-holomorphic*. Adjoints
inside a derivative follow JAX's convention (a holomorphic rule multiplies
by f'(z), no conjugate); a gradient that used one of these rules
conjugates its complex results once before returning them, to give
df/dRe z + i df/dIm z (see ``ad/reverse.py``).
"""
import contextlib
import importlib
import sys

from tangent_ad.templating import templates
from tangent_ad.errors import NoDerivativeError
from tangent_ad.live import rules_changed

_BUILTIN_MODULES = (
    "tangent_ad.templates.syntax",
    "tangent_ad.templates.numpy_elementwise",
    "tangent_ad.templates.numpy_reverse",
    "tangent_ad.templates.numpy_reductions",
    "tangent_ad.templates.numpy_shape",
    "tangent_ad.templates.numpy_linalg",
    "tangent_ad.templates.numpy_fft",
    "tangent_ad.templates.numpy_arrays",
    "tangent_ad.templates.builtins",
    "tangent_ad.templates.syntax_forward",
    "tangent_ad.templates.numpy_forward",
    "tangent_ad.templates.numpy_reductions_forward",
    "tangent_ad.templates.numpy_shape_forward",
    "tangent_ad.templates.numpy_linalg_forward",
    "tangent_ad.templates.numpy_fft_forward",
    "tangent_ad.templates.numpy_arrays_forward",
    "tangent_ad.templates.builtins_forward",
    "tangent_ad.templates.runtime_forward",
    "tangent_ad.templates.runtime_linalg_forward",
    "tangent_ad.templates.function_values",
)

# The rules of a SciPy module are loaded once that module is imported (by
# the user, or by anything else): a function of it can only reach a
# transformation after that, and importing scipy.stats alone takes most
# of a second that a NumPy-only program should not pay.
_SCIPY_MODULES = {
    "scipy.special": ("tangent_ad.templates.scipy_elementwise",
                      "tangent_ad.templates.scipy_special",
                      "tangent_ad.templates.scipy_special_forward"),
    "scipy.stats": ("tangent_ad.templates.scipy_stats",
                    "tangent_ad.templates.scipy_stats_multivariate"),
    "scipy.linalg": ("tangent_ad.templates.scipy_linalg",
                     "tangent_ad.templates.scipy_linalg_forward"),
    "scipy.signal": ("tangent_ad.templates.scipy_signal",
                     "tangent_ad.templates.scipy_signal_forward"),
    "scipy.integrate": ("tangent_ad.templates.scipy_integrate",),
}


class Registry:
    """Derivative templates by mode ("reverse", "forward") and function."""

    def __init__(self):
        self._rules = {"reverse": {}, "forward": {}}
        self._zero = set()
        self._structured = set()
        self._broadcasting = set()
        self._providers = []
        self._derived_rules = {}  # func -> template, from the providers
        self._nonholomorphic = set()
        self._refused = {}  # func -> parameters it has no derivative in
        self._loaded = False
        self._pending = dict(_SCIPY_MODULES)  # SciPy module -> rule modules
        self._modules_seen = 0  # len(sys.modules) when _pending was last looked at
        self._loading = False  # True while built-in rule modules register
        self._user_keys = set()  # functions a user registered a rule for
        self._unchecked = {}  # built-in template -> (func, mode), checked on lookup

    def _ensure_loaded(self, everything=False):
        """Import the built-in rule modules: NumPy's and Python's at the
        first use, SciPy's once their module is imported (all of them with
        `everything`: coverage pages and tests)."""
        if not self._loaded:
            self._loaded = True
            self._import(_BUILTIN_MODULES)
        if self._pending and (everything or len(sys.modules) != self._modules_seen):
            self._modules_seen = len(sys.modules)
            for module in [m for m in self._pending if everything or m in sys.modules]:
                names = self._pending.pop(module, ())  # (a rule module may load another)
                self._import(names)
            self._modules_seen = len(sys.modules)

    def _import(self, names):
        loading, self._loading = self._loading, True
        try:
            for name in names:
                importlib.import_module(name)
        finally:
            self._loading = loading

    def register(self, mode, func, template):
        """Make `template` the `mode` derivative rule of `func`.

        The built-in rules are loaded first, so a rule registered before
        the first transformation is not replaced by a built-in one: the
        latest registration wins, and a user's comes after the built-ins.
        """
        self._ensure_loaded()
        key = _key(func)
        if self._loading and key in self._user_keys:
            return  # a user's rule, registered before these built-ins loaded
        if not self._loading:
            self._user_keys.add(key)
        self._rules[mode][key] = template
        rules_changed()

    def add_provider(self, provider):
        """`provider(func)` returns a reverse template for a function no
        module registers a rule for (a rule derived on demand, such as the
        one of a generated gradient), or None."""
        self._providers.append(provider)

    def _derived(self, mode, func):
        """Ask the providers for `func`'s reverse rule; remember the answer
        (apart from the registered rules: `functions` does not list it)."""
        if mode != "reverse" or not hasattr(func, "__tangent_ad__"):
            return None
        if func not in self._derived_rules:
            self._derived_rules[func] = next(
                (t for t in (p(func) for p in self._providers) if t is not None), None)
        return self._derived_rules[func]

    def register_structured(self, *funcs):
        """Declare functions that take or return lists or tuples of arrays."""
        self._structured.update(funcs)

    def is_structured(self, func):
        self._ensure_loaded()
        try:
            return func in self._structured
        except TypeError:
            return False

    def register_broadcasting(self, *funcs):
        """Declare functions that broadcast their arguments together."""
        self._broadcasting.update(funcs)

    def is_broadcasting(self, func):
        self._ensure_loaded()
        try:
            return func in self._broadcasting
        except TypeError:
            return False

    def register_nonholomorphic(self, *funcs):
        """Declare functions of a complex argument that are not holomorphic."""
        self._ensure_loaded()
        self._nonholomorphic.update(_key(func) for func in funcs)
        rules_changed()

    def is_nonholomorphic(self, func):
        """Declared so, or a generated derivative whose unit used such a
        rule (its derived rule, ``second_order.py``, is not holomorphic)."""
        if getattr(getattr(func, "__tangent_ad__", None), "nonholomorphic", False):
            return True
        self._ensure_loaded()
        try:
            return _key(func) in self._nonholomorphic
        except TypeError:
            return False

    def register_refused_arguments(self, func, params):
        """Declare parameters of `func` its rules cannot differentiate in
        (no closed form): a call with an active value there is refused."""
        self._refused[_key(func)] = tuple(params)

    def refused_arguments(self, func):
        self._ensure_loaded()
        try:
            return self._refused.get(_key(func), ())
        except TypeError:
            return ()

    def register_zero(self, *funcs):
        """Declare that each of `funcs` has a zero derivative."""
        self._ensure_loaded()
        for func in funcs:
            self._zero.add(_key(func))
        rules_changed()

    def is_zero(self, func):
        self._ensure_loaded()
        return _key(func) in self._zero

    def has(self, mode, func):
        self._ensure_loaded()
        try:
            if _key(func) in self._rules[mode] or _key(func) in self._zero:
                return True
        except TypeError:
            return False
        return self._derived(mode, func) is not None

    def lookup(self, mode, func, *, where=None):
        """The template for `func`, or NoDerivativeError naming it.

        `where` is a dict of location keywords (filename, lineno, ...)
        forwarded to the error.
        """
        self._ensure_loaded()
        try:
            template = self._rules[mode][_key(func)]
        except (KeyError, TypeError):
            derived = self._derived(mode, func)
            if derived is not None:
                return derived
            name = getattr(func, "__qualname__", None) or repr(func)
            module = getattr(func, "__module__", None)
            full = f"{module}.{name}" if module else name
            raise NoDerivativeError(
                f"no {mode}-mode derivative is registered for {full}",
                **(where or {})) from None
        if template in self._unchecked:
            templates.check(template, *self._unchecked.pop(template))
        return template

    def check_all(self):
        """Check every built-in template not yet checked (the test suite
        calls this; a transformation checks each one it uses)."""
        self._ensure_loaded(everything=True)
        for template, (func, mode) in list(self._unchecked.items()):
            templates.check(template, func, mode)
            del self._unchecked[template]

    def functions(self, mode):
        """Every function with a `mode` rule (for coverage tests and docs)."""
        self._ensure_loaded(everything=True)
        return list(self._rules[mode])

    def zero_functions(self):
        self._ensure_loaded(everything=True)
        return list(self._zero)

    @contextlib.contextmanager
    def scoped(self):
        """Undo every registration made inside the `with` block (for tests)."""
        self._ensure_loaded(everything=True)
        saved = ({m: dict(r) for m, r in self._rules.items()}, set(self._zero),
                 set(self._nonholomorphic))
        try:
            yield self
        finally:
            self._rules, self._zero, self._nonholomorphic = saved
            rules_changed()


def _key(func):
    """NumPy ufuncs and builtins are hashable; bound methods compare by
    their function, so key by the object itself."""
    return func


REGISTRY = Registry()


def adjoint(func):
    """Decorator: register the decorated template as `func`'s reverse rule.

    The template is checked now: a malformed one raises TemplateError.

    >>> def cube(x):
    ...     return x * x * x
    >>> @adjoint(cube)
    ... def _(result, x):
    ...     d[x] = d[result] * 3 * x * x
    """
    def decorate(template):
        REGISTRY.register("reverse", func, _checked(template, func, "reverse"))
        return template
    return decorate


def tangent(func):
    """Decorator: register the decorated template as `func`'s forward rule
    (``d[result] = ...`` in terms of the arguments' tangents ``d[x]``)."""
    def decorate(template):
        REGISTRY.register("forward", func, _checked(template, func, "forward"))
        return template
    return decorate


def _checked(template, func, mode):
    """`template`, checked now when a user registers it; a built-in one is
    checked when a transformation first looks it up (the test suite
    checks them all), so that loading the built-in rules stays fast."""
    if REGISTRY._loading:
        REGISTRY._unchecked[template] = (func, mode)
    else:
        templates.check(template, func, mode)
    return template


def zero_derivative(*funcs):
    """Declare functions whose derivative is zero (or nowhere defined)."""
    REGISTRY.register_zero(*funcs)


def nonholomorphic(*funcs):
    """Declare functions whose reverse rules are not holomorphic in a
    complex argument (``np.real``, ``np.abs``, ``np.vdot`` in its first
    argument): their rules are written in JAX's convention, where the
    adjoint of z pairs with a change dz as Re(adjoint * dz), and a gradient
    that uses them conjugates its complex results before returning them.

    >>> def squared_modulus(z):
    ...     return z.real ** 2 + z.imag ** 2
    >>> @adjoint(squared_modulus)
    ... def _(result, z):
    ...     d[z] = d[result] * 2 * np.conj(z)
    >>> nonholomorphic(squared_modulus)
    """
    REGISTRY.register_nonholomorphic(*funcs)


def structured(*funcs):
    """Declare functions whose arguments or results are lists or tuples of
    arrays (``np.concatenate``, ``np.split``): adjoints of those values add
    up entry by entry."""
    REGISTRY.register_structured(*funcs)


def broadcasting(*funcs):
    """Declare functions that broadcast their arguments against each other
    (elementwise operators, binary ufuncs, ``np.where``, ``np.clip``).

    A forward rule leaves out the term of an argument that has no tangent;
    for these functions the remaining terms may then have a smaller shape
    than the result, and forward mode broadcasts them to it unless the
    shapes provably agree.
    """
    REGISTRY.register_broadcasting(*funcs)
