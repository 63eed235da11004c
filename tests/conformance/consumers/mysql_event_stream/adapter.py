"""mysql-event-stream (PyPI ``mysql-event-stream``, an independent C binlog decoder,
``mysql_event_stream.CdcEngine``) reads the served run's FILES: it has no replication client,
so it is fed the bytes of each file after the magic, in binlog.index order (what the project
already does in tests/conformance/test_mysql_event_stream.py, whose ``mes_events`` is reused).

Its representation (``ChangeEvent`` docstring) turned into natural Python values with the
run's table definitions (_names.columns): ENUM 1-based index -> member ('' for 0), SET bitmask
-> set of members, TIMESTAMP epoch-seconds text -> aware UTC datetime (0: the zero TIMESTAMP, as text), DECIMAL text ->
Decimal, DATE/DATETIME/TIME text -> date/datetime/timedelta (zero or partial-zero dates stay
text), MySQL binary JSON bytes -> the document (binlogwriter's decode_json); BIGINT UNSIGNED
above INT64_MAX given as text -> int; text of a non-UTF-8 charset (which the engine decodes as
UTF-8 with surrogateescape) -> its bytes decoded in the column's charset. Columns outside a partial image are absent from its
dicts, as in the change model.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.conformance.consumers._names import columns as table_columns
from tests.conformance.consumers.base import require_pinned

if TYPE_CHECKING:
    from tests.conformance.consumers.base import ServedEndpoint, require_pinned

NAME = "mysql-event-stream"
FLAVORS = ("mysql80", "mysql84", "mariadb1011")
HERE = Path(__file__).resolve().parent
_OPS = {"INSERT": "insert", "UPDATE": "update", "DELETE": "delete"}


def ensure_built() -> None:
    """The version pinned in requirements.txt beside this file is the one installed."""
    require_pinned(NAME, "mysql-event-stream", HERE)


def version() -> str:
    import importlib.metadata

    return importlib.metadata.version("mysql-event-stream")


def _temporal(col: Any, v: str) -> Any:
    t = col.type
    try:
        if t == "DATE":
            return dt.date.fromisoformat(v)
        if t == "DATETIME":
            return dt.datetime.fromisoformat(v)
        if t == "TIME":
            m = re.fullmatch(r"(-?)(\d+):(\d\d):(\d\d)(?:\.(\d+))?", v)
            if m:
                us = int((m.group(5) or "0").ljust(6, "0")[:6])
                d = dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3)), seconds=int(m.group(4)),
                                 microseconds=us)
                return -d if m.group(1) else d
    except ValueError:
        return v  # zero / partial-zero dates have no Python value
    return v


def _value(col: Any, v: Any, flavor: str) -> Any:
    if v is None or col is None:
        return v
    t = col.type
    if t == "ENUM" and isinstance(v, int):
        return col.members[v - 1] if 0 < v <= len(col.members) else ""
    if t == "SET" and isinstance(v, int | str):
        bits = int(v)
        return {m for i, m in enumerate(col.members) if bits >> i & 1}
    if t == "TIMESTAMP" and isinstance(v, str):
        secs = Decimal(v)
        if secs == 0:  # the zero TIMESTAMP is stored as 0 seconds
            return "0000-00-00 00:00:00" + ("." + "0" * col.fsp if col.fsp else "")
        return dt.datetime.fromtimestamp(0, dt.UTC) + dt.timedelta(microseconds=int(secs * 1_000_000))
    if t == "DECIMAL" and isinstance(v, str):
        return Decimal(v)
    if t in ("DATE", "DATETIME", "TIME") and isinstance(v, str):
        return _temporal(col, v)
    if t == "JSON" and isinstance(v, bytes) and not flavor.startswith("mariadb"):
        from binlogwriter.values import decode_json

        return decode_json(v)
    if t in ("BIGINT", "BIT") and isinstance(v, str):
        return int(v)
    if isinstance(v, str) and col.charset and col.charset not in ("utf8mb4", "utf8mb3", "utf8", "ascii"):
        # the engine decodes every character column as UTF-8 with surrogateescape: the stored
        # bytes back, decoded in the column's charset
        try:
            return col.collation_obj(flavor).decode(v.encode("utf-8", "surrogateescape"))
        except (UnicodeError, LookupError, ValueError):
            return v
    return v


def _image(img: dict | None, cols: list | None, flavor: str) -> dict | None:
    if img is None:
        return None
    by_name = {c.name: c for c in cols} if cols else {}
    out = {}
    for k, v in img.items():
        col = by_name.get(k)
        if col is None and cols and k.isdigit() and int(k) < len(cols):  # names unresolved: positions
            col = cols[int(k)]
            k = col.name
        out[k] = _value(col, v, flavor)
    return out


def decode(server: ServedEndpoint, *, expected_changes: int, timeout: float = 120.0) -> list[dict]:
    from tests.conformance.test_mysql_event_stream import mes_events

    run = Path(server.run_dir)
    files = [run / line.strip()[2:] if line.strip().startswith("./") else run / line.strip()
             for line in (run / "binlog.index").read_text().splitlines() if line.strip()]
    out = []
    for e in mes_events(files):
        op = _OPS.get(getattr(e.type, "name", str(e.type)))
        if op is None:
            continue
        width = len(e.after if e.after is not None else e.before or {})
        cols = table_columns(run, e.database, e.table, width)
        if cols is None or not set(e.after or e.before or {}) <= {c.name for c in cols} | {str(i) for i in range(len(cols))}:
            cols = _any_columns(run, e.database, e.table)
        out.append({"op": op, "database": e.database, "table": e.table,
                    "before": _image(e.before, cols, server.flavor), "after": _image(e.after, cols, server.flavor)})
        if len(out) >= expected_changes:
            break
    return out


def _any_columns(run: Path, database: str, table: str) -> list | None:
    """A partial image has fewer columns than the table: the latest definition of any width."""
    from tests.conformance.consumers import _names

    _names.columns(run, database, table, -1)
    defs = _names.COLS.get(run, {}).get((database, table), [])
    return defs[-1] if defs else None
