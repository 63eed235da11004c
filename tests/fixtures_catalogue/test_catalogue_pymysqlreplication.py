"""python-mysql-replication (pymysqlreplication 1.0.17) reads every catalogue entry (in one of
its flavors, rotating) through ``binlogwriter serve`` (it reads only from a server): the rows of every
Write/Update/Delete rows event equal the entry's truth images (columns outside the image:
None with none_source "cols bitmap"), in binlog order. Values are mapped to the library's
representation by ``expected_value`` of tests/conformance/test_python_mysql_replication.py
(documented there). Entries docs/fixtures.md names as unsupported by it are checked to fail
(in every flavor they exist in: test_documented_limits_fail_in_every_flavor).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

from binlogwriter.fixtures import ENTRIES, entry
from binlogwriter.values import ABSENT, MysqlDate, MysqlDateTime
from tests.conformance.serve_process import ServeProcess
from tests.conformance.test_python_mysql_replication import ZERO_SOURCES, expected_value, same

pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning")]

PMR = "python-mysql-replication"
# every entry once, the flavor rotating over the entry's flavors (each serve start costs about
# a second and a half; mysql-event-stream and our reader cover every entry in every flavor)
CASES = [(n, e.flavors[k % len(e.flavors)]) for k, (n, e) in enumerate(ENTRIES.items())]
ROWS = (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)
KIND = {WriteRowsEvent: "insert", UpdateRowsEvent: "update", DeleteRowsEvent: "delete"}


def _expected(table, flavor: str, image, names: bool) -> dict[str, tuple[Any, str | None]] | None:
    """{column: (value, none_source)}; without FULL metadata the library names columns
    UNKNOWN_COL0, UNKNOWN_COL1, … (the shape of ``metadata_minimal``)."""
    if image is None:
        return None
    out = {}
    for i, (c, v) in enumerate(zip(table.columns, image, strict=True)):
        out[c.name if names else f"UNKNOWN_COL{i}"] = (None, "cols bitmap") if v is ABSENT else _value(c, flavor, v)
    return out


def _value(col, flavor: str, v: Any) -> tuple[Any, str | None]:
    if col.type == "JSON" and not flavor.startswith("mariadb") and v is not None:
        return _Json(v), None
    if isinstance(v, MysqlDate | MysqlDateTime) and col.type in ("DATE", "DATETIME") and 0 in (v.year, v.month, v.day):
        return None, ZERO_SOURCES[col.type]  # any zero part: the library's "out of range" NULL
    if col.type == "TIMESTAMP" and isinstance(v, dt.datetime) and v.tzinfo is None:
        v = v.replace(tzinfo=dt.UTC)
    return expected_value(col, v)


class _Json:
    """MySQL binary JSON as pymysqlreplication gives it (keys and strings as bytes)."""

    def __init__(self, v: Any) -> None:
        self.v = v


def _json_same(want: Any, got: Any) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and len(got) == len(want) and all(
            _json_same(x, got.get(k.encode() if isinstance(k, str) else k)) for k, x in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(_json_same, want, got))
    if isinstance(want, str):
        return got in (want, want.encode())
    return got == want


def _read(srv: ServeProcess, flavor: str) -> list:
    kw: dict[str, Any] = dict(connection_settings=srv.settings, server_id=131, blocking=False,
                              only_events=list(ROWS))
    if flavor.startswith("mariadb"):
        stream = BinLogStreamReader(is_mariadb=True, **kw)
    else:
        stream = BinLogStreamReader(log_file="binlog.000001", log_pos=4, resume_stream=True, **kw)
    rows = []
    try:
        for ev in stream:
            for r in ev.rows:
                rows.append((KIND[type(ev)], f"{ev.schema}.{ev.table}", r))
    finally:
        stream.close()
    return rows


def _problems(case) -> list[str]:
    args = ["--row-image", case.settings.row_image, "--row-metadata", case.settings.row_metadata or "FULL", "-q"]
    with ServeProcess(case.files, *args) as srv:
        got = _read(srv, case.flavor)
    want = [(c.op, s.table, c.images(case.settings.row_image, case.flavor))
            for s in case.statements() for c in s.changes]
    names = (case.settings.row_metadata or "FULL") == "FULL"
    problems = [] if len(got) == len(want) else [f"decoded {len(got)} row changes, truth has {len(want)}"]
    for k, ((op, table, row), (wop, wtable, (wb, wa))) in enumerate(zip(got, want, strict=False)):
        name = f"{wtable.database}.{wtable.name}"
        if (op, table) != (wop, name):
            problems.append(f"#{k}: {op} {table}, expected {wop} {name}")
            continue
        for label, w in (("before", _expected(wtable, case.flavor, wb, names)),
                         ("after", _expected(wtable, case.flavor, wa, names))):
            if w is None:
                continue
            key = "values" if op != "update" else f"{label}_values"
            src = "none_sources" if op != "update" else f"{label}_none_sources"
            values, sources = row[key], row[src]
            if list(values) != list(w):
                problems.append(f"#{k} {label}: columns {list(values)[:8]} != {list(w)[:8]}")
                continue
            for c, (wv, wsrc) in w.items():
                gv = values[c]
                ok = _json_same(wv.v, gv) if isinstance(wv, _Json) else same(wv, gv)
                if not ok:
                    problems.append(f"#{k} {label}.{c}: decoded {gv!r:.80} ({type(gv).__name__}), wrote {wv!r:.80}")
                elif wv is None and sources.get(c) != wsrc:
                    problems.append(f"#{k} {label}.{c}: none_source {sources.get(c)!r}, expected {wsrc!r}")
    return problems


@pytest.mark.parametrize("name,flavor", CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_python_mysql_replication(tmp_path: Path, name: str, flavor: str) -> None:
    e = entry(name)
    case = e.write(tmp_path, flavor)
    try:
        problems = _problems(case)
    except Exception as exc:  # noqa: BLE001 - the library's own failure is the finding
        problems = [f"{type(exc).__name__}: {exc}"]
    reason = e.unsupported.get(PMR, "")
    if reason:
        assert problems, f"{name}: documented as unsupported by {PMR} ({reason}) but it decodes"
    else:
        assert not problems, "\n".join(problems[:20])


LIMITS = [(n, f) for n, e in ENTRIES.items() if PMR in e.unsupported for f in e.flavors]


@pytest.mark.parametrize("name,flavor", LIMITS, ids=[f"{n}-{f}" for n, f in LIMITS])
def test_documented_limits_fail_in_every_flavor(tmp_path: Path, name: str, flavor: str) -> None:
    test_python_mysql_replication(tmp_path, name, flavor)
