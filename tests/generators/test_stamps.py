"""``ON UPDATE`` / ``DEFAULT CURRENT_TIMESTAMP`` columns as the server fills them (issue #29 §1,
generators/stamps.py), over drawn tables with such columns (TIMESTAMP / DATETIME, every fsp,
each clause alone or both, ``created_at``-like names, keyless tables, ``--ddl-every``, every
row image): read back through the reader,

* every logged UPDATE's after image holds each ``ON UPDATE CURRENT_TIMESTAMP`` column (it is
  in the image whatever ``binlog_row_image``: the server marks it written) equal to the
  transaction's timestamp (the event's, whole seconds: fsp digits ``.000…``);
* every generated INSERT holds each ``DEFAULT CURRENT_TIMESTAMP`` column equal to its
  transaction's timestamp;
* a ``created_at``-like column without ``ON UPDATE``, and a ``DEFAULT CURRENT_TIMESTAMP``
  one, never changes in an UPDATE;

and the batch engine and the per-transaction reference write the same bytes (truth included).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from generators.engine import generate
from generators.spec import Spec
from generators.stamps import is_now, stamps_of
from tests.generators.conftest import generate_both, tree_digest

_CLAUSES = ("ON UPDATE", "DEFAULT", "BOTH", "CREATED")


@st.composite
def _case(draw: Any) -> dict[str, Any]:
    cols, names = [], []
    for i in range(draw(st.integers(1, 4), label="stamped columns")):
        typ = draw(st.sampled_from(["TIMESTAMP", "DATETIME"]))
        fsp = draw(st.sampled_from([None, 0, 3, 6]))
        t = typ if fsp is None else f"{typ}({fsp})"
        now = "CURRENT_TIMESTAMP" if fsp is None else draw(st.sampled_from(
            [f"CURRENT_TIMESTAMP({fsp})", f"NOW({fsp})", f"LOCALTIMESTAMP({fsp})"]))
        clause = draw(st.sampled_from(_CLAUSES))
        null = "NULL" if typ == "DATETIME" or clause == "CREATED" else "NOT NULL"
        name = "created_at" if clause == "CREATED" and "created_at" not in names else f"s{i}"
        names.append(name)
        text = {"ON UPDATE": f"{t} {null} ON UPDATE {now}", "DEFAULT": f"{t} {null} DEFAULT {now}",
                "BOTH": f"{t} {null} DEFAULT {now} ON UPDATE {now}", "CREATED": f"{t} NULL"}[clause]
        cols.append(f"{name} {text}")
    key = draw(st.sampled_from(["id INT NOT NULL PRIMARY KEY, ", ""]), label="key")
    other = draw(st.sampled_from(["v VARCHAR(3) CHARACTER SET ascii NOT NULL", "v ENUM('a','b') NOT NULL",
                                  "v BOOL NOT NULL, w VARCHAR(20) CHARACTER SET utf8mb4 NULL"]))
    ddl = f"CREATE TABLE st ({key}{other}, {', '.join(cols)});\nCREATE TABLE plain (id INT PRIMARY KEY, x INT);\n"
    return dict(workload=None, schema_sql=ddl, schema_file="s.sql", initial_rows=draw(st.integers(0, 8)),
                transactions=draw(st.integers(20, 100)), seed=draw(st.integers(0, 2**31)),
                flavor=draw(st.sampled_from(["mysql80", "mariadb1011"])),
                row_image=draw(st.sampled_from(["FULL", "MINIMAL", "NOBLOB"])),
                ddl_every=draw(st.sampled_from([0, 0, 9])), rows_query=draw(st.booleans()),
                key_dist=draw(st.sampled_from(["uniform", "latest"])), mix="insert=0.35,update=0.5,delete=0.15",
                max_binlog_size=draw(st.sampled_from([1 << 30, 16384])))


def _at(col_type: str, ts: int) -> dt.datetime:
    v = dt.datetime.fromtimestamp(ts, dt.UTC)
    return v if col_type == "TIMESTAMP" else v.replace(tzinfo=None)


def check_stamps(out: Path, table: Table) -> dict[str, int]:
    """The module docstring's rules over a run's binlogs; counts of what was checked."""
    st_ = stamps_of(table)
    on_update = {table.columns[i].name: table.columns[i].type for i in st_.on_update}
    on_insert = {table.columns[i].name: table.columns[i].type for i in st_.on_insert}
    never = {table.columns[i].name for i in st_.fixed} - set(on_update)
    seen = {"updates": 0, "inserts": 0}
    for ch in BinlogReader(sorted(out.glob("binlog.[0-9]*"))).changes():
        if ch.table != table.name:
            continue
        if ch.op == "update":
            seen["updates"] += 1
            for name, typ in on_update.items():
                assert ch.after[name] == _at(typ, ch.timestamp), (name, ch.before, ch.after)
            for name in never:
                if name in ch.after and name in (ch.before or {}):
                    assert ch.after[name] == ch.before[name], name
                else:
                    assert name not in ch.after or name in on_update, name
        elif ch.op == "insert":
            seen["inserts"] += 1
            for name, typ in on_insert.items():
                if name in ch.after:
                    assert ch.after[name] == _at(typ, ch.timestamp), (name, ch.after)
    return seen


@settings(max_examples=14, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_case())
def test_stamped_columns_hold_the_transaction_time(case, tmp_path_factory, monkeypatch) -> None:
    tmp = tmp_path_factory.mktemp("stamps")
    spec = Spec.from_dict(case)
    generate_both(spec, tmp, monkeypatch)
    assert tree_digest(tmp / "batch") == tree_digest(tmp / "per-txn")
    table = Table.from_sql(case["schema_sql"].split(";")[0], flavor=spec.flavor)
    check_stamps(tmp / "batch", table)


def test_a_run_checks_something(tmp_path: Path) -> None:
    """A fixed case that has updates and inserts of the stamped table (so the property above
    is not vacuous), the on-update column changes with the clock, and the initial rows keep
    their drawn values (truth/snapshot.sql names every value)."""
    ddl = ("CREATE TABLE st (id INT PRIMARY KEY, v VARCHAR(8) NOT NULL, created_at DATETIME NULL, "
           "c TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), "
           "u DATETIME(6) NULL DEFAULT NOW(6) ON UPDATE NOW(6));\n")
    spec = Spec.from_dict(dict(workload=None, schema_sql=ddl, schema_file="s.sql", initial_rows=10,
                               transactions=200, row_image="MINIMAL", mix="insert=0.3,update=0.6,delete=0.1"))
    generate(spec, tmp_path / "o")
    seen = check_stamps(tmp_path / "o", Table.from_sql(ddl))
    assert seen["updates"] > 50 and seen["inserts"] > 20
    snapshot = (tmp_path / "o" / "truth" / "snapshot.sql").read_text()
    assert "2026-01-01" not in snapshot  # the initial rows' times are drawn, before the run's clock


def test_clauses_read() -> None:
    t = Table.from_sql("CREATE TABLE t (a TIMESTAMP(2) NOT NULL DEFAULT CURRENT_TIMESTAMP(2) ON UPDATE "
                       "CURRENT_TIMESTAMP(2), b DATETIME DEFAULT NOW(), created_at DATETIME, c DATETIME "
                       "DEFAULT '2020-01-01 00:00:00', d INT DEFAULT 0, creation_date DATE, "
                       "created_on DATETIME ON UPDATE LOCALTIME)")
    s = stamps_of(t)
    assert s.on_update == (0, 6) and s.on_insert == (0, 1) and s.fixed == frozenset({0, 1, 2, 6})
    assert is_now("current_timestamp") and is_now("NOW( 3 )") and not is_now("'2020-01-01'") and not is_now(None)
