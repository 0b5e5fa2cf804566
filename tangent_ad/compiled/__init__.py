"""Compiled derivatives: a staged derivative handed to Numba.

``numba_form`` rewrites the specialized tree of a derivative into code
``numba.njit`` compiles (typed saves per site, counted loops, live
globals as parameters); ``helpers`` gives Numba versions of the runtime
helpers that code calls; ``compiler`` runs Numba and turns what it
reports into a `CompileError` naming the user's line. Numba is optional:
nothing here imports it until a derivative asks for ``compile="numba"``.
"""
