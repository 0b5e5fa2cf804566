"""Tests of autograd's own machinery, which a stand-in built on tangent_ad
cannot run and should not pretend to: pytest node id (or file) -> reason."""

_PRIMITIVE = "defines a rule with autograd's primitive/defvjp (Python callables run by its tracer)"
_DEPRECATED = "autograd's deprecated primitive API (defgrad/defvjp methods, quick_grad_check)"
_FLATTEN = "autograd.misc.flatten, autograd's own pytree-to-vector utility"

NOT_APPLICABLE = {
    "test_vspaces.py": "autograd's VSpace objects",
    "test_tests.py::test_check_vjp_1st_order_fail": _PRIMITIVE,
    "test_tests.py::test_check_vjp_2nd_order_fail": _PRIMITIVE,
    "test_logic.py::test_no_vjp_def": _PRIMITIVE,
    "test_logic.py::test_no_jvp_def": _PRIMITIVE,
    "test_logic.py::test_unimplemented_falseyness": "removes a rule from autograd's primitive_vjps table",
    "test_misc.py::test_const_graph": "autograd.misc.const_graph caches autograd's traced graph",
    "test_misc.py::test_const_graph_args": "autograd.misc.const_graph caches autograd's traced graph",
    "test_misc.py::test_flatten": _FLATTEN,
    "test_misc.py::test_flatten_empty": _FLATTEN,
    "test_misc.py::test_flatten_dict": _FLATTEN,
    "test_misc.py::test_flatten_nodes_in_containers": _FLATTEN,
    "test_misc.py::test_flatten_complex": _FLATTEN,
    "test_wrappers.py::test_deprecated_defgrad_wrapper": _DEPRECATED,
    "test_wrappers.py::test_deprecated_defvjp_wrapper": _DEPRECATED,
    "test_wrappers.py::test_deprecated_defvjp_is_zero_wrapper": _DEPRECATED,
    "test_wrappers.py::test_deprecated_quick_grad_check_wrapper": _DEPRECATED,
    "test_wrappers.py::test_wrapped_name_and_docs": "the names and docstrings of autograd's wrappers",
    "test_wrappers.py::test_custom_where_dtypes": "autograd's own np.where wrapper (no derivative taken)",
    "test_wrappers.py::test_custom_where": "autograd's own np.where wrapper (no derivative taken)",
    "test_numpy.py::test_make_diagonal": "autograd.numpy.make_diagonal is autograd's own function, not NumPy's",
    "test_numpy.py::test_diagonal": "calls autograd.numpy.make_diagonal, autograd's own function",
    "test_linalg.py::test_pinv":
        "calls autograd.numpy.linalg._dot and .T, autograd's own helpers, which NumPy does not have",
    "test_numpy.py::test_scalar_array_box_attributes":
        "asserts that a float argument has .shape, .ndim, .size and .dtype (autograd's ArrayBox); "
        "the function itself raises AttributeError when called with a float",
    "test_fft.py::test_rfftn_odd_not_implemented":
        "expects autograd's NotImplementedError for rfftn of odd lengths, which tangent_ad differentiates",
    "test_graphs.py::test_assignment_raises_error":
        "expects autograd's refusal of index assignment, which tangent_ad differentiates",
}
