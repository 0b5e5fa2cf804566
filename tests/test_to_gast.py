"""``to_gast.parse`` gives ``gast.parse``'s tree, node for node: the same
classes, fields (in the same order), values and locations, on every .py
file of the repository, a fixed sample of the standard library and
snippets of every kind of syntax."""
import ast
import sys
import sysconfig
import textwrap
from pathlib import Path

import gast
import pytest

from tangent_ad.frontend import to_gast

ROOT = Path(__file__).resolve().parent.parent
REPOSITORY = sorted(p for folder in ("tangent_ad", "templates", "tests", "benchmarks", "examples")
                    for p in (ROOT / folder).rglob("*.py") if ".venv" not in p.parts)
# Every fourth module of Lib/*.py (a fixed sample: the whole takes ~10 s).
STDLIB = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[::4]

SNIPPETS = {
    "arguments": """
        @decorator
        @other.attr(1, key=2)
        def f(a, b: int = 1, /, c=2, *args: "x", d, e=3, f: float, **kw) -> None:
            global g
            def inner(x=lambda y=1, *z, w=2, **v: y):
                nonlocal a
                return x
            return inner
        lam = lambda p, /, q=1, *, r, s=2: (p, q, r, s)
        """,
    "match": """
        match command.split():
            case [action]:
                pass
            case [action, obj, *rest] if obj:
                pass
            case {"x": 1, **others}:
                pass
            case Point(x=0, y=0) | Point(1, 2, z=_) as p:
                pass
            case None | True | -1 | 1 + 2j | "s" | b"b":
                pass
            case (a, *_):
                pass
            case _:
                pass
        """,
    "exceptions": """
        try:
            pass
        except* ValueError as e:
            raise
        except* (TypeError, KeyError):
            pass
        try:
            x = 1
        except ValueError as e:
            raise RuntimeError("no") from e
        except:
            pass
        else:
            y = 2
        finally:
            del x
        """,
    "async": """
        async def g(xs):
            async with a as b, c:
                await b
            async for i in xs:
                yield i
            return [j async for j in xs if await j]
        """,
    "expressions": """
        if (n := len(a)) > 10 and not b or c:
            print(f"{n!r:>{width}} and {n=} {x:.3f} {'nested' + f'{y}'}")
        z = a[1:2, ::3, ..., None] + b[1:] @ c[:-1:2] - (1 + 2j) ** 3.5e-1
        w = {**d, 'k': 1}, {1, 2, *s}, [*l, 3], (*t, 4), b"\\x00bytes", ...
        first, *middle, last = range(10)
        a.b[c], (d, e) = f(*args, key=1, **kw), g
        h += 1; h @= m; h //= 2; h >>= 1; h |= 3
        v = x if y else -z if ~u else +w
        u = 1 < 2 <= 3 != 4 is not None in [] not in ()
        comps = [i for i in r if i for j in i], {k: v for k, v in d}, {s for s in t}, (g for g in h)
        ann: list[int] = []
        (paren): int
        bare: str
        """,
    "statements": """
        import os.path as osp, sys
        from . import sibling
        from ..pkg.mod import (a as b, c)
        from __future__ import annotations
        class C(Base, metaclass=Meta, **extra):
            '''doc'''
            attr: int = 0
            def method(self):
                yield from self.other()
                yield
        with open(p) as f, (yield) as g:
            assert f, "message"
        with (open(p) as f, open(q) as g,):
            pass
        while True:
            break
        else:
            continue
        for i, (j, k) in enumerate(x):
            pass
        else:
            pass
        raise
        """,
}
if sys.version_info >= (3, 12):
    SNIPPETS["type parameters"] = """
        type Alias[T] = list[T]
        def f[T: int, *Ts, **P](x: T) -> T:
            return x
        class C[T](Base):
            pass
        """


def mismatch(ours, theirs, seen=None):
    """Where the two trees differ (classes, field names in order, values,
    locations), or where `ours` holds one node twice (ast shares its ctx
    and operator objects, gast does not), as a path and what differs
    there; None if nowhere."""
    seen = set() if seen is None else seen
    if ours.__class__ is list:
        if theirs.__class__ is not list or len(ours) != len(theirs):
            return f": {ours!r} != {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            found = mismatch(a, b, seen)
            if found is not None:
                return f"[{i}]{found}"
        return None
    if isinstance(ours, ast.AST):
        if type(ours) is not type(theirs):
            return f": {type(ours).__name__} != {type(theirs).__name__}"
        mine, other = ours.__dict__, theirs.__dict__
        if list(mine) != list(other):
            return f": fields {list(mine)} != {list(other)}"
        if id(ours) in seen:
            return f": {type(ours).__name__} shared"
        seen.add(id(ours))
        for key, value in mine.items():
            found = mismatch(value, other[key], seen)
            if found is not None:
                return f".{key}{found}"
        return None
    if type(ours) is not type(theirs) or ours != theirs:
        return f": {ours!r} != {theirs!r}"
    return None


def assert_same_as_gast(text):
    """`text` parsed once, converted by both (``gast.parse`` is
    ``ast_to_gast(ast.parse(text))``)."""
    tree = ast.parse(text)
    found = mismatch(to_gast.convert(tree), gast.ast_to_gast(tree))
    assert found is None, "tree" + found


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippets(name):
    text = textwrap.dedent(SNIPPETS[name])
    assert_same_as_gast(text)
    assert mismatch(to_gast.parse(text), gast.parse(text)) is None
    assert gast.dump(to_gast.parse(text), include_attributes=True) == \
        gast.dump(gast.parse(text), include_attributes=True)


def test_repository_files():
    assert len(REPOSITORY) > 200
    for path in REPOSITORY:
        text = path.read_text(encoding="utf-8")
        try:
            assert_same_as_gast(text)
        except AssertionError as exc:
            raise AssertionError(f"{path.relative_to(ROOT)}: {exc}") from None


def test_standard_library_sample():
    assert len(STDLIB) > 40
    for path in STDLIB:
        try:
            text = path.read_text(encoding="utf-8")
            compile(text, str(path), "exec", ast.PyCF_ONLY_AST)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        try:
            assert_same_as_gast(text)
        except AssertionError as exc:
            raise AssertionError(f"{path}: {exc}") from None


def test_the_ast_tree_is_not_changed():
    tree = ast.parse(textwrap.dedent(SNIPPETS["arguments"] + SNIPPETS["exceptions"]))
    before = ast.dump(tree, include_attributes=True)
    to_gast.convert(tree)
    assert ast.dump(tree, include_attributes=True) == before


def test_what_the_copy_cannot_match_goes_to_gast():
    """Type comments (``ast.parse(..., type_comments=True)``) give
    ``TypeIgnore`` nodes, which gast keeps as ast's: gast converts the tree."""
    text = "def f(a):  # type: (int) -> int\n    return a  # type: ignore[x]\n"
    tree = ast.parse(text, type_comments=True)
    converted = to_gast.convert(tree)
    assert converted.type_ignores and converted.body[0].type_comment == "(int) -> int"
    assert mismatch(converted, gast.ast_to_gast(ast.parse(text, type_comments=True))) is None
    with pytest.raises(to_gast._Unmatched):
        to_gast._copy(tree)
