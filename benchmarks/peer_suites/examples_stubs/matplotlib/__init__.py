"""A stand-in for matplotlib, for running autograd's example programs
(benchmarks/peer_suites/autograd_examples.py): every attribute is a no-op
object, so that plotting neither fails nor costs time. ``pyplot.imread``
really reads PNG files (fluidsim/ starts from images)."""


class Stub:
    """Callable, indexable, an attribute of itself, a context manager, and
    an empty sequence: whatever plotting code does with it is a no-op."""

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key):
        return self

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return iter(())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __bool__(self):
        return True


STUB = Stub()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return STUB


def use(*args, **kwargs):
    pass


from matplotlib import cm, image, pyplot  # noqa: E402  (after the stub is defined)
