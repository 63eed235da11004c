"""Catalogue entries read by third-party software (docs/fixtures.md "Who reads what").

- mysql-event-stream (C++ decoder, reads bytes) decodes every entry in every flavor to its
  truth (images mapped to the engine's representation by the helpers of
  tests/conformance/test_mysql_event_stream.py). Entries the doc names as unsupported by it are
  checked to fail there — so the doc's claim is tested, not assumed.
- MariaDB 10.11: every entry that exists for mariadb1011 is replayed
  (``mariadb-binlog | mariadb``) into a real server and each table's rows equal the truth's
  final rows (canonical forms of tests/conformance/catalogue.py); so are binlogs drawn by
  ``binlogwriter.strategies.binlogs("mariadb1011")``.

python-mysql-replication reads only from a server: it reads the catalogue through
``binlogwriter serve`` in test_catalogue_pymysqlreplication.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mysql_event_stream import DecodeError, EventType, ParseError

from binlogwriter.fixtures import ENTRIES, entry
from binlogwriter.strategies import binlogs, tables
from binlogwriter.values import ABSENT
from tests.conformance.catalogue import canonical_value, sort_key
from tests.conformance.test_mysql_event_stream import expected_mes, mes_events, same

pytestmark = pytest.mark.conformance

MES = "mysql-event-stream"
CASES = [(n, f) for n, e in ENTRIES.items() for f in (e.flavors[:1] if e.large else e.flavors)]
MARIADB = [n for n, e in ENTRIES.items() if "mariadb1011" in e.flavors and "mariadb replay" not in e.unsupported]
_KIND = {"insert": "INSERT", "update": "UPDATE", "delete": "DELETE"}


def _image(table, flavor: str, row, names: bool) -> dict | None:
    """The engine's dict: column names when FULL metadata gives them, else positions "0", "1", …"""
    if row is None:
        return None
    return {(c.name if names else str(i)): expected_mes(c, flavor, v)
            for i, (c, v) in enumerate(zip(table.columns, row, strict=True)) if v is not ABSENT}


def _partial_update_or_delete(case) -> bool:
    return any(c.op != "insert" and any(img is not None and ABSENT in img
                                        for img in c.images(case.settings.row_image, case.flavor))
               for s in case.statements() for c in s.changes)


def _mes_problems(case) -> list[str]:
    got = mes_events(case.files)
    want = []
    names = case.settings.row_metadata == "FULL"
    for s in case.statements():
        for c in s.changes:
            before, after = c.images(case.settings.row_image, case.flavor)
            want.append((_KIND[c.op], s.table, _image(s.table, case.flavor, before, names),
                         _image(s.table, case.flavor, after, names)))
    problems = [] if len(got) == len(want) else [f"engine saw {len(got)} row changes, truth has {len(want)}"]
    for k, (e, (kind, table, before, after)) in enumerate(zip(got, want, strict=False)):
        if e.type != EventType[kind] or e.table != table.name or e.database != table.database:
            problems.append(f"#{k}: {e.type} {e.database}.{e.table}, expected {kind} {table.name}")
            continue
        for label, g, w in (("before", e.before, before), ("after", e.after, after)):
            if w is None:
                if g is not None:
                    problems.append(f"#{k} {label}: expected no image, got {g}")
                continue
            if g is None or set(g) != set(w):
                problems.append(f"#{k} {label}: columns {sorted(g or {})} != {sorted(w)}")
                continue
            problems += [f"#{k} {label}.{c}: engine {g[c]!r:.100} != truth {wv!r:.100}"
                         for c, wv in w.items() if not same(wv, g[c])]
    return problems


@pytest.mark.parametrize("name,flavor", CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_mysql_event_stream(tmp_path: Path, name: str, flavor: str) -> None:
    e = entry(name)
    case = e.write(tmp_path, flavor)
    try:
        problems = _mes_problems(case)
    except (DecodeError, ParseError) as exc:
        problems = [f"{type(exc).__name__}: {exc}"]
    reason = e.unsupported.get(MES, "")
    # the partial-image limit bites only where an UPDATE/DELETE image is partial (MariaDB logs
    # full images for a table without a key)
    if reason and (not reason.startswith("fails on UPDATE/DELETE") or _partial_update_or_delete(case)):
        assert problems, f"{name}: documented as unsupported by {MES} ({e.unsupported[MES]}) but it decodes"
    else:
        assert not problems, "\n".join(problems[:20])


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    from tests.conformance.mariadb import MariaDBServer

    s = MariaDBServer(mariadb_template, row_metadata="FULL").start()
    yield s
    s.stop()


@pytest.mark.parametrize("name", MARIADB)
def test_mariadb_replay(tmp_path: Path, server, name: str) -> None:
    case = entry(name).write(tmp_path, "mariadb1011")
    server.execute("DROP DATABASE IF EXISTS fx")
    server.replay(case.files)
    problems = []
    tables = {f"{t.database}.{t.name}": t for t in case.tables}
    for tx in case.transactions:  # the table as it is at the end (after any ALTER)
        if hasattr(tx, "sql"):
            tables[f"{tx.table.database}.{tx.table.name}"] = tx.table
    for key, rows in case.rows.items():
        t = tables[key]
        want = sorted((tuple(canonical_value(c, v) for c, v in zip(t.columns, r, strict=True)) for r in rows),
                      key=sort_key)
        got = server.dump_table(t.database, t.name)
        if got != want:
            problems.append(f"{key}: server has {got!r:.600}\n  truth {want!r:.600}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------- the strategies are valid for a real server

@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_drawn_binlogs_replay_into_mariadb_to_their_truth(server, tmp_path_factory, data) -> None:
    """binlogwriter.strategies.binlogs("mariadb1011"): what it draws is what a server accepts —
    keys never collide, updates and deletes find their rows, every value is storable — and
    the server ends with exactly the truth's rows."""
    # narrow tables: a drawn wide table (60-1,017 columns) is one InnoDB creates, but its rows can
    # pass InnoDB's 8,126-byte in-row limit (ERROR 1118 at INSERT); wide tables are replayed with
    # rows the server stores by tests/conformance/test_wide_tables_replay.py
    case = data.draw(binlogs("mariadb1011", directory=tmp_path_factory.mktemp("drawn"),
                             table_strategy=tables("mariadb1011", max_columns=8)), label="binlogs")
    with case:
        server.execute("DROP DATABASE IF EXISTS db")
        server.replay(case.files)
        for t in case.tables:
            want = sorted((tuple(canonical_value(c, v) for c, v in zip(t.columns, r, strict=True))
                           for r in case.rows[f"{t.database}.{t.name}"]), key=sort_key)
            got = server.dump_table(t.database, t.name)
            assert got == want, f"{t.name}: server {got!r:.800}\ntruth {want!r:.800}"
