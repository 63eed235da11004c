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
    monkeypatch.setattr(engine, "_PER_TRANSACTION_REFERENCE", reference)  # both engine paths
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
