"""The intermediate result both CREATE TABLE parsers produce (sqlglot's AST converted by
:mod:`~binlogwriter.schema.sqlglot_parse`, the fallback of :mod:`~binlogwriter.schema.fallback`):
column type words and arguments as written, attributes, keys; :mod:`~binlogwriter.schema.parse`
turns it into a :class:`~binlogwriter.schema.model.Table`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from binlogwriter.schema.keys import Check, Key
from binlogwriter.schema.types import ALIASES, INT_TYPES, MAX_BLOB, TEMPORAL_FSP

__all__ = ["ColSpec", "TableSpec", "sql_literal", "add_system_time_columns"]


@dataclass
class ColSpec:
    name: str
    words: list[str]            # type words, upper-case, e.g. ["DOUBLE", "PRECISION"]
    args: list[str | bytes] = field(default_factory=list)   # type arguments as text; bytes: a hex / bit member
    unsigned: bool = False
    zerofill: bool = False
    charset: str | None = None
    collation: str | None = None
    binary_attr: bool = False
    nullable: bool | None = None
    default: str | None = None
    on_update: str | None = None  # ``ON UPDATE`` expression as SQL text (CURRENT_TIMESTAMP[(fsp)])
    auto_increment: bool = False
    invisible: bool = False
    generated: bool = False
    primary: bool = False
    unique: bool = False
    checks: list[Check] = field(default_factory=list)
    compressed: bool = False  # MariaDB ``COMPRESSED[=zlib]``: refused by the model (not modelled)


@dataclass
class TableSpec:
    database: str | None
    name: str
    columns: list[ColSpec]
    keys: list[Key]
    charset: str | None = None
    collation: str | None = None
    checks: list[Check] = field(default_factory=list)


_SYSTEM_VERSIONING = re.compile(r"\)[^()]*\bWITH\s+SYSTEM\s+VERSIONING\b[^()]*$", re.I)
"""MariaDB's table option ``WITH SYSTEM VERSIONING`` (after the column list, as SHOW CREATE
TABLE prints it)."""


_ROW_START = re.compile(r"\bAS\s+ROW\s+START\b", re.I)


def add_system_time_columns(spec: TableSpec, text: str, flavor: str) -> None:
    """A MariaDB system-versioned table without period columns of its own has two implicit
    invisible ones, ``row_start`` and ``row_end`` TIMESTAMP(6), after the others: its rows
    events carry them (a real 10.11 Table_map of ``(id, v) WITH SYSTEM VERSIONING`` has four
    columns, names ``id v row_start row_end`` in FULL metadata)."""
    if not flavor.startswith("mariadb") or not _SYSTEM_VERSIONING.search(text):
        return
    names = {c.name.lower() for c in spec.columns}
    if "row_start" in names or "row_end" in names or _ROW_START.search(text):
        return  # the table names its own period columns (GENERATED ALWAYS AS ROW START / END)
    for name in ("row_start", "row_end"):
        spec.columns.append(ColSpec(name, ["TIMESTAMP"], ["6"], nullable=False, invisible=True, generated=True))


_LITERAL_ESCAPES = str.maketrans({"\\": "\\\\", "'": "''", "\x00": "\\0", "\x1a": "\\Z"})


def sql_literal(text: str) -> str:
    """A string (as the lexer decoded it) back to a quoted literal that reads as the same text
    under the servers' default sql_mode, where ``\\`` is an escape character (MySQL 8.0
    reference, "String Literals", Table 11.1; MariaDB "String Literals"; not under
    NO_BACKSLASH_ESCAPES), and under sqlglot's MySQL dialect: ``\\`` -> ``\\\\``, ``'`` ->
    ``''``, NUL -> ``\\0``, Ctrl-Z -> ``\\Z``. The text ``a <> '\\\\'`` of a CHECK stays
    ``a <> '\\\\'``, not ``a <> '\\'``, which no one reads."""
    return "'" + text.translate(_LITERAL_ESCAPES) + "'"


_CONVERT_MEMBER = re.compile(r"\s+$")


def type_from_spec(cs: ColSpec) -> dict[str, Any]:
    """Turn type words/arguments into Column fields (aliases and special forms)."""
    w = " ".join(cs.words)
    args = cs.args
    out: dict[str, Any] = {}
    if cs.words and cs.words[0] not in ("ENUM", "SET"):
        bad = [a for a in args if isinstance(a, bytes) or not a.isdigit()]
        if bad:
            shown = [f"0x{a.hex().upper()}" if isinstance(a, bytes) else a for a in args]
            return {"_error": f"{w}({', '.join(shown)}): {shown[args.index(bad[0])]!r} is not a whole number"}

    def num(i: int) -> int | None:
        return int(args[i]) if len(args) > i and args[i] != "" else None

    if w in ("NATIONAL CHAR", "NATIONAL CHARACTER", "NCHAR"):
        w, out["charset"] = "CHAR", "utf8mb3"
    elif w in ("NATIONAL VARCHAR", "NVARCHAR", "NCHAR VARCHAR", "NATIONAL CHAR VARYING",
               "NATIONAL CHARACTER VARYING", "NCHAR VARYING", "NATIONAL VARCHARACTER"):
        w, out["charset"] = "VARCHAR", "utf8mb3"
    elif w in ("LONG", "LONG VARCHAR", "LONG CHAR VARYING"):
        w = "MEDIUMTEXT"
    elif w == "LONG VARBINARY":
        w = "MEDIUMBLOB"
    elif w == "SERIAL":
        w = "BIGINT"
        out.update(unsigned=True, nullable=False, auto_increment=True, _serial=True)
    w = ALIASES.get(w, w)
    if cs.words and cs.words[0] in ("BOOL", "BOOLEAN"):
        w = "TINYINT"
    if w == "FLOAT" and len(args) == 1:
        p = num(0) or 0
        if p > 53:
            out["_error"] = f"FLOAT({p}) precision out of range 0..53"
        elif p > 24:
            w = "DOUBLE"
    elif w in ("FLOAT", "DOUBLE") and len(args) == 2:
        out["precision"], out["scale"] = num(0), num(1)
    elif w == "DECIMAL":
        out["precision"] = num(0) if args else 10
        out["scale"] = num(1) if len(args) > 1 else 0
    elif w in TEMPORAL_FSP:
        out["fsp"] = num(0) if args else 0
    elif w in ("CHAR", "BINARY", "VARCHAR", "VARBINARY", "BIT"):
        out["length"] = num(0) if args else (None if w in ("VARCHAR", "VARBINARY") else 1)
    elif w in ("TEXT", "BLOB") and args:
        out["_blob_len"] = num(0)
    elif w in INT_TYPES and args and (num(0) or 0) > 255:
        # the display width is not kept, but the server refuses one beyond 255
        # (ER_TOO_BIG_DISPLAYWIDTH)
        out["_error"] = f"{w}({args[0]}): display width out of range (max 255)"
    elif w in ("ENUM", "SET"):
        # a hex / bit member stays bytes until its charset is known (validate.py _decode_members)
        out["members"] = tuple(m if isinstance(m, bytes) else _CONVERT_MEMBER.sub("", m) for m in args)
    out["type"] = w
    return out


def blob_type_for(base: str, n: int, mbmax: int) -> str:
    nb = n * mbmax
    for prefix, limit in MAX_BLOB.items():
        if nb <= limit:
            return prefix + base
    return "LONG" + base
