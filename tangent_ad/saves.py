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
pairs from here (`pairs`), on the general derivative and on staging's
copies. A derivative differentiated again keeps its sites: the front end
reads the stored tree and normalizing carries them (`carry`), and forward
mode declares the tangent it pushes and pops beside each save with a
site of its own ("tangent"), so the tangents nothing reads go too. Stack
traffic without a site is never dropped.
"""
from dataclasses import dataclass

import gast

from tangent_ad.nodes import SAVE_SITE as ATTRIBUTE
from tangent_ad.nodes import assign, const, is_pop, is_push, pop, push, statements


@dataclass(frozen=True, eq=False)
class Site:
    """One save site: `kind` "value" (the variable `variable`), "branch", or
    "tangent" (what forward mode pushes and pops beside a save of the
    generated code it reads: the tangent of the value, None for a branch)."""

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


def carry(old, new):
    """Declare the site of the statement `old` on the statements of the
    same form among `new`, which a pass wrote in its place (the front end
    normalizing generated code that is differentiated again)."""
    site = site_of(old)
    if site is None:
        return
    for stmt in new:
        if _form(stmt) == _form(old):
            declare(stmt, site)


def _form(stmt):
    """"push", "restore", "replay", "drop" or None, by the statement's shape."""
    if is_push(stmt):
        return "push"
    if isinstance(stmt, gast.Assign) and is_pop(stmt.value):
        return "restore"
    if isinstance(stmt, gast.If) and is_pop(stmt.test):
        return "replay"
    if isinstance(stmt, gast.Expr) and is_pop(stmt.value):
        return "drop"  # a pop whose value nothing reads (a tangent, forward mode)
    return None


def site_of(stmt):
    """The `Site` `stmt` saves to or restores from; None for others."""
    return getattr(stmt, ATTRIBUTE, None)


def is_save(stmt):
    """A declared push (of a value or of a branch decision)."""
    return site_of(stmt) is not None and is_push(stmt)


def pairs(tree):
    """{restore or replay in `tree`: [its pushes in `tree`]}, from the
    declared sites (nested functions included: a pullback's ``back``
    restores what the pullback saved)."""
    pushes, takes = {}, []
    for node in statements(tree):
        site = getattr(node, ATTRIBUTE, None)
        if site is not None:
            if is_push(node):
                pushes.setdefault(site, []).append(node)
            else:
                takes.append((node, site))
    # a take whose pushes are not in `tree` is left out: nothing may drop it
    return {take: pushes[site] for take, site in takes if site in pushes}
