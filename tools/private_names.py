"""Rename cross-module private names to public ones (binlogwriter, issue #30 item 3).

A name ``_x`` bound at module level in a module M of ROOT/{binlogwriter,generators,spark_gen,
tests,bench} and referenced from another module — ``from M import _x`` (absolute, relative, or
by a bare name through a test's ``sys.path`` entry), ``M._x`` on a module object, a string
``"pkg.M._x"`` (``mock.patch`` / ``monkeypatch.setattr`` targets), ``setattr(M, "_x", …)`` and
the like — is renamed to ``x`` in M and everywhere it is referenced: its definition and every
use in M (scope-aware: locals, class attributes and ``self._x`` are left alone), ``__all__``
entries, modules re-exporting it by a plain ``from M import _x``, importers, attribute uses,
patch strings, qualified mentions ``pkg.M._x`` in docstrings and comments, and ``pkg.M._x`` /
``M._x`` in the Markdown files (ROOT/*.md, ROOT/docs/). Modules whose
file name starts with ``_`` (``values/_temporal.py``) count like any other: their names
imported elsewhere become public names of that module (the module keeps its name).

A rename is refused (and listed for a human) when ``x`` is a keyword or a builtin, when ``x``
is already bound in M or in a namespace the rename binds it in, when a scope between a
reference and its binding binds ``x`` (the reference would be captured), when M is a package
with a submodule ``x``, when M is star-imported without ``__all__``, or for ``__x`` names.

Usage::

    python tools/private_names.py --check ROOT   # remaining count (from X import _x), refusals
    python tools/private_names.py --plan ROOT    # what --apply would rename, and why not
    python tools/private_names.py --apply ROOT   # rewrite the files in place

``--apply`` then runs ``ruff check --fix --select I`` on the files it rewrote (a renamed name may
sort elsewhere in its import line; ``--ruff PATH`` names the ruff, default the one beside this
Python, else on PATH).

Deterministic (everything sorted) and idempotent (a second ``--apply`` renames nothing). Only
the standard library (ast, tokenize).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import keyword
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

DIRS = ("binlogwriter", "generators", "spark_gen", "tests", "bench")
PRIVATE = re.compile(r"^_[A-Za-z0-9]\w*$")
BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__"}


# ------------------------------------------------------------------------------------ scopes
class Scope:
    def __init__(self, kind: str, parent: Scope | None, node: ast.AST | None) -> None:
        self.kind, self.parent, self.node = kind, parent, node
        self.bindings: dict[str, list[ast.AST]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()

    def bind(self, name: str, node: ast.AST) -> None:
        self.bindings.setdefault(name, []).append(node)

    def module(self) -> Scope:
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def resolve(self, name: str) -> Scope:
        """The scope whose binding ``name`` refers to from here (the module scope for globals,
        builtins and unbound names)."""
        s: Scope | None = self
        first = True
        while s is not None:
            if name in s.globals:
                return s.module()
            if name in s.nonlocals:
                s, first = s.parent, False
                continue
            if name in s.bindings and (first or s.kind != "class"):
                return s
            s, first = s.parent, False
        return self.module()

    def path_to(self, target: Scope) -> list[Scope]:
        """Scopes looked at when resolving a name from here, up to (excluding) ``target``."""
        out, s, first = [], self, True
        while s is not None and s is not target:
            if first or s.kind != "class":
                out.append(s)
            s, first = s.parent, False
        return out


@dataclass
class Site:
    """A place in a file to rewrite: ``length`` characters at (line, byte column)."""

    line: int
    col: int
    old: str
    new: str


@dataclass
class Module:
    path: Path
    rel: str
    name: str
    is_pkg: bool
    source: str
    tree: ast.Module
    top: Scope = field(init=False)
    names: list[tuple[Scope, ast.Name]] = field(default_factory=list)
    defs: list[tuple[Scope, ast.AST, str]] = field(default_factory=list)  # def/class/global names
    imports: list[tuple[Scope, ast.ImportFrom | ast.Import]] = field(default_factory=list)
    attrs: list[tuple[Scope, ast.Attribute]] = field(default_factory=list)
    calls: list[tuple[Scope, ast.Call]] = field(default_factory=list)
    strings: list[ast.Constant] = field(default_factory=list)
    all_strings: list[ast.Constant] = field(default_factory=list)  # __all__ entries at module level
    lines: list[bytes] = field(default_factory=list)


class Walker(ast.NodeVisitor):
    """Builds a module's scopes and collects the places names are bound and used."""

    def __init__(self, mod: Module) -> None:
        self.m = mod
        self.s = Scope("module", None, mod.tree)
        mod.top = self.s

    def visit_Global(self, node: ast.Global) -> None:
        self.s.globals.update(node.names)
        self.m.defs.append((self.s, node, "global"))

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.s.nonlocals.update(node.names)
        self.m.defs.append((self.s, node, "global"))

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self.s.bind(node.id, node)
        self.m.names.append((self.s, node))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        for d in getattr(node, "decorator_list", []):
            self.visit(d)
        a = node.args
        for dflt in [*a.defaults, *[d for d in a.kw_defaults if d is not None]]:
            self.visit(dflt)
        if not isinstance(node, ast.Lambda):
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    self.visit(arg.annotation)
            if node.returns is not None:
                self.visit(node.returns)
            self.s.bind(node.name, node)
            self.m.defs.append((self.s, node, "def"))
        outer = self.s
        self.s = Scope("function", outer, node)
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None:
                self.s.bind(arg.arg, arg)
        body = node.body if isinstance(node.body, list) else [node.body]
        for stmt in body:
            self.visit(stmt)
        self.s = outer

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for d in [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]:
            self.visit(d)
        self.s.bind(node.name, node)
        self.m.defs.append((self.s, node, "class"))
        outer = self.s
        self.s = Scope("class", outer, node)
        for stmt in node.body:
            self.visit(stmt)
        self.s = outer

    def _comprehension(self, node: ast.AST) -> None:
        gens = node.generators  # type: ignore[attr-defined]
        self.visit(gens[0].iter)
        outer = self.s
        self.s = Scope("comprehension", outer, node)
        for i, g in enumerate(gens):
            if i:
                self.visit(g.iter)
            self.visit(g.target)
            for c in g.ifs:
                self.visit(c)
        for part in ("elt", "key", "value"):
            if hasattr(node, part):
                self.visit(getattr(node, part))
        self.s = outer

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.s.bind(a.asname or a.name.split(".")[0], a)
        self.m.imports.append((self.s, node))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            if a.name != "*":
                self.s.bind(a.asname or a.name, a)
        self.m.imports.append((self.s, node))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.s.bind(node.name, node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.m.attrs.append((self.s, node))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.m.calls.append((self.s, node))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.m.strings.append(node)

    def _all_entries(self, targets: list[ast.expr], value: ast.expr | None) -> None:
        if self.s.kind == "module" and value is not None and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            for c in ast.walk(value):
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    self.m.all_strings.append(c)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._all_entries(node.targets, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._all_entries([node.target], node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._all_entries([node.target], node.value)
        self.generic_visit(node)


# ------------------------------------------------------------------------------------ project
class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.mods: dict[str, Module] = {}
        for d in DIRS:
            for p in sorted((root / d).rglob("*.py")):
                rel = p.relative_to(root).as_posix()
                parts = rel[:-3].split("/")
                is_pkg = parts[-1] == "__init__"
                if is_pkg:
                    parts = parts[:-1]
                src = p.read_text(encoding="utf-8")
                m = Module(p, rel, ".".join(parts), is_pkg, src, ast.parse(src))
                m.lines = src.encode("utf-8").splitlines(keepends=True)
                Walker(m).visit(m.tree)
                self.mods[m.name] = m

    def package_of(self, m: Module) -> str:
        return m.name if m.is_pkg else m.name.rpartition(".")[0]

    def resolve_module(self, m: Module, level: int, name: str | None) -> str | None:
        """The project module an import names (None: not one of the project's)."""
        if level:
            base = self.package_of(m).split(".") if self.package_of(m) else []
            base = base[:len(base) - (level - 1)] if level > 1 else base
            full = ".".join([*base, *([name] if name else [])])
            return full if full in self.mods else None
        if name in self.mods:
            return name
        d = m.name.split(".")[:-1]  # the importing file's directory, then its parents (sys.path entries)
        while d:
            cand = ".".join([*d, name])
            if cand in self.mods:
                return cand
            d = d[:-1]
        return None

    def module_binding(self, m: Module, scope: Scope, name: str) -> str | None:
        """The project module a name is bound to in ``scope`` (all its bindings agreeing)."""
        s = scope.resolve(name)
        found = set()
        for b in s.bindings.get(name, []):
            if not isinstance(b, ast.alias):
                return None
            imp = self._import_of(m, b)
            if isinstance(imp, ast.Import):
                target = b.name if b.asname else b.name.split(".")[0]
                found.add(self.resolve_module(m, 0, target))
            elif isinstance(imp, ast.ImportFrom):
                base = self.resolve_module(m, imp.level, imp.module)
                sub = f"{base}.{b.name}" if base is not None else None
                found.add(sub if sub in self.mods else None)
        if len(found) == 1:
            return found.pop()
        return None

    def _import_of(self, m: Module, alias: ast.alias) -> ast.AST | None:
        cache = getattr(m, "_alias_parent", None)
        if cache is None:
            cache = {}
            for _s, imp in m.imports:
                for a in imp.names:
                    cache[id(a)] = imp
            m._alias_parent = cache  # type: ignore[attr-defined]
        return cache.get(id(alias))

    def expr_module(self, m: Module, scope: Scope, e: ast.expr) -> str | None:
        """The project module an expression (``a``, ``a.b.c``) evaluates to, if any."""
        if isinstance(e, ast.Name):
            return self.module_binding(m, scope, e.id)
        if isinstance(e, ast.Attribute):
            base = self.expr_module(m, scope, e.value)
            if base is not None and f"{base}.{e.attr}" in self.mods:
                return f"{base}.{e.attr}"
        return None


# ------------------------------------------------------------------------------------ planning
@dataclass
class Group:
    origin: tuple[str, str]  # (module, _x)
    members: set[str] = field(default_factory=set)  # modules binding it at module level (origin + re-exporters)
    used_from: set[str] = field(default_factory=set)
    refusals: list[str] = field(default_factory=list)
    maybe: list[str] = field(default_factory=list)  # uses not resolved to the module: for a human
    sites: dict[str, list[Site]] = field(default_factory=dict)

    @property
    def new(self) -> str:
        return self.origin[1].lstrip("_")


def plain_reexport(p: Project, m: Module, name: str) -> str | None:
    """The module a module-level binding ``name`` of ``m`` re-exports (a plain ``from N import
    name``, its only binding), else None (``m`` defines it)."""
    bs = m.top.bindings.get(name, [])
    srcs = set()
    for b in bs:
        imp = p._import_of(m, b) if isinstance(b, ast.alias) else None
        if not isinstance(imp, ast.ImportFrom) or b.name != name:  # `import name as name`: a re-export
            return None
        n = p.resolve_module(m, imp.level, imp.module)
        if n is None or f"{n}.{name}" in p.mods:
            return None
        srcs.add(n)
    return srcs.pop() if len(srcs) == 1 else None


def origin_of(p: Project, mod: str, name: str) -> tuple[str, str] | None:
    seen = set()
    while (mod, name) not in seen:
        seen.add((mod, name))
        m = p.mods[mod]
        if name not in m.top.bindings:
            return None
        nxt = plain_reexport(p, m, name)
        if nxt is None:
            return (mod, name)
        mod = nxt
    return None


def from_imports(p: Project, m: Module):
    """``(scope, node, module)`` of each ``from MODULE import ...`` in ``m`` whose module is one of
    the project's (relative levels resolved)."""
    for scope, imp in m.imports:
        if isinstance(imp, ast.ImportFrom):
            n = p.resolve_module(m, imp.level, imp.module)
            if n is not None:
                yield scope, imp, n


def plan(p: Project) -> tuple[dict[tuple[str, str], Group], list[str], int]:
    groups: dict[tuple[str, str], Group] = {}
    unresolved: list[str] = []
    count = 0

    def group(mod: str, name: str) -> Group | None:
        o = origin_of(p, mod, name)
        if o is None:
            return None
        return groups.setdefault(o, Group(o))

    for mname in sorted(p.mods):
        m = p.mods[mname]
        for _scope, imp, n in from_imports(p, m):
            for a in imp.names:
                if not PRIVATE.match(a.name) or f"{n}.{a.name}" in p.mods or n == mname:
                    continue
                count += 1
                g = group(n, a.name)
                if g is None:
                    unresolved.append(f"{m.rel}:{a.lineno}: from {n} import {a.name} (no binding found)")
                else:
                    g.used_from.add(mname)
        for scope, at in m.attrs:
            if PRIVATE.match(at.attr):
                n = p.expr_module(m, scope, at.value)
                if n is not None and n != mname and f"{n}.{at.attr}" not in p.mods:
                    g = group(n, at.attr)
                    if g is not None:
                        g.used_from.add(mname)
        for scope, c in m.calls:
            if len(c.args) >= 2 and isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str) \
                    and PRIVATE.match(c.args[1].value):
                n = p.expr_module(m, scope, c.args[0])
                if n is not None and n != mname:
                    g = group(n, c.args[1].value)
                    if g is not None:
                        g.used_from.add(mname)
        for s in m.strings:
            for n, name in dotted_refs(p, s.value):
                if n != mname:
                    g = group(n, name)
                    if g is not None:
                        g.used_from.add(mname)
    return {k: g for k, g in groups.items() if g.used_from}, unresolved, count


_DOTTED = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")


def dotted_refs(p: Project, text: str) -> list[tuple[str, str]]:
    """(module, _x) for each ``pkg.mod._x`` (longest module prefix) in a text."""
    out = []
    for mt in _DOTTED.finditer(text):
        parts = mt.group(1).split(".")
        for k in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:k])
            if mod in p.mods:
                if PRIVATE.match(parts[k]) and f"{mod}.{parts[k]}" not in p.mods:
                    out.append((mod, parts[k]))
                break
    return out


def collect_sites(p: Project, groups: dict[tuple[str, str], Group]) -> None:
    """Every place each group's name is written, and the refusals."""
    by_member: dict[tuple[str, str], Group] = {}
    for g in groups.values():
        g.members.add(g.origin[0])
    # re-exporters: modules whose module-level binding re-exports a group's name
    for mname in sorted(p.mods):
        m = p.mods[mname]
        for name in m.top.bindings:
            if PRIVATE.match(name):
                o = origin_of(p, mname, name)
                if o in groups:
                    groups[o].members.add(mname)
    for g in groups.values():
        for mem in g.members:
            by_member[(mem, g.origin[1])] = g
    star = star_imported(p)
    by_old: dict[str, list[Group]] = {}
    for g in sorted(groups.values(), key=lambda g: g.origin):
        by_old.setdefault(g.origin[1], []).append(g)
    for g in sorted(groups.values(), key=lambda g: g.origin):
        old, new = g.origin[1], g.new
        if old.startswith("__"):
            g.refusals.append("a double-underscore name")
        if not new.isidentifier() or keyword.iskeyword(new) or new in BUILTINS or new in ("match", "case", "type", "_"):
            g.refusals.append(f"{new!r} is a keyword or a builtin")
        for mem in sorted(g.members):
            mm = p.mods[mem]
            if new in mm.top.bindings:
                g.refusals.append(f"{new!r} already bound in {mm.rel}")
            if mm.is_pkg and f"{mem}.{new}" in p.mods:
                g.refusals.append(f"{mm.rel} has a submodule {new!r}")
            if mem in star and not any(isinstance(t, ast.Name) and t.id == "__all__" for t in ast.walk(mm.tree)):
                g.refusals.append(f"{mm.rel} is star-imported without __all__")

    for mname in sorted(p.mods):
        m = p.mods[mname]
        bind_groups: dict[tuple[int, str], tuple[Group, Scope]] = {}  # bindings renamed in this file

        def rename_binding(scope: Scope, g: Group, where: str,
                           bind_groups: dict[tuple[int, str], tuple[Group, Scope]] = bind_groups) -> None:
            key = (id(scope), g.origin[1])
            if key in bind_groups:
                return
            bind_groups[key] = (g, scope)
            if g.new in scope.bindings:
                g.refusals.append(f"{g.new!r} already bound in {where}"
                                  + ("" if scope.kind == "module" else f" (a {scope.kind} scope)"))

        # the module's own bindings of a member name
        for name in list(m.top.bindings):
            g = by_member.get((mname, name))
            if g is not None:
                rename_binding(m.top, g, m.rel)
        # imports of a group's name
        for scope, imp, n in from_imports(p, m):
            for a in imp.names:
                g = by_member.get((n, a.name))
                if g is None:
                    continue
                add(g, m, Site(a.lineno, a.col_offset, a.name, g.new))
                if a.asname is None:
                    rename_binding(scope, g, m.rel)
        # the `as` names of imports binding a renamed name
        for scope, imp in m.imports:
            for a in imp.names:
                hit = bind_groups.get((id(scope), a.asname)) if a.asname else None
                if hit is not None:
                    add(hit[0], m, Site(a.end_lineno, a.end_col_offset - len(a.asname.encode()), a.asname,
                                        hit[0].new))
        # names resolving to a renamed binding
        for scope, nm in m.names:
            bs = scope.resolve(nm.id)
            hit = bind_groups.get((id(bs), nm.id))
            if hit is not None:
                g, target = hit
                check_capture(scope, target, g, m)
                add(g, m, Site(nm.lineno, nm.col_offset, nm.id, g.new))
        for scope, node, kind in m.defs:
            if kind == "global":
                for name in node.names:  # type: ignore[attr-defined]
                    hit = bind_groups.get((id(m.top), name))
                    if hit is not None:
                        add_token(hit[0], m, node, name)
            else:
                hit = bind_groups.get((id(scope), node.name))  # type: ignore[attr-defined]
                if hit is not None:
                    add_token(hit[0], m, node, node.name)  # type: ignore[attr-defined]
        # attributes and strings
        for scope, at in m.attrs:
            n = p.expr_module(m, scope, at.value)
            g = by_member.get((n, at.attr)) if n is not None else None
            if g is not None:
                add(g, m, Site(at.end_lineno, at.end_col_offset - len(at.attr.encode()), at.attr, g.new))
            elif at.attr in by_old and not (isinstance(at.value, ast.Name) and at.value.id in ("self", "cls")):
                for g in by_old[at.attr]:
                    g.maybe.append(f"{m.rel}:{at.lineno}: {ast.unparse(at)}")
        for scope, c in m.calls:
            if len(c.args) >= 2 and isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str):
                n = p.expr_module(m, scope, c.args[0])
                g = by_member.get((n, c.args[1].value)) if n is not None else None
                if g is not None:
                    string_site(g, m, c.args[1], c.args[1].value, g.new)
                elif c.args[1].value in by_old:
                    for g in by_old[c.args[1].value]:
                        g.maybe.append(f"{m.rel}:{c.lineno}: {ast.unparse(c)[:100]}")
        for s in m.all_strings:
            g = by_member.get((mname, s.value))
            if g is not None:
                string_site(g, m, s, s.value, g.new)
        for s in m.strings:
            for n, name in dotted_refs(p, s.value):
                g = by_member.get((n, name))
                if g is not None:
                    string_site(g, m, s, f"{n}.{name}", f"{n}.{g.new}")
        for tok in comment_tokens(m):
            for n, name in dotted_refs(p, tok.string):
                g = by_member.get((n, name))
                if g is not None:
                    line = m.lines[tok.start[0] - 1]
                    start = len(line.decode("utf-8")[:tok.start[1]].encode())
                    text = tok.string.encode()
                    old = f"{n}.{name}".encode()
                    i = text.find(old)
                    while i >= 0:
                        add(g, m, Site(tok.start[0], start + i + len(n) + 1, name, g.new))
                        i = text.find(old, i + 1)


def check_capture(ref: Scope, target: Scope, g: Group, m: Module) -> None:
    for s in ref.path_to(target):
        if g.new in s.bindings or g.new in s.globals and target.kind != "module":
            g.refusals.append(f"{g.new!r} bound in a scope of {m.rel} that uses {g.origin[1]}")
            return


def add(g: Group, m: Module, site: Site) -> None:
    g.sites.setdefault(m.rel, []).append(site)


def add_token(g: Group, m: Module, node: ast.AST, name: str) -> None:
    """The ``name`` token of a def / class / global statement."""
    first = node.lineno
    last = getattr(node, "end_lineno", first) or first
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        last = node.body[0].lineno
    text = b"".join(m.lines[first - 1:last]).decode("utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string == name:
            line = first + tok.start[0] - 1
            col = len(m.lines[line - 1].decode("utf-8")[:tok.start[1]].encode())
            add(g, m, Site(line, col, name, g.new))
            return
    raise SystemExit(f"{m.rel}:{first}: token {name} not found")


def string_site(g: Group, m: Module, c: ast.Constant, old: str, new: str) -> None:
    """``old`` inside a one-line string literal (a multi-line one: on the line holding it)."""
    ob = old.encode()
    for ln in range(c.lineno, (c.end_lineno or c.lineno) + 1):
        line = m.lines[ln - 1]
        lo = c.col_offset if ln == c.lineno else 0
        hi = c.end_col_offset if ln == c.end_lineno else len(line)
        i = line.find(ob, lo, hi)
        while i >= 0:
            end = i + len(ob)
            if (i == 0 or not (chr(line[i - 1]).isalnum() or line[i - 1] in b"_.")) and \
                    (end >= len(line) or not (chr(line[end]).isalnum() or line[end] == ord("_"))):
                add(g, m, Site(ln, i, old, new))
            i = line.find(ob, i + 1, hi)


def comment_tokens(m: Module) -> list[tokenize.TokenInfo]:
    return [t for t in tokenize.generate_tokens(io.StringIO(m.source).readline) if t.type == tokenize.COMMENT]


def star_imported(p: Project) -> set[str]:
    out = set()
    for m in p.mods.values():
        for _s, imp in m.imports:
            if isinstance(imp, ast.ImportFrom) and any(a.name == "*" for a in imp.names):
                n = p.resolve_module(m, imp.level, imp.module)
                if n is not None:
                    out.add(n)
    return out


# ------------------------------------------------------------------------------------ apply
def apply(p: Project, groups: list[Group]) -> list[str]:
    per_file: dict[str, list[Site]] = {}
    for g in groups:
        for rel, sites in g.sites.items():
            per_file.setdefault(rel, []).extend(sites)
    changed = []
    for rel in sorted(per_file):
        m = next(x for x in p.mods.values() if x.rel == rel)
        lines = list(m.lines)
        seen = set()
        deltas: dict[int, list[tuple[int, int]]] = {}  # line -> (byte column, length change) of its edits
        for s in sorted(per_file[rel], key=lambda s: (s.line, s.col), reverse=True):
            if (s.line, s.col) in seen:
                continue
            seen.add((s.line, s.col))
            b = lines[s.line - 1]
            ob = s.old.encode()
            if b[s.col:s.col + len(ob)] != ob:
                raise SystemExit(f"{rel}:{s.line}:{s.col}: expected {s.old!r}, found {b[s.col:s.col + len(ob)]!r}")
            lines[s.line - 1] = b[:s.col] + s.new.encode() + b[s.col + len(ob):]
            deltas.setdefault(s.line, []).append((s.col, len(s.new.encode()) - len(ob)))
        realign(m, lines, deltas)
        m.path.write_bytes(b"".join(lines))
        changed.append(rel)
    return changed


def visual_indents(m: Module) -> dict[int, tuple[int, int]]:
    """Continuation lines aligned with the bracket that holds them (PEP 8 visual indent):
    line -> (line of the bracket, byte column of the bracket)."""
    out: dict[int, tuple[int, int]] = {}
    stack: list[tuple[int, int]] = []
    for tok in tokenize.generate_tokens(io.StringIO(m.source).readline):
        if tok.type == tokenize.OP and tok.string in "([{":
            line = m.lines[tok.start[0] - 1].decode("utf-8")
            stack.append((tok.start[0], len(line[:tok.start[1]].encode())))
        elif tok.type == tokenize.OP and tok.string in ")]}" and stack:
            stack.pop()
        if stack and tok.start[0] > stack[-1][0] and tok.start[0] not in out and tok.type not in (
                tokenize.NL, tokenize.COMMENT):
            raw = m.lines[tok.start[0] - 1]
            indent = len(raw) - len(raw.lstrip(b" "))
            if tok.start[1] == indent and indent == stack[-1][1] + 1:
                out[tok.start[0]] = stack[-1]
    return out


def realign(m: Module, lines: list[bytes], deltas: dict[int, list[tuple[int, int]]]) -> None:
    """Keep visually indented continuation lines aligned with their bracket when a rename
    before the bracket changed its column."""
    shift: dict[int, int] = {}
    for line, (bline, bcol) in sorted(visual_indents(m).items()):
        d = shift.get(bline, 0) + sum(dd for c, dd in deltas.get(bline, []) if c < bcol)
        if d:
            raw = lines[line - 1]
            indent = len(raw) - len(raw.lstrip(b" "))
            if indent + d >= 0:
                lines[line - 1] = b" " * (indent + d) + raw[indent:]
                shift[line] = d


def rewrite_docs(root: Path, groups: list[Group]) -> list[str]:
    """Markdown files (ROOT/*.md, ROOT/docs/**.md): ``pkg.mod._x`` and ``mod._x`` (the module's
    last name, when only one renamed name is written so) of renamed names."""
    full: dict[str, str] = {}
    short: dict[str, set[str]] = {}
    for g in groups:
        mod, old = g.origin
        full[f"{mod}.{old}"] = f"{mod}.{g.new}"
        short.setdefault(f"{mod.rpartition('.')[2]}.{old}", set()).add(f"{mod.rpartition('.')[2]}.{g.new}")
    table = {**{k: next(iter(v)) for k, v in short.items() if len(v) == 1}, **full}
    pat = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
                     + r")(?!\w)") if table else None
    changed = []
    for f in sorted([*root.glob("*.md"), *(root / "docs").rglob("*.md")]):
        text = f.read_text(encoding="utf-8")
        new = pat.sub(lambda mt: table[mt.group(1)], text) if pat else text
        if new != text:
            f.write_text(new, encoding="utf-8")
            changed.append(f.relative_to(root).as_posix())
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--plan", action="store_true")
    mode.add_argument("--apply", action="store_true")
    ap.add_argument("--ruff", default=None, help="ruff to re-sort the rewritten import lines with "
                    "(default: ruff beside this Python, else on PATH; the project's isort settings)")
    ap.add_argument("root", type=Path)
    a = ap.parse_args(argv)
    p = Project(a.root.resolve())
    groups, unresolved, count = plan(p)
    collect_sites(p, groups)
    ok = [g for g in sorted(groups.values(), key=lambda g: g.origin) if not g.refusals]
    refused = [g for g in sorted(groups.values(), key=lambda g: g.origin) if g.refusals]
    print(f"imports of another module's private name (from X import _x): {count}")
    print(f"names to rename: {len(ok)}; refused: {len(refused)}")
    for g in refused:
        print(f"  refused {g.origin[0]}.{g.origin[1]} -> {g.new}: {'; '.join(sorted(set(g.refusals)))}")
    for u in unresolved:
        print(f"  unresolved {u}")
    maybe = sorted({x for g in ok for x in g.maybe})
    if maybe:
        print(f"uses of a renamed name on an object not resolved to its module (check by hand): {len(maybe)}")
        for x in maybe:
            print(f"  maybe {x}")
    if a.plan:
        for g in ok:
            print(f"  rename {g.origin[0]}.{g.origin[1]} -> {g.new} (used from {len(g.used_from)}; "
                  f"{sum(len(s) for s in g.sites.values())} places in {len(g.sites)} files)")
    if a.apply and ok:
        changed = apply(p, ok)
        docs = rewrite_docs(p.root, ok)
        print(f"rewrote {len(changed)} files, {len(docs)} Markdown files")
        ruff = a.ruff or shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
        if ruff is None:
            print("no ruff found: the renamed names in import lines may be out of order (ruff check --fix --select I)")
        else:  # a renamed name may sort elsewhere in its import line (the files were sorted before)
            subprocess.run([ruff, "check", "--fix", "--select", "I", "--quiet", *changed], cwd=a.root, check=False)
        after = plan(Project(a.root.resolve()))[2]
        print(f"remaining imports of another module's private name: {after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
