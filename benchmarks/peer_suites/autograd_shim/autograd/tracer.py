"""autograd.tracer: tangent_ad does not trace, so no value is ever a Box."""
from autograd.extend import primitive


def isbox(value):
    return False
