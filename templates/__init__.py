"""Derivative rules written as Python source, in the ``d[x]`` notation.

Each module registers templates for one family of functions. A template's
parameters are the names it binds (``result`` first, then the arguments of
the call, with the callee's own parameter names and defaults); ``d[x]``
stands for the adjoint of ``x``. Templates are parsed, never run.
"""
