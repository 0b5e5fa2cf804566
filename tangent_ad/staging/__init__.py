"""Call-time specialization: a derivative rewritten for the kinds of the
arguments it is called with (a Python float; an array's shape and dtype).

``dispatch`` wraps a generated function in a dispatcher that writes and
guards the copies; ``kinds`` (with ``kind_values`` and ``bindings``)
infers the kind of every name of a derivative; ``unit`` solves those of
the pullbacks it calls; ``specialize`` rewrites what the kinds make
redundant; ``inline`` and ``accumulate`` finish a copy. The general passes
they run to a fixed point between (``simplify``, ``propagate``, ``dce``)
stay in ``optimize``, which never imports this package.
"""
from tangent_ad.staging.dispatch import source_for, staged, variants  # noqa: E402, F401
