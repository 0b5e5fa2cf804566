"""autograd.misc: ``flatten`` (plain NumPy, differentiated by tangent_ad like
any user code) and the optimizers. autograd's tracing ``const_graph`` has no
counterpart in a source transformer."""
from autograd.misc.flatten import flatten


def const_graph(fun, *args, **kwargs):
    raise NotImplementedError("autograd.misc.const_graph: not in the tangent_ad shim")
