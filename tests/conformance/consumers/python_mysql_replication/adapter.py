"""python-mysql-replication (PyPI ``mysql-replication``, pinned in pyproject's test extras;
the version installed is the one the test environment has) reads the served run.

It connects like a CDC service: MySQL from ``binlog.000001:4`` (``resume_stream``), MariaDB in
its MariaDB mode from the first file, non-blocking (the dump ends with the files). Rows come
as ``values`` / ``before_values`` / ``after_values`` dicts; a column outside a MINIMAL or
NOBLOB image is reported as None with ``none_sources[col] == "cols bitmap"`` and is left out
here (absent, not NULL). Without FULL row metadata the library names columns
``UNKNOWN_COL{i}``: positions are mapped to names from the run's table definitions
(_names.py). Values are the library's own Python values (int, Decimal, str, bytes, datetime,
date, timedelta, float, dict/list for JSON, set of str for SET), not converted — except the
bytes keys and strings of MySQL binary JSON documents, given as str.
"""

from __future__ import annotations

import re
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.conformance.consumers._names import names as column_names
from tests.conformance.consumers.base import require_pinned

if TYPE_CHECKING:
    from tests.conformance.consumers.base import ServedEndpoint, require_pinned

NAME = "python-mysql-replication"
FLAVORS = ("mysql80", "mysql84", "mariadb1011")
HERE = Path(__file__).resolve().parent
_UNKNOWN = re.compile(r"^UNKNOWN_COL(\d+)$")


def ensure_built() -> None:
    """The version pinned in requirements.txt beside this file is the one installed."""
    require_pinned(NAME, "mysql-replication", HERE)


def version() -> str:
    import importlib.metadata

    return importlib.metadata.version("mysql-replication")


def _json(v: Any) -> Any:
    """MySQL binary JSON comes with bytes keys and strings: the document with str."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, dict):
        return {_json(k): _json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_json(x) for x in v]
    return v


def _image(values: dict, sources: dict, server: ServedEndpoint, ev: Any) -> dict:
    out = {k: _json(v) if isinstance(v, dict | list) else v for k, v in values.items()
           if not (v is None and sources.get(k) == "cols bitmap")}
    if any(_UNKNOWN.match(str(k)) for k in values):
        cols = column_names(server.run_dir, ev.schema, ev.table, len(ev.columns))
        if cols is not None:
            out = {(cols[int(m.group(1))] if (m := _UNKNOWN.match(str(k))) else k): v for k, v in out.items()}
    return out


def decode(server: ServedEndpoint, *, expected_changes: int, timeout: float = 120.0) -> list[dict]:
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

    kinds = {WriteRowsEvent: "insert", UpdateRowsEvent: "update", DeleteRowsEvent: "delete"}
    kw: dict[str, Any] = dict(connection_settings=server.settings, server_id=server.server_id, blocking=False,
                              only_events=list(kinds))
    if server.flavor.startswith("mariadb"):
        kw["is_mariadb"] = True
    else:
        kw.update(log_file="binlog.000001", log_pos=4, resume_stream=True)
    out: list[dict] = []
    deadline = time.monotonic() + timeout
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        stream = BinLogStreamReader(**kw)
        try:
            for ev in stream:
                op = kinds[type(ev)]
                for r in ev.rows:
                    rec: dict[str, Any] = {"op": op, "database": ev.schema, "table": ev.table,
                                           "file": stream.log_file, "position": ev.packet.log_pos - ev.event_size}
                    if op == "update":
                        rec["before"] = _image(r["before_values"], r["before_none_sources"], server, ev)
                        rec["after"] = _image(r["after_values"], r["after_none_sources"], server, ev)
                    elif op == "insert":
                        rec["before"], rec["after"] = None, _image(r["values"], r["none_sources"], server, ev)
                    else:
                        rec["before"], rec["after"] = _image(r["values"], r["none_sources"], server, ev), None
                    out.append(rec)
                if len(out) >= expected_changes or time.monotonic() > deadline:
                    break
        finally:
            stream.close()
    return out
