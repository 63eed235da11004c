"""The change loops' event types have one home (issue 30): ``read/changes.py`` imports them
(``LOOP_EVENTS``) and the export's frame loop (``read/export.py``) takes them from there,
not from its own list of ``binlogwriter.format`` / ``layouts.rows`` imports."""

from __future__ import annotations

import ast
from pathlib import Path

from binlogwriter.format import EventType
from binlogwriter.read import changes

_EXPORT = Path(changes.__file__).with_name("export.py")


def _imports(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.setdefault(node.module, []).extend(a.name for a in node.names)
    return out


def _is_event_types(value: object) -> bool:
    if isinstance(value, EventType):
        return True
    return isinstance(value, frozenset | tuple | set) and bool(value) and all(isinstance(v, EventType) for v in value)


def test_the_export_takes_its_event_types_from_the_change_loops_list() -> None:
    imports = _imports(_EXPORT)
    assert "binlogwriter.format" not in imports, imports.get("binlogwriter.format")
    assert "binlogwriter.layouts.rows" not in imports, imports.get("binlogwriter.layouts.rows")
    taken = [n for n in imports["binlogwriter.read.changes"] if _is_event_types(getattr(changes, n))]
    assert taken, "the export imports no event type from read/changes.py"
    for name in taken:
        assert any(getattr(changes, name) is v for v in changes.LOOP_EVENTS), f"{name} is not in LOOP_EVENTS"
