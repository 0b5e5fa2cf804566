"""The template language: derivative rules written as Python source.

``templates`` parses a rule once, checks it at registration, binds a call
to its parameters and expands ``d[x]`` for reverse mode;
``forward_templates`` expands forward rules with symbolic zeros; ``table``
writes the templates of elementwise functions from one derivative each.
This package sits below the registry (which checks rules with it) and
below ``tangent_ad.ad`` (which expands them): it imports neither.
"""
