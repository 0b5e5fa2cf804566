"""The save seam: what a reverse-mode derivative keeps for its adjoint sweep.

The primal sweep keeps values on one list, ``stack`` (``ad.saving``): the
old value of a variable an assignment overwrites, and the branch an ``if``
took. The adjoint sweep takes them back in the opposite order. Each such
pair is a save *site*, declared on the statements themselves rather than
recognised by their printed form:

* a value site: the pushes ``stack.append(x)`` before the overwriting
  assignment and the restore ``x = stack.pop()`` after its adjoint;
* a branch site: the pushes ``stack.append(True)`` / ``(False)`` on the
  ways out of the branches of one ``if`` and its replay
  ``if stack.pop():``.

A statement's `Site` rides on it as the attribute ``save_site``, which
``nodes.copy_tree``, ``nodes.clone`` and ``copy.deepcopy`` carry along,
so the facts hold on every copy a later pass makes (call-time staging
rewrites copies of the stored trees). Dead-code elimination reads the
pairs from here (`pairs`), and so does staging; code that was read back
from text (a derivative transformed again) has no sites, and its stack
traffic is kept as it is.
"""
from dataclasses import dataclass

import gast

from tangent_ad.nodes import assign, const, pop, push

ATTRIBUTE = "save_site"


@dataclass(frozen=True, eq=False)
class Site:
    """One save site: `kind` "value" (the variable `variable`) or "branch"."""

    kind: str
    variable: str = None

    def __deepcopy__(self, memo):
        return self  # a copied tree keeps its pairs: the site is the pair's name


def value_site(variable):
    return Site("value", variable)


def branch_site():
    return Site("branch")


def save(value, site):
    """``stack.append(value)``, a push of `site`."""
    return declare(push(value), site)


def restore(variable, site):
    """``variable = stack.pop()``, the restore of the value site `site`."""
    return declare(assign(variable, pop()), site)


def replay(site, body, orelse):
    """``if stack.pop(): body else: orelse``, the replay of the branch site
    `site`."""
    return declare(gast.If(test=pop(), body=body, orelse=orelse), site)


def record(taken, site):
    """``stack.append(True)`` (or False), a branch decision of `site`."""
    return save(const(taken), site)


def declare(stmt, site):
    setattr(stmt, ATTRIBUTE, site)
    return stmt


def site_of(stmt):
    """The `Site` `stmt` saves to or restores from; None for others."""
    return getattr(stmt, ATTRIBUTE, None)


def is_save(stmt):
    """A declared push (of a value or of a branch decision)."""
    return site_of(stmt) is not None and isinstance(stmt, gast.Expr)


def is_restore(stmt):
    """A declared ``x = stack.pop()``."""
    return site_of(stmt) is not None and isinstance(stmt, gast.Assign)


def is_replay(stmt):
    """A declared ``if stack.pop():``."""
    return site_of(stmt) is not None and isinstance(stmt, gast.If)


def pairs(tree):
    """{restore or replay in `tree`: [its pushes in `tree`]}, from the
    declared sites (nested functions included: a pullback's ``back``
    restores what the pullback saved)."""
    pushes, takes = {}, []
    stack = [tree]
    while stack:
        node = stack.pop()
        site = getattr(node, ATTRIBUTE, None)
        if site is not None:
            if isinstance(node, gast.Expr):
                pushes.setdefault(site, []).append(node)
            else:
                takes.append((node, site))
        for field in ("body", "orelse", "handlers", "finalbody"):
            block = getattr(node, field, None)
            if block.__class__ is list:
                stack.extend(block)
    return {take: pushes.get(site, []) for take, site in takes}

