"""Normalize stage: desugar the function into a small core form.

After this pass the body is a sequence of

* ``name = <one operation>`` where the operation is a constant, a name, a
  binary or unary operator, a comparison or a call whose operands are all
  *atoms* (names, constants, global attributes such as ``np.pi``, or
  tuples of atoms), and
* a final ``return <atom>``.

Nested expressions get temporaries (``t``, ``t2``, ...), ``a += b``
becomes ``a = a + b``, ``x.T`` becomes ``np.transpose(x)``, and a name
assigned twice gets a new version (``x2``) so that every value the
derivative needs is still available. ``ctx.origin`` maps each new
statement to the user's statement it came from.
"""
import gast
import numpy as np

from tangent_ad.errors import UnsupportedSyntaxError
from tangent_ad.naming import Namer

RUNTIME_NAMES = ("np", "bresult")


def run(tree, ctx):
    """Return the core form of the validated, resolved FunctionDef `tree`."""
    reserved = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
    reserved.update(ctx.namespace, RUNTIME_NAMES)
    ctx.namer = ctx.namer or Namer(reserved)
    return _Normalizer(ctx).function(tree)


def name(identifier, store=False):
    """A gast Name node."""
    return gast.Name(id=identifier, ctx=gast.Store() if store else gast.Load(),
                     annotation=None, type_comment=None)


def assign(target, value):
    return gast.Assign(targets=[name(target, store=True)], value=value,
                       type_comment=None)


class _Normalizer:
    def __init__(self, ctx):
        self.ctx = ctx
        self.version = {}      # user name -> the name holding its current value
        self.body = []
        self.origin = None

    def function(self, tree):
        for arg in tree.args.args:
            self.version[arg.id] = arg.id
        for stmt in tree.body:
            self.origin = stmt
            self.statement(stmt)
        tree = gast.FunctionDef(
            name=tree.name, args=tree.args, body=self.body,
            decorator_list=[], returns=None, type_comment=None,
            type_params=[])
        return gast.fix_missing_locations(tree)

    def emit(self, stmt):
        self.body.append(stmt)
        self.ctx.origin[stmt] = self.origin

    def statement(self, stmt):
        if isinstance(stmt, (gast.Assign, gast.AnnAssign)):
            target = stmt.targets[0] if isinstance(stmt, gast.Assign) else stmt.target
            self.assign_to(target.id, stmt.value)
        elif isinstance(stmt, gast.AugAssign):
            value = gast.BinOp(left=name(stmt.target.id), op=stmt.op,
                               right=stmt.value)
            self.ctx.resolved[value] = self.ctx.resolved[stmt]
            self.assign_to(stmt.target.id, value)
        elif isinstance(stmt, gast.Return):
            if self.is_atom(stmt.value):
                value = self.atom(stmt.value)
            else:
                result = self.ctx.namer.fresh("result")
                self.emit(assign(result, self.operation(stmt.value)))
                value = name(result)
            self.emit(gast.Return(value=value))
        # docstrings and `pass` leave no trace in the core form

    def assign_to(self, target, value):
        value = self.operation(value)
        if target in self.version:
            new = self.ctx.namer.fresh(target)
        else:
            new = target
        self.emit(assign(new, value))
        self.version[target] = new

    def is_atom(self, node):
        return isinstance(node, (gast.Name, gast.Constant)) or \
            (isinstance(node, gast.Attribute) and node in self.ctx.resolved)

    def atom(self, node):
        """Reduce `node` to an atom, emitting temporaries as needed."""
        if isinstance(node, gast.Name):
            if node in self.ctx.resolved:  # a global
                return node
            if node.id not in self.version:
                raise UnsupportedSyntaxError(
                    f"'{node.id}' is used before it is assigned",
                    **self.ctx.where(node))
            return name(self.version[node.id])
        if isinstance(node, gast.Constant) or self.is_atom(node):
            return node
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self.atom(e) for e in node.elts],
                              ctx=gast.Load())
        if isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant) \
                and isinstance(node.op, gast.USub):
            return gast.Constant(value=-node.operand.value, kind=None)
        value = self.operation(node)
        temp = self.ctx.namer.fresh("t")
        self.emit(assign(temp, value))
        return name(temp)

    def operation(self, node):
        """Reduce `node` to one operation on atoms."""
        resolved = self.ctx.resolved
        if isinstance(node, gast.BinOp):
            new = gast.BinOp(left=self.atom(node.left), op=node.op,
                             right=self.atom(node.right))
        elif isinstance(node, gast.UnaryOp):
            if isinstance(node.operand, gast.Constant):
                return self.atom(node)
            new = gast.UnaryOp(op=node.op, operand=self.atom(node.operand))
        elif isinstance(node, gast.Call):
            new = gast.Call(
                func=node.func, args=[self.atom(a) for a in node.args],
                keywords=[gast.keyword(arg=k.arg, value=self.atom(k.value))
                          for k in node.keywords])
        elif isinstance(node, gast.Attribute) and node not in resolved:
            # `x.T`: the only attribute of a local value the validator lets through
            new = gast.Call(func=gast.Attribute(value=name("np"), attr="transpose",
                                                ctx=gast.Load()),
                            args=[self.atom(node.value)], keywords=[])
            self.ctx.namespace.setdefault("np", np)
            resolved[new] = np.transpose
            return new
        elif isinstance(node, gast.Compare):
            new = gast.Compare(left=self.atom(node.left), ops=node.ops,
                               comparators=[self.atom(c) for c in node.comparators])
        else:
            return self.atom(node)
        if node in resolved:
            resolved[new] = resolved[node]
        return new
