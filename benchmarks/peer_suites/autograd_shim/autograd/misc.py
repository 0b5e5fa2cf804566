"""autograd.misc: its pytree ``flatten`` and tracing ``const_graph`` are
autograd utilities, not in the tangent_ad shim."""


def flatten(value):
    raise NotImplementedError("autograd.misc.flatten: not in the tangent_ad shim")


def const_graph(fun, *args, **kwargs):
    raise NotImplementedError("autograd.misc.const_graph: not in the tangent_ad shim")
