"""How the single-process engine writes its truth (generators/changes_truth.py, engine.py)
does not change what it writes:

* truth/changes written straight into final row groups (``ChangesRecorder(aligned=True)``)
  is byte for byte the file the merge pass (``merge_table``, what Spark does) makes of the
  same changes — also when the memory budget makes tables spill mid-run, with several
  tables and with several table definitions (``--ddl-every``);
* the batch path's truth (typed columns from the batch arrays, changes.jsonl rendered at the
  end only when the run stays small) equals the per-transaction path's at small row groups
  and at JSONL limits just below / at the run's change count, and on the typed column shapes
  of alltypes and the application schema (edge values, DDL mid-stream, MINIMAL images);
* the typed text columns built from fixed-width ASCII arrays are the canonical values of
  :meth:`ColumnArray.tolist` (property test);
* the manifest scan that steps over the batch path's known runs of events counts what a
  header-by-header walk counts, and falls back to the walk when a run does not match.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import generators.changes_arrow as ca
import generators.changes_truth as ct
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Column
from binlogwriter.values.row import ColumnArray
from generators import engine
from generators.engine import generate
from generators.spec import Spec
from generators.truth import column_renderer
from tests.generators.conftest import tree_digest

CASES = [
    dict(workload="sysbench", tables=3, size=120_000, max_binlog_size=50_000),
    dict(workload="ecommerce", flavor="mariadb1011", row_image="MINIMAL", size=100_000, initial_rows=50),
    dict(workload="alltypes", flavor="mysql84", ddl_every=20, transactions=70, initial_rows=10),
]


def _changes_files(root: Path) -> dict[str, str]:
    return {k: v for k, v in tree_digest(root).items() if k.startswith("truth/")}


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: kw["workload"])
def test_final_row_groups_equal_the_merge(kw, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(ct, "ROW_GROUP", 97)  # many row groups, boundaries inside batches
    merges: list[bool] = []  # the end of each run: merged first (else while truth/final is written)
    needs = ct.needs_merge
    monkeypatch.setattr(ct, "needs_merge", lambda res: merges.append(needs(res)) or merges[-1])
    spec = Spec.from_dict(kw)
    direct = generate(spec, tmp_path / "direct").out
    monkeypatch.setattr(ct, "HOLD_BYTES", 0)  # every table spills at once: all merged at the end
    merged = generate(spec, tmp_path / "merged").out
    assert merges == [bool(kw.get("ddl_every")), True]  # a DDL makes a second definition: a merge
    monkeypatch.setattr(ct, "HOLD_BYTES", 40_000)  # some spill mid-run, some do not
    mixed = generate(spec, tmp_path / "mixed").out
    a = _changes_files(direct)
    assert any(k.startswith("truth/changes/") and k.endswith(".parquet") for k in a)
    assert a == _changes_files(merged) == _changes_files(mixed)
    import pyarrow.parquet as pq

    for p in (direct / "truth" / "changes").glob("*.parquet"):
        md = pq.read_metadata(p)
        assert all(md.row_group(i).num_rows == 97 for i in range(md.num_row_groups - 1)), p.name


@pytest.mark.parametrize("kw", CASES[:2], ids=lambda kw: kw["workload"])
def test_batch_truth_equals_per_transaction_truth_at_the_limits(kw, tmp_path: Path, monkeypatch) -> None:
    spec = Spec.from_dict(kw)
    monkeypatch.setattr(ct, "ROW_GROUP", 64)
    monkeypatch.setattr(ct, "BATCH_ROWS", 50)
    probe = generate(spec, tmp_path / "probe").out
    m = json.loads((probe / "manifest.json").read_text())
    n = sum(v for kinds in m["totals"]["rows"].values() for v in kinds.values())
    assert n > 200
    for limit in (n, n - 1, n // 3):
        monkeypatch.setattr(ct, "JSONL_MAX_CHANGES", limit)
        got = {}
        for path in ("batch", "per-transaction"):
            monkeypatch.setattr(engine, "PER_TRANSACTION_REFERENCE", path == "per-transaction")  # test seam
            got[path] = tree_digest(generate(spec, tmp_path / f"{path}-{limit}").out)
        assert got["batch"] == got["per-transaction"], limit
        assert ("truth/changes/changes.jsonl" in got["batch"]) == (limit >= n)
    if "truth/changes/changes.jsonl" in tree_digest(probe):
        lines = (probe / "truth" / "changes" / "changes.jsonl").read_text().splitlines()
        got = [(json.loads(x)["seq"], json.loads(x)["row"]) for x in lines]
        assert len(got) == n and got[0] == (0, 0)
        # seq numbers the transactions with changes in order, row the changes inside each
        assert all(b in ((s, r + 1), (s + 1, 0)) for (s, r), b in zip(got, got[1:], strict=False))


_APP_SQL = (Path(__file__).resolve().parents[2] / "bench" / "schemas" / "app.sql").read_text()
TYPED_CASES = [
    dict(workload="alltypes", edge_values=0.3, ddl_every=20, transactions=150, initial_rows=20),
    dict(workload=None, schema_sql=_APP_SQL, schema_file="app.sql", edge_values=0.3, ddl_every=50,
         transactions=400, initial_rows=30),
    dict(workload=None, schema_sql=_APP_SQL, schema_file="app.sql", row_image="MINIMAL",
         transactions=1500, initial_rows=30),  # big enough batches for JSON documents given as columns
]


@pytest.mark.parametrize("kw", TYPED_CASES, ids=["alltypes-edge-ddl", "app-edge-ddl", "app-minimal"])
def test_batch_truth_equals_per_transaction_truth_on_typed_columns(kw, tmp_path: Path, monkeypatch) -> None:
    """The batch path's typed columns (JSON documents as columns, value lists typed without
    text, pools, float arrays, zero dates, wide tables, DDL mid-stream, edge values) give the
    per-transaction path's truth (canonical text per value, parsed back), JSONL included."""
    monkeypatch.setattr(ct, "ROW_GROUP", 64)
    spec = Spec.from_dict(kw)
    got = {}
    for path in ("batch", "per-transaction"):
        monkeypatch.setattr(engine, "PER_TRANSACTION_REFERENCE", path == "per-transaction")  # test seam
        got[path] = tree_digest(generate(spec, tmp_path / path).out)
    assert "truth/changes/changes.jsonl" in got["batch"]
    assert got["batch"] == got["per-transaction"]


def test_spilled_tables_go_on_in_ipc_chunks(tmp_path: Path, monkeypatch) -> None:
    """A table that spills after writing final row groups keeps them as a Parquet chunk and
    goes on in an Arrow IPC chunk (``_Segment.spill``); the merge of both is the file written
    straight into row groups. The application schema: a 100-column table, JSON, utf8mb4 text,
    a keyless table, DDL mid-stream."""
    monkeypatch.setattr(ct, "ROW_GROUP", 53)
    spec = Spec.from_dict(dict(workload=None, schema_sql=_APP_SQL, schema_file="app.sql", edge_values=0.2,
                               ddl_every=120, transactions=500, initial_rows=20, charset_stress=0.5))
    direct = _changes_files(generate(spec, tmp_path / "direct").out)
    merged: list[list[str]] = []
    real_merge = ct.merge_table

    def merge(chunks, *a, **k):
        merged.append([Path(c).name for c in chunks])
        return real_merge(chunks, *a, **k)
    monkeypatch.setattr(ct, "merge_table", merge)
    monkeypatch.setattr(ct, "HOLD_BYTES", 700_000)
    spilled = _changes_files(generate(spec, tmp_path / "spilled").out)
    # one segment's row groups, then its IPC chunk
    assert any(f"{Path(a).stem}.arrow" == b
               for names in merged for a, b in zip(names, names[1:], strict=False)), merged
    assert spilled == direct


_ASCII = st.sampled_from([0, 32, 48, 57, 97, 45, 126])


@settings(max_examples=60, deadline=None)
@given(data=st.integers(0, 12).flatmap(lambda w: hnp.arrays(np.uint8, st.tuples(st.integers(0, 9), st.just(w)),
                                                             elements=_ASCII)),
       typ=st.sampled_from(["CHAR", "VARCHAR"]), null_seed=st.integers(0, 3))
def test_ascii_columns_are_their_canonical_values(data: np.ndarray, typ: str, null_seed: int) -> None:
    n = data.shape[0]
    nulls = None if null_seed == 0 else (np.arange(n) % (null_seed + 1) == 0)
    col = Column("c", typ, length=12, nullable=True)
    values = ColumnArray("ascii", data, nulls)
    arr, texts = ca.typed_array(col, "mysql80", values)
    render = column_renderer(col, "mysql80")
    assert texts == {}
    assert arr.type == pa.string()
    assert arr.to_pylist() == [None if v is None else render(v) for v in values.tolist()]


def test_scan_steps_over_known_runs_and_checks_them(tmp_path: Path, monkeypatch) -> None:
    from generators import engine

    spans_of = {}
    orig = engine.scan_binlog_file

    def spy(path, fmt, spans=None, sha256=None):
        spans_of[path.name] = spans
        got = orig(path, fmt, spans, sha256)
        assert sha256 is None or got == orig(path, fmt, spans)  # the digest computed beside the scan
        return got
    monkeypatch.setattr(engine, "scan_binlog_file", spy)
    out = generate(Spec.from_dict(dict(workload="sysbench", size=150_000, max_binlog_size=40_000, ddl_every=50)),
                   tmp_path / "r").out
    fmt = BinlogFormat.preset("mysql80", checksum="CRC32")
    assert any(spans_of.values())
    for name, spans in spans_of.items():
        walked = orig(out / name, fmt)
        assert orig(out / name, fmt, spans) == walked
        if spans:
            bad = [(a, b, c + 1, d) for a, b, c, d in spans[:1]] + spans[1:]  # a wrong count is not checked...
            assert orig(out / name, fmt, bad)["events"] == walked["events"] + 1
            moved = [(a, b, c, d + 1) for a, b, c, d in spans]  # ...a wrong last event is: walked
            assert orig(out / name, fmt, moved) == walked
