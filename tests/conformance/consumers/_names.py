"""Column names of a served run for adapters whose consumer gives positions (MINIMAL or NO_LOG
row metadata leaves names out of the Table_map).

Sources, first found: ``binlogwriter.testing.table_definitions(run_dir)`` (truth/schema_history.jsonl,
issue #31 §1), ``run_dir/truth/schema_history.jsonl`` read directly (the matrix writes one for
catalogue cases), the final tables of ``run_dir/manifest.json``. A table redefined midway
(ALTER TABLE) has several definitions: :func:`names` picks the latest with as many columns
as the row has.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["definitions", "names"]

_CACHE: dict[Path, dict[tuple[str, str], list[list[str]]]] = {}


def definitions(run_dir: Path) -> dict[tuple[str, str], list[list[str]]]:
    run_dir = Path(run_dir)
    if run_dir in _CACHE:
        return _CACHE[run_dir]
    rows: list[dict[str, Any]] = []
    try:
        from binlogwriter.testing import table_definitions  # type: ignore[attr-defined]

        rows = list(table_definitions(run_dir))
    except (ImportError, OSError, ValueError, KeyError):
        rows = []
    hist = run_dir / "truth" / "schema_history.jsonl"
    if not rows and hist.is_file():
        rows = [json.loads(line) for line in hist.read_text("utf-8").splitlines() if line.strip()]
    if not rows and (run_dir / "manifest.json").is_file():
        m = json.loads((run_dir / "manifest.json").read_text("utf-8"))
        rows = [{"database": t["database"], "table": t["name"], "columns": t["columns"]} for t in m.get("tables", [])]
    out: dict[tuple[str, str], list[list[str]]] = {}
    for r in rows:
        if r.get("columns"):
            out.setdefault((r["database"], r["table"]), []).append(list(r["columns"]))
    _CACHE[run_dir] = out
    return out


def names(run_dir: Path, database: str, table: str, width: int) -> list[str] | None:
    """The column names of ``database.table`` for a row of ``width`` columns, or None."""
    defs = definitions(run_dir).get((database, table), [])
    for cols in reversed(defs):
        if len(cols) == width:
            return cols
    return None


COLS: dict[Path, dict[tuple[str, str], list[list[Any]]]] = {}


def columns(run_dir: Path, database: str, table: str, width: int) -> list[Any] | None:
    """The :class:`binlogwriter.schema.Column` list of ``database.table`` for a row of ``width``
    columns (types, members, fsp: what an adapter needs to turn an ENUM index into its member,
    a bitmask into SET members), or None. From the CREATE TABLE texts of the schema history,
    else the manifest's ``column_types``."""
    from binlogwriter.schema import Table
    from binlogwriter.schema.tables import column_from_info

    run_dir = Path(run_dir)
    if run_dir not in COLS:
        found: dict[tuple[str, str], list[list[Any]]] = {}
        hist = run_dir / "truth" / "schema_history.jsonl"
        manifest = run_dir / "manifest.json"
        if hist.is_file():
            for line in hist.read_text("utf-8").splitlines():
                r = json.loads(line)
                if r.get("create"):
                    t = Table.from_sql(r["create"], database=r["database"])
                    found.setdefault((r["database"], r["table"]), []).append(list(t.columns))
        elif manifest.is_file():
            for t in json.loads(manifest.read_text("utf-8")).get("tables", []):
                found.setdefault((t["database"], t["name"]), []).append(
                    [column_from_info(info) for info in t["column_types"]])
        COLS[run_dir] = found
    for cols in reversed(COLS[run_dir].get((database, table), [])):
        if len(cols) == width:
            return cols
    return None
