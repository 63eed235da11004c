"""Generated workloads follow a real server's logging rules (issue #29 §1/§4), read back
from the written binlogs with binlogwriter's reader (tests/generators/binlog_shape.py):

* sysbench's ``oltp_write_only`` as oltp_write_only.lua sends it: per transaction
  ``UPDATE … SET k=k+1 WHERE id=?``, ``UPDATE … SET c=? WHERE id=?``, ``DELETE … WHERE
  id=?`` and ``INSERT`` of that id, each its own statement (a Table_map before each rows
  event, one row per event: ``M U1 M U1 M D1 M W1``); the index update changes ``k`` only,
  by exactly +1; the non-index update ``c`` only; no UPDATE logs an unchanged row;
  the rows-query texts are those statements;
* for every flavor, row image and metadata mode, both engine paths.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.reader import BinlogReader
from generators import engine
from generators.engine import generate
from generators.spec import Spec

from .binlog_shape import changed_columns, transactions, unchanged_updates

WRITE_ONLY = ["M", "U1", "M", "U1", "M", "D1", "M", "W1"]


def check_write_only(txns: list, image: str) -> None:
    """Every transaction has oltp_write_only's shape and column changes (module docstring)."""
    assert txns
    for t in txns:
        assert t.events == WRITE_ONLY, (t.gtid, t.events)
        ops = [c.op for c in t.changes]
        assert ops == ["update", "update", "delete", "insert"], (t.gtid, ops)
        k_upd, c_upd, dele, ins = t.changes
        assert changed_columns(k_upd) == {"k"}, (t.gtid, k_upd)
        assert changed_columns(c_upd) == {"c"}, (t.gtid, c_upd)
        if image != "MINIMAL":
            assert k_upd.after["k"] == k_upd.before["k"] + 1, (t.gtid, k_upd)
        assert dele.before["id"] == ins.after["id"]
    assert unchanged_updates(txns) == []


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flavor=st.sampled_from(["mysql80", "mysql84", "mariadb1011"]),
       image=st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]),
       metadata=st.sampled_from(["FULL", "MINIMAL"]),
       seed=st.integers(0, 2**31), tables=st.integers(1, 3), initial=st.integers(1, 20),
       transactions_=st.integers(1, 60), rows_query=st.booleans(), reference=st.booleans(),
       ddl_every=st.sampled_from([0, 0, 7]))
def test_sysbench_follows_oltp_write_only(flavor, image, metadata, seed, tables, initial, transactions_,
                                          rows_query, reference, ddl_every, monkeypatch) -> None:
    monkeypatch.setattr(engine, "PER_TRANSACTION_REFERENCE", reference)  # both engine paths
    # column names come from FULL metadata; with MINIMAL the reader is given the schemas
    spec = Spec.from_dict(dict(workload="sysbench", flavor=flavor, row_image=image, row_metadata="FULL",
                               seed=seed, tables=tables, initial_rows=initial, transactions=transactions_,
                               rows_query=rows_query, ddl_every=ddl_every))
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "run"
        generate(spec, out)
        files = sorted(out.glob("binlog.[0-9]*"))
        txns = transactions(files)
        check_write_only(txns, image)
        if rows_query:
            texts = [ev.query for ev in BinlogReader(files) if hasattr(ev, "query")
                     and type(ev).__name__ in ("AnnotateRowsEvent", "RowsQueryEvent")]
            pat = re.compile(r"UPDATE sbtest\d+ SET k=k\+1 WHERE id=\d+|UPDATE sbtest\d+ SET c='[-0-9]+' WHERE id=\d+|"
                             r"DELETE FROM sbtest\d+ WHERE id=\d+|"
                             r"INSERT INTO sbtest\d+ \(id, k, c, pad(, ddl_\d+)?\) VALUES \(\d+, \d+, '[-0-9]+', '[-0-9]+'(, .*)?\)")
            assert len(texts) == 4 * len(txns)
            for q in texts:
                assert pat.fullmatch(q), q
    del metadata  # metadata mode: FULL only here (the reader names columns from it)


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
@pytest.mark.parametrize("initial", [1, 2, 7])
def test_sysbench_initial_rows_in_the_binlog_are_bulk_inserts(tmp_path: Path, flavor: str, initial: int) -> None:
    """``--ddl-in-binlog`` with rows-query texts: the initial rows go in INSERTs of several
    rows (``sysbench prepare``'s bulk INSERT); each text lists the rows its rows event
    writes, in order (once a ValueError: oltp_write_only's text took one row only)."""
    spec = Spec.from_dict(dict(workload="sysbench", flavor=flavor, row_metadata="FULL", seed=3, tables=1,
                               initial_rows=initial, transactions=2, rows_query=True, ddl_in_binlog=True))
    generate(spec, tmp_path / "run")
    files = sorted((tmp_path / "run").glob("binlog.[0-9]*"))
    texts, rows = [], []
    for ev in BinlogReader(files):
        name = type(ev).__name__
        if name in ("AnnotateRowsEvent", "RowsQueryEvent"):
            texts.append(ev.query)
        elif name.startswith("WriteRows") and len(texts) == 1:
            rows += ev.rows
        elif name.startswith("WriteRows") and not texts:
            raise AssertionError("a rows event without its text")
        if len(texts) == 1 and name == "XidEvent":
            break
    values = ", ".join(f"({r[0]}, {r[1]}, '{r[2]}', '{r[3]}')" for r in rows)  # id, k, c, pad
    assert [r[0] for r in rows] == list(range(1, initial + 1))
    assert texts == [f"INSERT INTO sbtest1 (id, k, c, pad) VALUES {values}"]


@pytest.mark.parametrize("size", [20, 3])
def test_sysbench_k_is_counted_per_key(tmp_path: Path, size: int) -> None:
    """A key updated many times (a tiny table: every transaction hits the same few ids) has
    ``k`` going up by one at each index update, across DELETE + INSERT incarnations the new
    row's ``k`` starts again from its insert — the server's ``k=k+1`` on the row it finds."""
    spec = Spec.from_dict(dict(workload="sysbench", flavor="mariadb1011", seed=4, tables=1, initial_rows=size,
                               transactions=300))
    generate(spec, tmp_path / "run")
    txns = transactions(sorted((tmp_path / "run").glob("binlog.[0-9]*")))
    check_write_only(txns, "FULL")
    last: dict[int, dict] = {}
    for t in txns:
        for ch in t.changes:  # each change's before image is the row the previous change left
            key = (ch.before or ch.after)["id"]
            if ch.op != "insert" and key in last:
                assert ch.before == last[key], (t.gtid, ch)
            last[key] = ch.after if ch.op != "delete" else None
            if ch.op == "delete":
                del last[key]


_APP_DDL = """
CREATE TABLE accounts (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(30) CHARACTER SET utf8mb4,
  flag TINYINT(1), amount DECIMAL(8,2));
CREATE TABLE lines (a INT NOT NULL, b SMALLINT NOT NULL, note VARCHAR(20), PRIMARY KEY (a, b));
CREATE TABLE logs (ts DATETIME, msg VARCHAR(20));
"""


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(workload=st.sampled_from(["custom", "sysbench", "ecommerce", "alltypes"]),
       mix=st.sampled_from([None, "insert=0.2,update=0.4,delete=0.4", "update=0.5,delete=0.5",
                            "insert=0.05,delete=0.95"]),
       initial=st.integers(0, 6), n=st.integers(1, 80), seed=st.integers(0, 2**31),
       reference=st.booleans(), ddl_every=st.sampled_from([0, 5]),
       flavor=st.sampled_from(["mysql80", "mysql84", "mariadb1011"]))
def test_transactions_n_writes_exactly_n(workload, mix, initial, n, seed, reference, ddl_every, flavor,
                                         monkeypatch) -> None:
    """``--transactions N`` writes exactly N transactions with rows, even when planned
    transactions find nothing to change (deletes of deleted keys, updates of an empty table):
    counted in the binlogs read back, and the manifest's totals agree."""
    monkeypatch.setattr(engine, "PER_TRANSACTION_REFERENCE", reference)
    d = dict(flavor=flavor, seed=seed, initial_rows=initial, transactions=n, ddl_every=ddl_every, mix=mix)
    if workload == "custom":
        d.update(workload=None, schema_sql=_APP_DDL, schema_file="app.sql", database="app")
    else:
        d.update(workload=workload)
    if workload == "ecommerce":
        d["initial_rows"] = max(1, initial)  # orders refer to existing customers and products
    spec = Spec.from_dict(d)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        try:
            generate(spec, out)
        except Exception as e:  # a workload that can never change a row is refused, naming the option
            # (nothing to change from the start, or a mix without INSERTs that has deleted every row)
            assert "--transactions" in str(e) and (initial == 0 or (mix is not None and "insert" not in mix)), e
            return
        files = sorted(out.glob("binlog.[0-9]*"))
        txns = transactions(files)
        assert len(txns) == n
        import json
        totals = json.loads((out / "manifest.json").read_text())["totals"]
        assert totals["planned_transactions"] >= n


_AUTO_DDL = """
CREATE TABLE orders (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, who VARCHAR(20) CHARACTER SET utf8mb4,
  total DECIMAL(10,2), state ENUM('new','paid','sent'));
CREATE TABLE notes (n INT NOT NULL AUTO_INCREMENT, body TEXT, PRIMARY KEY (n));
"""


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(initial=st.integers(0, 8), n=st.integers(1, 120), seed=st.integers(0, 2**31), reference=st.booleans(),
       mix=st.sampled_from([None, "insert=0.5,delete=0.5", "insert=0.3,update=0.3,delete=0.4"]))
def test_auto_increment_keys_are_the_servers_sequence(initial, n, seed, reference, mix, monkeypatch) -> None:
    """An AUTO_INCREMENT key is what a server hands out (auto_increment_increment 1): the
    initial rows 1..initial_rows, then every INSERT max + 1 — increasing, never a key used
    before, even after its row was deleted."""
    monkeypatch.setattr(engine, "PER_TRANSACTION_REFERENCE", reference)
    spec = Spec.from_dict(dict(workload=None, schema_sql=_AUTO_DDL, schema_file="a.sql", database="a", seed=seed,
                               initial_rows=initial, transactions=n, mix=mix, flavor="mariadb1011"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        generate(spec, out)
        txns = transactions(sorted(out.glob("binlog.[0-9]*")))
    top = {"orders": initial, "notes": initial}
    col = {"orders": "id", "notes": "n"}
    for t in txns:
        for ch in t.changes:
            if ch.op == "insert":
                got = ch.after[col[ch.table]]
                assert got == top[ch.table] + 1, (ch.table, got, top[ch.table])
                top[ch.table] = got


_GEO_DDL = """
CREATE TABLE places (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20),
  loc POINT NOT NULL SRID 4326, area GEOMETRY NULL, `edge` LINESTRING SRID 3857 NULL);
CREATE TABLE zones (z POLYGON NOT NULL SRID 2154, note TEXT);
"""


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), reference=st.booleans(), image=st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]),
       flavor=st.sampled_from(["mysql80", "mysql84", "mariadb1011"]))
def test_spatial_values_keep_the_columns_srid(seed, reference, image, flavor, monkeypatch) -> None:
    """A spatial column declared with an SRID (``POINT NOT NULL SRID 4326``) has that SRID in every value of the binlogs and of snapshot.sql
    (``ST_GeomFromWKB(…, 4326)``); a column without one keeps SRID 0."""
    monkeypatch.setattr(engine, "PER_TRANSACTION_REFERENCE", reference)
    spec = Spec.from_dict(dict(workload=None, schema_sql=_GEO_DDL, schema_file="g.sql", database="g", seed=seed,
                               initial_rows=4, transactions=40, flavor=flavor, row_image=image))
    want = {"loc": 4326, "area": 0, "edge": 3857, "z": 2154}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        generate(spec, out)
        txns = transactions(sorted(out.glob("binlog.[0-9]*")))
        snapshot = (out / "truth" / "snapshot.sql").read_text()
    seen = set()
    for t in txns:
        for ch in t.changes:
            for img in (ch.before, ch.after):
                for c, v in (img or {}).items():
                    if c in want and v is not None:
                        assert v.srid == want[c], (ch.table, c, v.srid)
                        seen.add(c)
    assert seen
    srids = [int(x) for x in re.findall(r"ST_GeomFromWKB\(X'[0-9a-f]*', (\d+)\)", snapshot)]
    assert sorted(set(srids)) == [0, 2154, 3857, 4326]
