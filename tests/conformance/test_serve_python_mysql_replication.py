"""python-mysql-replication 1.0.17 reads generated runs through ``binlogwriter serve``.

For every flavor (mysql80, mysql84, mariadb1011) x row image (FULL, MINIMAL, NOBLOB): a
sysbench-shaped run with the DDL and the initial rows in the binlog (so the stream alone
rebuilds every table) and a few files, served by ``serve`` started here; the client is the
third-party library, connecting with the flavor's default auth plugin (MySQL:
caching_sha2_password, MariaDB: mysql_native_password).

- file/position start (MySQL: ``binlog.000001:4``; MariaDB: the library's own mode, first file):
  the row events, applied as a CDC consumer applies them (by primary key; with MINIMAL images
  the before image has only the key and the after image only the assigned columns, told apart
  from NULL by the library's ``none_sources`` "cols bitmap"), give exactly the generator's
  ``truth/final``; and the stream holds one GTID per transaction of the run.
- GTID start from the middle (MySQL ``uuid:1-K`` set, MariaDB ``0-1-K`` connect state): the
  transactions received are exactly those after K of the file/position stream, with their rows.
- blocking with heartbeats: after the last event the
  connection stays open and a HEARTBEAT_LOG_EVENT arrives (served as v1: the library does not
  know MySQL 8's v2 event).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent, HeartbeatLogEvent, MariadbGtidEvent
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

from binlogwriter.testing import final_files
from generators.engine import generate
from generators.spec import Spec

from .serve_process import ServeProcess

pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning")]

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
IMAGES = ("FULL", "MINIMAL", "NOBLOB")
TRANSACTIONS = 60
ROWS = (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)
GTIDS = (GtidEvent, MariadbGtidEvent)


def _generate(out: Path, flavor: str, image: str) -> Path:
    spec = Spec.from_dict(dict(workload="sysbench", tables=2, flavor=flavor, row_image=image,
                               row_metadata="FULL", seed=11, transactions=TRANSACTIONS, initial_rows=25,
                               ddl_in_binlog=True, max_binlog_size=12000, database="sb"))
    generate(spec, out)
    return out


def _present(values: dict, sources: dict) -> dict:
    return {k: v for k, v in values.items() if not (v is None and sources.get(k) == "cols bitmap")}


def read_stream(stream: BinLogStreamReader, *, until_heartbeat: bool = False) -> list[tuple[str, list]]:
    """[(gtid, [(kind, table, row)])] in stream order; stops at the end of a non-blocking dump
    or at the first heartbeat."""
    txs: list[tuple[str, list]] = []
    try:
        for ev in stream:
            if isinstance(ev, HeartbeatLogEvent):
                if until_heartbeat:
                    txs.append(("heartbeat", []))
                    break
                continue
            if isinstance(ev, GTIDS):
                txs.append((ev.gtid, []))
            elif isinstance(ev, ROWS):
                assert txs, "rows event before any GTID"
                kind = {WriteRowsEvent: "insert", UpdateRowsEvent: "update", DeleteRowsEvent: "delete"}[type(ev)]
                for r in ev.rows:
                    if kind == "update":
                        row = (_present(r["before_values"], r["before_none_sources"]),
                               _present(r["after_values"], r["after_none_sources"]))
                    else:
                        row = _present(r["values"], r["none_sources"])
                    txs[-1][1].append((kind, f"{ev.schema}.{ev.table}", row))
    finally:
        stream.close()
    return txs


def _apply(txs: list[tuple[str, list]]) -> dict[str, dict]:
    """The tables a CDC consumer ends with (keyed by the primary key ``id``)."""
    tables: dict[str, dict] = {}
    for _gtid, ops in txs:
        for kind, table, row in ops:
            t = tables.setdefault(table, {})
            if kind == "insert":
                assert row["id"] not in t, f"{table}: insert of existing id {row['id']}"
                t[row["id"]] = dict(row)
            elif kind == "delete":
                assert row["id"] in t, f"{table}: delete of missing id {row['id']}"
                del t[row["id"]]
            else:
                before, after = row
                old = t.pop(before["id"])
                old.update(after)
                t[old["id"]] = old
    return tables


def _truth(out: Path) -> dict[str, dict]:
    res = {}
    for (db, table), p in final_files(out).items():
        rows = [json.loads(line) for line in p.read_text("utf-8").splitlines()]
        res[f"{db}.{table}"] = {r["id"]: r for r in rows}
    return res


@pytest.fixture(scope="module", params=[(f, i) for f in FLAVORS for i in IMAGES],
                ids=lambda p: f"{p[0]}-{p[1]}")
def served(request, tmp_path_factory):
    flavor, image = request.param
    out = _generate(tmp_path_factory.mktemp(f"run-{flavor}-{image}") / "run", flavor, image)
    with ServeProcess([out], "--heartbeat", "1") as srv:
        yield flavor, out, srv


def _file_pos_stream(flavor: str, srv: ServeProcess, **kw) -> BinLogStreamReader:
    if flavor.startswith("mariadb"):
        return BinLogStreamReader(connection_settings=srv.settings, server_id=101, is_mariadb=True, **kw)
    return BinLogStreamReader(connection_settings=srv.settings, server_id=101, log_file="binlog.000001",
                              log_pos=4, resume_stream=True, **kw)


def test_file_position_start_gives_truth_final(served) -> None:
    flavor, out, srv = served
    txs = read_stream(_file_pos_stream(flavor, srv, blocking=False, only_events=[*ROWS, *GTIDS]))
    groups = sum(f["transactions"] for f in json.loads((out / "manifest.json").read_text())["files"])
    assert len(txs) >= TRANSACTIONS and len(txs) == groups, (len(txs), groups)
    assert len({g for g, _ in txs}) == len(txs), "a GTID came twice"
    got = _apply(txs)
    want = _truth(out)
    assert set(got) == set(want)
    for table, rows in want.items():
        assert got[table] == rows, table


def test_gtid_start_sends_only_later_transactions(served) -> None:
    flavor, out, srv = served
    full = read_stream(_file_pos_stream(flavor, srv, blocking=False, only_events=[*ROWS, *GTIDS]))
    k = len(full) * 2 // 3
    gtid = full[k - 1][0]
    if flavor.startswith("mariadb"):
        stream = BinLogStreamReader(connection_settings=srv.settings, server_id=102, is_mariadb=True,
                                    auto_position=gtid, blocking=False, only_events=[*ROWS, *GTIDS])
    else:
        uuid, gno = gtid.rsplit(":", 1)
        stream = BinLogStreamReader(connection_settings=srv.settings, server_id=102,
                                    auto_position=f"{uuid}:1-{gno}", blocking=False,
                                    only_events=[*ROWS, *GTIDS])
    assert read_stream(stream) == full[k:]


def test_blocking_dump_stays_open_with_heartbeats(served) -> None:
    flavor, out, srv = served
    stream = _file_pos_stream(flavor, srv, blocking=True, slave_heartbeat=0.3,
                              only_events=[*ROWS, *GTIDS, HeartbeatLogEvent])
    txs = read_stream(stream, until_heartbeat=True)
    assert txs[-1][0] == "heartbeat"
    assert _apply(txs[:-1]) == _truth(out)
