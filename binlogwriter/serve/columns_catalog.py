"""The rows of ``information_schema.COLUMNS`` for the served run (docs/serve.md "Queries").

A client reading rows without FULL row metadata asks the server for the table's columns
(ZongJi: ``SELECT COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME, COLUMN_COMMENT, COLUMN_TYPE
FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA=? AND TABLE_NAME=? ORDER BY
ORDINAL_POSITION``). A real server answers from the table as it is *now*; serve answers from
the latest definition of each table in the served directory's truth (issue #31 §4):
``truth/schema_history.jsonl`` (binlogwriter.testing.table_definitions(); a generated run
writes it, and tests/conformance/consumers/matrix.py writes it for a catalogue case), else the
CREATE TABLE statements of ``truth/snapshot.sql``. A table whose latest definition is a DROP
(``create`` null) has no rows. When the directory holds neither file (plain binlog files, a
``--generate`` stream) there are no definitions and the answer has no rows.

The values are the ones MySQL 8.0 / MariaDB 10.11 give (MySQL reference manual "The
INFORMATION_SCHEMA COLUMNS Table"): ``COLUMN_TYPE`` as SHOW CREATE TABLE prints the type
(lower case; MariaDB keeps integer display widths, ``int(11)``, ``int(10) unsigned``, and
``year(4)``, MySQL 8.0.19+ drops them), ``DATA_TYPE`` the type's name (MariaDB's JSON is a
LONGTEXT), ``CHARACTER_SET_NAME`` / ``COLLATION_NAME`` for character columns only (NULL for
numbers, temporals and binary strings; MariaDB's JSON is utf8mb4 / utf8mb4_bin),
``IS_NULLABLE`` YES/NO, ``COLUMN_KEY`` PRI (a column of the primary key, or of the UNIQUE key
promoted to it), UNI (the column of a one-column UNIQUE key), MUL (the first column of another
index), ``EXTRA`` ``auto_increment``, ``COLUMN_COMMENT`` empty (the truth keeps no comments).
Not reproduced: a BOOLEAN's ``tinyint(1)`` (the schema model keeps TINYINT).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

__all__ = ["COLUMNS", "NUMERIC_COLUMNS", "column_rows", "served_tables"]

COLUMNS = ("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
           "IS_NULLABLE", "DATA_TYPE", "CHARACTER_SET_NAME", "COLLATION_NAME", "COLUMN_TYPE",
           "COLUMN_KEY", "EXTRA", "COLUMN_COMMENT")
"""The ``information_schema.COLUMNS`` columns serve answers (module docstring)."""
NUMERIC_COLUMNS = frozenset({"ORDINAL_POSITION"})

_MARIADB_WIDTH = {"TINYINT": (4, 3), "SMALLINT": (6, 5), "MEDIUMINT": (9, 8), "INT": (11, 10),
                  "BIGINT": (20, 20)}
"""MariaDB's default display width (signed, unsigned) of each integer type."""

_LOCK = threading.Lock()
_CACHE: dict[tuple[str, str], tuple[tuple, list]] = {}


def _truth_files(sources: list[Path]) -> tuple[Path | None, Path | None]:
    """(schema_history.jsonl, snapshot.sql) of the served directory, each None if absent."""
    if len(sources) != 1 or not sources[0].is_dir():
        return None, None
    truth = sources[0] / "truth"
    hist, snap = truth / "schema_history.jsonl", truth / "snapshot.sql"
    return (hist if hist.is_file() else None), (snap if snap.is_file() else None)


def _load(hist: Path | None, snap: Path | None, flavor: str) -> list:
    from binlogwriter.schema.parse import parse_tables, table_from_sql

    if hist is not None:
        latest: dict[tuple[str, str], Any] = {}
        with open(hist, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    latest.pop((d["database"], d["table"]), None)  # a re-creation goes last
                    latest[(d["database"], d["table"])] = d["create"]
        return [table_from_sql(sql, db, flavor) for (db, _t), sql in latest.items() if sql]
    if snap is not None:
        return parse_tables(snap.read_text(encoding="utf-8"), "test", flavor)
    return []


def served_tables(binlogs: Any, flavor: str) -> list:
    """The latest :class:`~binlogwriter.schema.Table` of each table of the served run (module
    docstring), cached per file and modification time; [] when there are no definitions or
    they cannot be read."""
    hist, snap = _truth_files(list(getattr(binlogs, "sources", None) or []))
    path = hist or snap
    if path is None:
        return []
    try:
        stamp = (os.stat(path).st_mtime_ns, os.stat(path).st_size)
    except OSError:
        return []
    key = (str(path), flavor)
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        tables = _load(hist, snap, flavor)
    except (OSError, ValueError, KeyError):
        tables = []  # SchemaError is a ValueError: an unreadable truth answers no rows
    with _LOCK:
        _CACHE[key] = (stamp, tables)
    return tables


def _quote_member(m: str) -> str:
    return "'" + m.replace("'", "''") + "'"


def column_type(col: Any, mariadb: bool) -> str:
    """``COLUMN_TYPE`` of a schema Column (module docstring)."""
    t = col.type
    if t in _MARIADB_WIDTH:
        out = t.lower()
        if mariadb:
            out += f"({_MARIADB_WIDTH[t][1 if col.unsigned else 0]})"
    elif t == "DECIMAL":
        out = f"decimal({col.precision},{col.scale})"
    elif t in ("FLOAT", "DOUBLE"):
        out = t.lower() + (f"({col.precision},{col.scale})" if col.precision is not None else "")
    elif t in ("CHAR", "VARCHAR", "BINARY", "VARBINARY", "BIT"):
        out = f"{t.lower()}({col.length if col.length is not None else 1})"
    elif t in ("TIME", "DATETIME", "TIMESTAMP"):
        out = t.lower() + (f"({col.fsp})" if col.fsp else "")
    elif t in ("ENUM", "SET"):
        out = t.lower() + "(" + ",".join(_quote_member(m) for m in col.members) + ")"
    elif t == "YEAR":
        out = "year(4)" if mariadb else "year"
    elif t == "JSON" and mariadb:
        out = "longtext"
    else:
        out = t.lower()
    if col.unsigned and t in (*_MARIADB_WIDTH, "DECIMAL", "FLOAT", "DOUBLE"):
        out += " unsigned"
    return out


def _data_type(col: Any, mariadb: bool) -> str:
    return "longtext" if col.type == "JSON" and mariadb else col.type.lower()


def _charset(col: Any, flavor: str) -> tuple[str | None, str | None]:
    """(CHARACTER_SET_NAME, COLLATION_NAME): character columns only (module docstring)."""
    from binlogwriter.schema.types import CHAR_TYPES

    character = col.type in CHAR_TYPES or col.type in ("ENUM", "SET")
    if col.type == "JSON" and flavor.startswith("mariadb"):
        character = True
    coll = col.collation_obj(flavor) if character else None
    if coll is None or coll.is_binary:
        return None, None
    return coll.charset, coll.name


def _column_keys(table: Any) -> dict[int, str]:
    """column index -> COLUMN_KEY (PRI before UNI before MUL; module docstring)."""
    out: dict[int, str] = {i: "PRI" for i, _prefix in table.effective_primary_key()}
    for k in table.keys:
        if not k.parts:
            continue
        first = table.index_of(k.parts[0].column)
        if first in out:
            continue
        if k.kind == "UNIQUE" and len(k.parts) == 1:
            out[first] = "UNI"
    for k in table.keys:
        if k.parts and k.kind != "PRIMARY":
            out.setdefault(table.index_of(k.parts[0].column), "MUL")
    return out


def column_rows(tables: list, flavor: str) -> list[dict[str, object]]:
    """One dict per column of ``tables`` (keys :data:`COLUMNS`), by schema, table, position."""
    mariadb = flavor.startswith("mariadb")
    rows = []
    for table in sorted(tables, key=lambda t: (t.database, t.name)):
        keys = _column_keys(table)
        for i, col in enumerate(table.columns):
            cs, coll = _charset(col, flavor)
            rows.append({
                "TABLE_CATALOG": "def", "TABLE_SCHEMA": table.database, "TABLE_NAME": table.name,
                "COLUMN_NAME": col.name, "ORDINAL_POSITION": i + 1,
                "IS_NULLABLE": "YES" if col.nullable else "NO", "DATA_TYPE": _data_type(col, mariadb),
                "CHARACTER_SET_NAME": cs, "COLLATION_NAME": coll,
                "COLUMN_TYPE": column_type(col, mariadb), "COLUMN_KEY": keys.get(i, ""),
                "EXTRA": "auto_increment" if col.auto_increment else "", "COLUMN_COMMENT": "",
            })
    return rows
