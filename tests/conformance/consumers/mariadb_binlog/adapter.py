"""``mariadb-binlog --read-from-remote-server`` (MariaDB 10.11's client, the Debian package
the conformance tests need) reads the served run from its port, every file
(``--to-last-log``, non-blocking), and prints rows as ``-vv`` pseudo-SQL
(``--base64-output=decode-rows``): ``### INSERT INTO `db`.`t` / ### SET / ###   @1=value
/* TYPE meta=… */``. This adapter parses that text back into the change model.

Names: ``@N`` positions mapped with the run's table definitions (_names.columns), which also
give the types the text needs to become natural values: quoted strings -> str (text columns,
the bytes as printed, ``\\xNN`` escapes undone, decoded as UTF-8 with surrogateescape) or bytes
(binary columns) — text in the column's charset; integers printed as ``-1 (255)`` -> the unsigned reading for UNSIGNED
columns; ENUM index -> member; SET bitmask -> members; DECIMAL -> Decimal; FLOAT/DOUBLE ->
float; DATE ``'YYYY:MM:DD'`` -> date, DATETIME -> datetime, TIMESTAMP epoch seconds -> aware
UTC datetime (0: the zero TIMESTAMP, as text), TIME -> timedelta (zero dates stay text); BIT ``b'…'`` -> int. MariaDB flavor only:
the MariaDB client does not decode MySQL 8 row events' metadata the same way.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.conformance.consumers._names import columns as table_columns

if TYPE_CHECKING:
    from tests.conformance.consumers.base import ServedEndpoint

NAME = "mariadb-binlog -R"
FLAVORS = ("mariadb1011",)
_HEAD = re.compile(r"^### (INSERT INTO|UPDATE|DELETE FROM) `((?:[^`]|``)*)`\.`((?:[^`]|``)*)`$")
_VAL = re.compile(r"^###   @(\d+)=(.*?)(?: /\* (.*) \*/)?$")
_BINARY = {"BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "GEOMETRY", "POINT", "LINESTRING",
           "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"}


def version() -> str:
    """The MariaDB release the client comes with (``mariadbd --version``; the client's own
    ``Ver 3.5`` says little)."""
    out = subprocess.run(["mariadbd", "--version"], capture_output=True, text=True).stdout
    return out.split("Ver ")[1].split()[0] if "Ver " in out else "?"


def ensure_built() -> None:
    if shutil.which("mariadb-binlog") is None:
        raise AssertionError("mariadb-binlog is not installed: apt-get install mariadb-client")


def _unquote(text: str) -> bytes:
    """mariadb-binlog writes bytes above 0x1F as they are and the others as ``\\xNN``
    (my_b_write_quoted): only those escapes are undone."""
    raw = text[1:-1].encode("utf-8", "surrogateescape")
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)


def _time(s: str) -> Any:
    m = re.fullmatch(r"(-?)(\d+):(\d\d):(\d\d)(?:\.(\d+))?", s)
    if not m:
        return s
    us = int((m.group(5) or "0").ljust(6, "0")[:6])
    d = dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3)), seconds=int(m.group(4)), microseconds=us)
    return -d if m.group(1) else d


def _value(text: str, col: Any) -> Any:
    v = _base_value(text, col)
    t = col.type if col is not None else ""
    if t == "ENUM" and isinstance(v, int):
        return col.members[v - 1] if 0 < v <= len(col.members) else ""
    if t == "SET" and isinstance(v, int):
        return {x for k, x in enumerate(col.members) if v >> k & 1}
    return v


def _base_value(text: str, col: Any) -> Any:
    if text == "NULL":
        return None
    t = col.type if col is not None else ""
    if text.startswith("'") and text.endswith("'") and len(text) >= 2:
        raw = _unquote(text)
        if t in _BINARY:
            return raw
        try:
            s = col.collation_obj("mariadb1011").decode(raw) if col is not None and col.charset else \
                raw.decode("utf-8", "surrogateescape")
        except (UnicodeDecodeError, LookupError, ValueError):
            s = raw.decode("utf-8", "surrogateescape")
        if t == "DATE":
            s = s.replace(":", "-")
        try:
            if t == "DATE":
                return dt.date.fromisoformat(s)
            if t == "DATETIME":
                return dt.datetime.fromisoformat(s)
        except ValueError:
            return s
        if t == "TIME":
            return _time(s)
        return s
    if text.startswith("b'"):
        return int(text[2:-1] or "0", 2)
    m = re.fullmatch(r"(-?\d+) \((\d+)\)", text)
    if m:
        return int(m.group(2)) if col is not None and col.unsigned else int(m.group(1))
    if t == "TIMESTAMP":
        secs = Decimal(text)
        if secs == 0:  # the zero TIMESTAMP is stored as 0 seconds
            fsp = col.fsp or 0
            return "0000-00-00 00:00:00" + ("." + "0" * fsp if fsp else "")
        return dt.datetime.fromtimestamp(0, dt.UTC) + dt.timedelta(microseconds=int(secs * 1_000_000))
    if t in ("FLOAT", "DOUBLE"):
        return float(text)
    try:
        return int(text)
    except ValueError:
        try:
            return Decimal(text)
        except InvalidOperation:
            return text


def parse(text: str, run_dir: Path) -> list[dict]:
    """The ``###`` rows of ``-vv`` output -> change-model dicts (see the module docstring)."""
    out: list[dict] = []
    cur: dict | None = None
    side = None
    raw: dict[str, list[tuple[int, str]]] = {}

    def flush() -> None:
        if cur is None:
            return
        for s in ("before", "after"):
            vals = raw.get(s)
            if vals is None:
                continue
            width = max(i for i, _ in vals) if vals else 0
            cols = table_columns(run_dir, cur["database"], cur["table"], width) or \
                _latest(run_dir, cur["database"], cur["table"])
            img = {}
            for i, v in vals:
                col = cols[i - 1] if cols and i - 1 < len(cols) else None
                img[col.name if col is not None else f"@{i}"] = _value(v, col)
            cur[s] = img
        out.append(cur)

    for line in text.split("\n"):  # not splitlines(): a printed value may hold U+2028 & co.
        if not line.startswith("###"):
            continue
        m = _HEAD.match(line)
        if m:
            flush()
            op = {"INSERT INTO": "insert", "UPDATE": "update", "DELETE FROM": "delete"}[m.group(1)]
            cur = {"op": op, "database": m.group(2).replace("``", "`"), "table": m.group(3).replace("``", "`"),
                   "before": None, "after": None}
            raw = {}
            side = None
            continue
        if line == "### SET":
            side = "after"
            raw[side] = []
        elif line == "### WHERE":
            side = "before"
            raw[side] = []
        else:
            v = _VAL.match(line)
            if v and side is not None:
                raw[side].append((int(v.group(1)), v.group(2)))
    flush()
    return out


def _latest(run_dir: Path, database: str, table: str) -> list | None:
    from tests.conformance.consumers import _names

    _names.columns(run_dir, database, table, -1)
    defs = _names.COLS.get(Path(run_dir), {}).get((database, table), [])
    return defs[-1] if defs else None


def decode(server: ServedEndpoint, *, expected_changes: int, timeout: float = 120.0) -> list[dict]:
    proc = subprocess.run(
        ["mariadb-binlog", "--no-defaults", "--read-from-remote-server", f"--host={server.host}",
         f"--port={server.port}", f"--user={server.user}", f"--password={server.password}", "-vv",
         "--base64-output=decode-rows", "--to-last-log", "binlog.000001"],
        capture_output=True, text=True, errors="surrogateescape", timeout=timeout)
    changes = parse(proc.stdout, Path(server.run_dir))
    if proc.returncode != 0 and not changes:
        raise RuntimeError(f"mariadb-binlog exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return changes[:expected_changes] if len(changes) > expected_changes else changes
