"""autograd.wrap_util.unary_to_nary: a transform of a function of one
argument becomes a transform of argument `argnum` of an nary function."""
from functools import wraps

from autograd._convert import unary


def unary_to_nary(unary_operator):
    @wraps(unary_operator)
    def nary_operator(fun, argnum=0, *nary_op_args, **nary_op_kwargs):
        @wraps(fun)
        def nary_f(*args, **kwargs):
            if not isinstance(argnum, int):
                raise NotImplementedError("unary_to_nary with a tuple argnum: not in the tangent_ad shim")
            return unary_operator(unary(fun, args, kwargs, argnum), args[argnum],
                                  *nary_op_args, **nary_op_kwargs)
        return nary_f
    return nary_operator
