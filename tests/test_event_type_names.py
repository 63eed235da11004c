"""Event types by name (issue 30): no comparison of an event type with a bare integer
(``t == 19``, ``type_code in (30, 31, 32)``, ``data[4] == 15``) in the packages; the readers
use the :class:`binlogwriter.format.EventType` members, bound to module names in
binlogwriter/format.py where a loop runs per event.

The scan looks at comparisons whose one side is a name that holds an event type in this tree
(:data:`EVENT_NAMES`, or the header's type byte ``data[4]``) and whose other side is an int
literal, a module name bound to one (``_GTID = 162``), or a tuple/list/set of them. Names that hold a *column* type in the modules of
:data:`COLUMN_MODULES` (the value codecs and the text / Arrow column builders) are column
type codes (values.md), not event types; ``col.type_code`` is a column's everywhere."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("binlogwriter", "generators", "spark_gen")
EVENT_NAMES = frozenset({"type_code", "etype", "event_type", "typ", "t", "ev_type", "type_byte"})
COLUMN_MODULES = frozenset({
    "binlogwriter/read/arrowcols.py", "binlogwriter/read/arrowfamilies.py", "binlogwriter/read/canonical.py",
    "binlogwriter/read/inline_values.py", "binlogwriter/text/columns.py", "binlogwriter/text/fused.py",
    "binlogwriter/table_map/tlv.py", "binlogwriter/table_map/views.py",
})
"""Modules whose ``t`` / ``type_code`` is a column type (or, layouts/control.py below, a TLV type)."""
ALLOWED = {
    ("binlogwriter/format.py", "1 <= type_code <= len(self.post_header_lengths)"),  # a range, not a type
    ("binlogwriter/layouts/control.py", "t == 1"), ("binlogwriter/layouts/control.py", "t == 2"),  # heartbeat TLV
}


def _ints(node: ast.AST, consts: frozenset[str] = frozenset()) -> bool:
    """An int literal, a module name bound to one (``_GTID = 162``), or a tuple/list/set of them."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return node.id in consts
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_ints(e, consts) for e in node.elts)
    return False


def _int_constants(tree: ast.Module) -> frozenset[str]:
    """The module-level names bound to an int literal (``A = 2``, ``A, B = 162, 2``)."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = zip(target.elts, value.elts, strict=False) if isinstance(target, ast.Tuple) and isinstance(
                value, ast.Tuple) else [(target, value)]
            out.update(t.id for t, v in pairs if isinstance(t, ast.Name) and isinstance(v, ast.Constant)
                       and type(v.value) is int)
    return frozenset(out)


def _event_side(node: ast.AST, column_module: bool) -> bool:
    if isinstance(node, ast.Subscript):  # the header's type byte: data[4], buf[off + 4]
        at = node.slice.right if isinstance(node.slice, ast.BinOp) and isinstance(node.slice.op, ast.Add) else node.slice
        return isinstance(at, ast.Constant) and at.value == 4 and isinstance(node.value, (
            ast.Name, ast.Attribute)) and (node.value.id if isinstance(node.value, ast.Name) else node.value.attr) in (
            "data", "ev", "event", "buf", "head", "header")
    if column_module or node.__class__ is ast.Attribute and not isinstance(node.value, ast.Name):
        return False
    if isinstance(node, ast.Attribute):
        return node.attr in EVENT_NAMES and node.value.id not in ("col", "c", "column")  # type: ignore[attr-defined]
    return isinstance(node, ast.Name) and node.id in EVENT_NAMES


def bare_comparisons(root: Path = ROOT) -> list[tuple[str, int, str]]:
    """(path, line, comparison) of each event-type comparison with an int literal."""
    out = []
    for pkg in PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            rel = f.relative_to(root).as_posix()
            column_module = rel in COLUMN_MODULES or rel.startswith("binlogwriter/values/")
            tree = ast.parse(f.read_text(encoding="utf-8"))
            consts = _int_constants(tree)
            for node in ast.walk(tree):
                if not isinstance(node, ast.Compare):
                    continue
                sides = [node.left, *node.comparators]
                for a, b in zip(sides, sides[1:], strict=False):
                    if (_event_side(a, column_module) and _ints(b, consts)) or (
                            _event_side(b, column_module) and _ints(a, consts)):
                        text = ast.unparse(node)
                        if (rel, text) not in ALLOWED:
                            out.append((rel, node.lineno, text))
    return out


def test_no_bare_event_type_integers() -> None:
    found = bare_comparisons()
    assert not found, "compare event types with EventType names (binlogwriter/format.py):\n" + "\n".join(
        f"{p}:{n}: {t}" for p, n, t in found)


def test_the_scan_finds_bare_integers(tmp_path: Path) -> None:
    """The scan itself: each form it must catch, caught (and a column's type code left alone)."""
    pkg = tmp_path / "binlogwriter"
    pkg.mkdir()
    (pkg / "m.py").write_text("def f(t, ev, data, col, buf, off):\n"
                              "    a = t == 19\n"
                              "    b = ev.type_code in (30, 31, 32)\n"
                              "    c = data[4] == 15\n"
                              "    g = buf[off + 4] == 160\n"
                              "    d = col.type_code == 15\n"
                              "    e = t == TABLE_MAP_EVENT\n"
                              "    h = rec.type_code not in (_GTID, _QUERY) or rec.type_code == _GTID\n"
                              "    i = t == TABLE_MAP_EVENT.value\n"
                              "_GTID, _QUERY = 162, 2\n")
    found = bare_comparisons(tmp_path)
    assert [n for _, n, _ in found] == [2, 3, 4, 5, 8, 8]
