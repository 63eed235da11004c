"""Ground truth: the canonical row form of docs/output.md and ``truth/snapshot.sql``.

:func:`canonical_renderer` turns a row of Python values into the canonical JSON values
(docs/output.md "Canonical row form"): integers/YEAR/BIT as integers, DECIMAL as a string with
exactly ``scale`` digits, FLOAT widened from float32, temporals with all fsp digits
(TIMESTAMP in UTC), CHAR without trailing spaces, binary data and geometry as ``0x`` hex
(BINARY(n) padded with 0x00 to n bytes as the server stores it), JSON as MySQL prints it.
:func:`write_sorted_jsonl` writes lines sorted by all column values (null < number <
string) with bounded memory: sorted runs spill to temporary files and are merged.
:func:`generators.columns.sql_literal` writes the same values as SQL for ``snapshot.sql``.
"""

from __future__ import annotations

import datetime as dt
import heapq
import json
import os
import struct
import tempfile
from collections.abc import Callable, Iterable
from decimal import Context, Decimal
from pathlib import Path
from typing import Any

from binlogwriter.schema import Column, Table
from binlogwriter.values import Geometry, MysqlDate, MysqlDateTime, MysqlTime
from generators.json_text import mysql_json_text

__all__ = ["canonical_renderer", "canonical_key", "write_sorted_jsonl", "dumps_line",
           "render_temporal"]

_UTC = dt.UTC
_BYTES_TYPES = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")


def _frac(us: int, fsp: int) -> str:
    return "" if not fsp else "." + f"{us:06d}"[:fsp]


def render_temporal(col: Column, v: Any) -> str:
    """DATE / DATETIME / TIMESTAMP / TIME as the server prints them (all fsp digits, UTC)."""
    fsp = col.fsp or 0
    t = col.type
    if t == "DATE":
        if isinstance(v, MysqlDate):
            return str(v)
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
    if t in ("DATETIME", "TIMESTAMP"):
        if isinstance(v, MysqlDateTime):
            return (f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
                    + _frac(v.microsecond, fsp))
        if t == "TIMESTAMP" and v.tzinfo is not None:
            v = v.astimezone(_UTC)
        return (f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
                + _frac(v.microsecond, fsp))
    if t == "TIME":
        if isinstance(v, MysqlTime):
            v = v.to_timedelta()
        us = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
        sign = "-" if us < 0 else ""
        us = abs(us)
        secs, frac = divmod(us, 1_000_000)
        return f"{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}" + _frac(frac, fsp)
    raise ValueError(t)


def _f32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


def column_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """fn(python value) -> canonical JSON value of one column."""
    t = col.type
    if t in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR", "BIT"):
        return int
    if t == "DECIMAL":
        s = col.scale or 0
        q = Decimal(1).scaleb(-s)

        ctx = Context(prec=100)

        def dec(v):
            d = Decimal(v).quantize(q, context=ctx)
            if d == 0:
                d = abs(d)
            return format(d, "f")
        return dec
    if t == "FLOAT":
        return lambda v: _f32(float(v))
    if t == "DOUBLE":
        return float
    if t in ("DATE", "DATETIME", "TIMESTAMP", "TIME"):
        return lambda v: render_temporal(col, v)
    if t == "CHAR":
        return lambda v: v.rstrip(" ")
    if t in ("VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM"):
        return str
    if t == "SET":
        order = {m: i for i, m in enumerate(col.members)}
        return lambda v: ",".join(sorted(v, key=order.__getitem__))
    if t == "BINARY":
        n = col.char_length() or 1
        return lambda v: "0x" + bytes(v).ljust(n, b"\0").hex()
    if t in _BYTES_TYPES:
        return lambda v: "0x" + bytes(v).hex()
    if t == "JSON":
        if flavor.startswith("mariadb"):
            return lambda v: v if isinstance(v, str) else mysql_json_text(v)
        return mysql_json_text
    if col.geometry_type is not None:
        return lambda v: "0x" + (v.to_bytes() if isinstance(v, Geometry) else bytes(v)).hex()
    if t in ("INET6", "INET4", "UUID"):
        return lambda v: "0x" + bytes(v).hex()
    raise ValueError(f"no canonical form for {t}")


def canonical_renderer(table: Table, flavor: str) -> Callable[[tuple], list]:
    fns = [column_renderer(c, flavor) for c in table.columns]

    def render(row: tuple) -> list:
        return [None if v is None else f(v) for f, v in zip(fns, row, strict=True)]
    return render


def canonical_key(values: Iterable[Any]) -> tuple:
    """docs/output.md ordering: null < number < string; numbers numerically, strings by code point."""
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float) else (2, v) for v in values)


def dumps_line(names: list[str], values: list) -> str:
    return json.dumps(dict(zip(names, values, strict=True)), ensure_ascii=False, separators=(",", ":"))


def write_sorted_jsonl(path: Path, names: list[str], rows: Iterable[list], *, chunk: int = 20_000) -> int:
    """Write canonical rows to ``path`` sorted by :func:`canonical_key`; bounded memory."""
    runs: list[str] = []
    buf: list[tuple[tuple, str]] = []
    count = 0
    tmpdir = path.parent
    try:
        for vals in rows:
            buf.append((canonical_key(vals), dumps_line(names, vals)))
            count += 1
            if len(buf) >= chunk:
                runs.append(_spill(buf, tmpdir))
                buf = []
        buf.sort(key=lambda x: x[0])
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            if not runs:
                for _, line in buf:
                    out.write(line + "\n")
            else:
                runs.append(_spill(buf, tmpdir))
                files = [open(r, encoding="utf-8") for r in runs]
                try:
                    def keyed(f):
                        for line in f:
                            obj = json.loads(line)
                            yield canonical_key(obj.values()), line
                    for _, line in heapq.merge(*(keyed(f) for f in files), key=lambda x: x[0]):
                        out.write(line)
                finally:
                    for f in files:
                        f.close()
    finally:
        for r in runs:
            try:
                os.unlink(r)
            except FileNotFoundError:
                pass
    return count


def _spill(buf: list[tuple[tuple, str]], tmpdir: Path) -> str:
    buf.sort(key=lambda x: x[0])
    fd, name = tempfile.mkstemp(prefix=".sort-", suffix=".jsonl", dir=tmpdir)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
        for _, line in buf:
            f.write(line + "\n")
    return name
