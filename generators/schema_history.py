"""``truth/schema_history.jsonl``: every table definition a run used (issue #31 §1,
docs/output.md "Table definitions over time").

One JSON line per definition, in the order they apply: ``{"seq", "database", "table",
"create", "columns"}`` — ``seq`` the change model's ``seq`` of the first transaction the
definition applies to (0 for the initial schema), ``create`` the CREATE TABLE text of that
definition (None for a dropped table: the generator drops none), ``columns`` the names in
order. The initial definitions come from the tables' CREATE TABLE text
(``RowsTable.tdef.create_sql``); each ``--ddl-every`` ALTER (generators/run_txn.py
``do_ddl``) adds one line for the table it changed, written by the
:class:`~generators.changes_truth.ChangesRecorder` that numbers the transactions, so both
engines give the same lines (Spark: each partition's, in partition order).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from binlogwriter.values.json_text import jsonl_safe

__all__ = ["definition", "initial_definitions", "write_history", "create_text", "HISTORY_FILE"]

HISTORY_FILE = "schema_history.jsonl"  # under truth/

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _column_list_end(sql: str) -> int:
    """Index of the ``)`` closing a CREATE TABLE's definition list (quotes, backticks and
    comments skipped). ValueError when there is none."""
    depth = 0
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"`":
            i += 1
            while i < n and sql[i] != ch:
                i += 2 if sql[i] == "\\" and ch != "`" else 1
            i += 1
            continue
        if sql.startswith("--", i) or ch == "#":
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("CREATE TABLE without a closing ')' of its definition list")


def create_text(create_sql: str, added: Iterable[tuple[str, str]]) -> str:
    """``create_sql`` (the table's initial CREATE TABLE) with the columns ``added`` by
    ``--ddl-every`` (name, type as in the ALTER) appended to its definition list: MySQL
    orders columns by their definitions, so the result has the columns in the table's
    order (``ADD COLUMN`` appends)."""
    sql = create_sql.strip().rstrip(";").rstrip()
    extra = "".join(f",\n  `{name}` {typedef}" for name, typedef in added)
    if not extra:
        return sql
    end = _column_list_end(sql)
    body = sql[:end].rstrip()
    return body + extra + "\n" + sql[end:]


def definition(rt: Any, seq: int) -> dict[str, Any]:
    """The line of ``rt`` (a :class:`generators.rows.RowsTable`) as it is now, applying from
    transaction ``seq``."""
    from generators.rows import DDL_TYPES

    t = rt.table
    initial = {c.name for c in rt.tdef.table.columns}
    added = []
    for c in t.columns:
        if c.name not in initial:  # ddl_P: its type is the ALTER's (generators/run_txn.py do_ddl)
            p = int(c.name.rpartition("_")[2])
            added.append((c.name, DDL_TYPES[p % len(DDL_TYPES)]))
    return {"seq": seq, "database": t.database, "table": t.name, "create": create_text(rt.tdef.create_sql, added),
            "columns": [c.name for c in t.columns]}


def initial_definitions(rows: Iterable[Any]) -> list[dict[str, Any]]:
    """The initial schema's lines (``seq`` 0), one per table in the run's table order."""
    out = []
    for rt in rows:
        t = rt.tdef.table
        out.append({"seq": 0, "database": t.database, "table": t.name, "create": create_text(rt.tdef.create_sql, ()),
                    "columns": [c.name for c in t.columns]})
    return out


def write_history(path: str | os.PathLike, initial: list[dict[str, Any]], later: Iterable[dict[str, Any]]) -> None:
    """Write the lines: the initial definitions, then the later ones in the order given."""
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        for d in [*initial, *later]:
            f.write(jsonl_safe(_ENCODE({k: d[k] for k in ("seq", "database", "table", "create", "columns")})) + "\n")
    os.replace(tmp, path)
