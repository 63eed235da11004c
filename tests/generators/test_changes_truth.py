"""truth/changes (docs/output.md "Change-stream truth") equals what our reader decodes.

The truth is recorded by the generator from what it applied and where the writer placed
each group; the expected side here is :meth:`BinlogReader.changes` over the written files,
an independent path (bytes -> frames -> row decoders), compared in canonical form by
:func:`binlogwriter.testing.assert_matches_truth`: op, table, GTID, file, rows-event
position, row in the event, timestamp and both images column by column.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.reader import BinlogReader
from binlogwriter.testing import MODEL_FIELDS, assert_matches_truth, truth_changes, truth_file
from generators.engine import Run, generate
from generators.spec import Spec

CUSTOM = """
CREATE TABLE acct (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, region CHAR(3) NOT NULL,
  big BIGINT UNSIGNED, d65 DECIMAL(65,30), d38 DECIMAL(38,10) NOT NULL, d20 DECIMAL(20,0) UNSIGNED,
  kind ENUM('a','b','c'), tags SET('x','y','z'), note TEXT, blobby BLOB, born DATE, seen DATETIME(6),
  at TIMESTAMP(3) NULL, dur TIME(2), f FLOAT, y YEAR, bits BIT(13), j JSON);
CREATE TABLE nokey (a INT, b VARCHAR(20) CHARACTER SET latin1, c MEDIUMINT UNSIGNED);
CREATE TABLE composite (a INT NOT NULL, b VARCHAR(8) NOT NULL, v DOUBLE, w VARBINARY(16),
  PRIMARY KEY (a, b));
"""

CASES = {
    "sysbench-mysql80-full-minmeta-rotation": dict(workload="sysbench", flavor="mysql80", row_metadata="MINIMAL",
                                                   max_binlog_size="4K", tables=2),
    "sysbench-mysql84-minimal-gtid-nocrc": dict(workload="sysbench", flavor="mysql84", row_image="MINIMAL",
                                                gtid="3e11fa47-71ca-11e1-9e33-c80aa9429562", checksum="NONE"),
    "ecommerce-mariadb-noblob-nolog-split": dict(workload="ecommerce", flavor="mariadb1011", row_image="NOBLOB",
                                                 row_metadata="NO_LOG", rows_query=True,
                                                 row_event_max_size="1K"),
    "ecommerce-mysql80-minimal-ddl-in-binlog": dict(workload="ecommerce", flavor="mysql80", row_image="MINIMAL",
                                                    ddl_every=4, ddl_in_binlog=True, max_binlog_size="4K"),
    "alltypes-mysql84-noblob-compressed-tagged": dict(workload="alltypes", flavor="mysql84", row_image="NOBLOB",
                                                      transaction_compression=True,
                                                      gtid="3e11fa47-71ca-11e1-9e33-c80aa9429562:tg"),
    "alltypes-mariadb-minimal-ddl-rotation": dict(workload="alltypes", flavor="mariadb1011", row_image="MINIMAL",
                                                  ddl_every=3, max_binlog_size="4K", gtid="5"),
    "alltypes-mysql80-full-minmeta-split-nocrc": dict(workload="alltypes", flavor="mysql80", row_metadata="MINIMAL",
                                                      row_event_max_size="1K", checksum="NONE"),
    "custom-mariadb-minimal": dict(workload=None, schema_sql=CUSTOM, flavor="mariadb1011", row_image="MINIMAL",
                                   row_metadata="MINIMAL"),
    "custom-mysql80-noblob-ddl": dict(workload=None, schema_sql=CUSTOM, flavor="mysql80", row_image="NOBLOB",
                                      ddl_every=5, max_binlog_size="8K", rows_query=True),
}


def _spec(**kw) -> Spec:
    return Spec.from_dict({"transactions": 30, "initial_rows": 8, "seed": 5, **kw})


def _reader(out: Path, spec: Spec) -> BinlogReader:
    """The reader, given the initial table definitions when the Table_maps lack names."""
    files = sorted(out.glob(f"{spec.basename}.0*"))
    if spec.row_metadata == "FULL":
        return BinlogReader(files)
    return BinlogReader(files, schemas=[rt.table for rt in Run(spec, out).rows])


def _check(out: Path, spec: Spec) -> int:
    n = assert_matches_truth(_reader(out, spec).changes(), out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert n == sum(sum(k.values()) for k in manifest["totals"]["rows"].values())
    return n


@pytest.mark.parametrize("case", list(CASES))
def test_truth_changes_equal_reader(tmp_path: Path, case: str) -> None:
    spec = _spec(**CASES[case])
    out = generate(spec, tmp_path / "run").out
    n = _check(out, spec)
    assert n > 30
    # the JSONL holds the same changes as the Parquet files, in the same order
    lines = [json.loads(x) for x in (out / "truth" / "changes" / "changes.jsonl").read_text("utf-8").splitlines()]
    parquet = list(truth_changes(out))
    assert len(lines) == n == len(parquet)
    # the change model (docs/output.md): the same keys in both, and the same values
    assert all(tuple(x) == MODEL_FIELDS for x in lines)
    assert lines == parquet
    # seq numbers the transactions 0, 1, 2, ...; row the changes inside each from 0
    want_seq, want_row, prev = 0, 0, None
    for x in lines:
        if prev is not None and x["seq"] != prev["seq"]:
            want_seq, want_row = want_seq + 1, 0
            assert (x["file"], x["transaction_position"]) != (prev["file"], prev["transaction_position"])
        assert (x["seq"], x["row"]) == (want_seq, want_row)
        want_row += 1
        prev = x
        assert isinstance(x["xid"], int) and x["xid"] > 0  # every generated transaction ends with an XID


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), flavor=st.sampled_from(["mysql80", "mysql84", "mariadb1011"]),
       image=st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), workload=st.sampled_from(["sysbench", "alltypes"]),
       event_max=st.sampled_from(["1K", "2K", "8K"]), checksum=st.sampled_from(["CRC32", "NONE"]))
def test_truth_changes_property(tmp_path_factory, seed: int, flavor: str, image: str, workload: str,
                                event_max: str, checksum: str) -> None:
    spec = _spec(workload=workload, flavor=flavor, row_image=image, seed=seed, row_event_max_size=event_max,
                 checksum=checksum, transactions=12, initial_rows=4, ddl_every=5, max_binlog_size="4K")
    out = generate(spec, tmp_path_factory.mktemp("prop") / "run").out
    _check(out, spec)


def test_a_wrong_stream_gets_a_readable_diff(tmp_path: Path) -> None:
    spec = _spec(workload="sysbench", row_image="MINIMAL")
    out = generate(spec, tmp_path / "run").out
    changes = list(_reader(out, spec).changes())
    k = next(i for i, c in enumerate(changes) if c.op == "update")
    col = next(iter(changes[k].after))
    changes[k].after = {**changes[k].after, col: -1}
    changes[k + 1].before = {**(changes[k + 1].before or {}), "nosuch": 1}
    with pytest.raises(AssertionError) as ei:
        assert_matches_truth(changes, out)
    msg = str(ei.value)
    truth = list(truth_changes(out))
    assert f"change #{k} seq {truth[k]['seq']} test.sbtest1 row {truth[k]['row']}" in msg
    assert f"after column {col}: decoded -1 [int], truth " in msg
    assert "before column nosuch: decoded 1 [int], not in the truth's image" in msg
    assert "by kind: column value 1, extra column 1" in msg
    with pytest.raises(AssertionError, match=r"by kind: column value 1, extra column 1, missing change 1\n"
                       r"(.*\n){2}  change #\d+ seq \d+ test\.sbtest1 row \d+: not decoded: "):
        assert_matches_truth(changes[:-1], out)


def test_decimal_and_uint64_survive_pandas(tmp_path: Path) -> None:
    """Typed columns, not JSON numbers: every DECIMAL and BIGINT UNSIGNED value of the
    alltypes workload (edge values included: 2^64-1, DECIMAL(65,30) maxima) loads into pandas
    (``dtype_backend="pyarrow"``, docs/output.md) equal to its canonical text in the JSONL."""
    import pandas as pd
    import pyarrow as pa

    spec = _spec(workload="alltypes", flavor="mysql80", transactions=40)
    out = generate(spec, tmp_path / "run").out
    lines = [json.loads(x) for x in (out / "truth" / "changes" / "changes.jsonl").read_text("utf-8").splitlines()]
    big = deep = 0
    for path in sorted((out / "truth" / "changes").glob("*.parquet")):
        schema = pq.read_schema(path)
        struct = schema.field("after").type
        exact = [f.name for f in struct if pa.types.is_decimal(f.type) or f.type == pa.uint64()]
        df = pd.read_parquet(path, dtype_backend="pyarrow")
        want = [x for x in lines if truth_file(x["database"], x["table"], ".parquet") == path.name]
        assert len(df) == len(want) and list(df["seq"]) == [w["seq"] for w in want]
        for side in ("before", "after"):
            for c in exact:
                series = df[side].struct.field(c)
                assert str(series.dtype).startswith(("uint64", "decimal")), series.dtype
                for got, w in zip(series, want, strict=True):
                    exp = None if w[side] is None else w[side][c]
                    if exp is None:
                        assert pd.isna(got)
                    elif isinstance(exp, int):
                        assert isinstance(got, int) and got == exp, (c, got, exp)
                        big += exp > 2**53
                    else:
                        assert isinstance(got, Decimal) and format(got, "f") == exp, (c, got, exp)
                        deep += len(exp.replace("-", "").replace(".", "").lstrip("0")) > 17
    assert big and deep, "the run must hold values a float64 cannot represent"
    # the final state's typed Parquet too
    for path in sorted((out / "truth" / "final" / "parquet").glob("*.parquet")):
        df = pd.read_parquet(path, dtype_backend="pyarrow")
        rows = [json.loads(x) for x in (out / "truth" / "final" / (path.name[:-8] + ".jsonl")).read_text().splitlines()]
        assert len(df) == len(rows)
        for c in df.columns:
            if str(df[c].dtype).startswith(("uint64", "decimal")):
                got = [None if pd.isna(v) else v if isinstance(v, int) else format(v, "f") for v in df[c]]
                assert got == [r[c] for r in rows], (path.name, c)


def test_manifest_lists_column_types(tmp_path: Path) -> None:
    spec = _spec(workload=None, schema_sql=CUSTOM, flavor="mariadb1011", transactions=5)
    out = generate(spec, tmp_path / "run").out
    tables = {t["name"]: t for t in json.loads((out / "manifest.json").read_text())["tables"]}
    cols = {c["name"]: c for c in tables["acct"]["column_types"]}
    assert [c["name"] for c in tables["acct"]["column_types"]] == tables["acct"]["columns"]
    assert (cols["big"]["type"], cols["big"]["unsigned"], cols["big"]["arrow_type"]) == ("BIGINT", True, "uint64")
    assert (cols["d65"]["precision"], cols["d65"]["scale"], cols["d65"]["arrow_type"]) == \
        (65, 30, "decimal256(65, 30)")
    assert cols["d38"]["arrow_type"] == "decimal128(38, 10)" and cols["d38"]["nullable"] is False
    assert cols["kind"]["members"] == ["a", "b", "c"]
    assert {c["name"]: c.get("charset") for c in tables["nokey"]["column_types"]} == \
        {"a": None, "b": "latin1", "c": None}
    assert cols["at"]["arrow_type"] == "timestamp[us, tz=UTC]" and cols["dur"]["arrow_type"] == "duration[us]"


def test_jsonl_only_for_small_runs(tmp_path: Path, monkeypatch) -> None:
    """changes.jsonl is written iff the run has at most JSONL_MAX_CHANGES changes; the
    Parquet truth is complete either way (written in row groups, small batches here)."""
    import generators.changes_truth as ct

    spec = _spec(workload="sysbench", transactions=20)
    small = generate(spec, tmp_path / "small").out
    n = sum(1 for _ in (small / "truth" / "changes" / "changes.jsonl").open())
    monkeypatch.setattr(ct, "JSONL_MAX_CHANGES", n)
    monkeypatch.setattr(ct, "BATCH_ROWS", 7)
    monkeypatch.setattr(ct, "ROW_GROUP", 16)
    same = generate(spec, tmp_path / "same").out
    assert (same / "truth" / "changes" / "changes.jsonl").read_bytes() == \
        (small / "truth" / "changes" / "changes.jsonl").read_bytes()
    monkeypatch.setattr(ct, "JSONL_MAX_CHANGES", n - 1)
    big = generate(spec, tmp_path / "big").out
    assert sorted(p.name for p in (big / "truth" / "changes").iterdir()) == ["test.sbtest1.parquet"]
    small_lines = [json.loads(x) for x in (small / "truth" / "changes" / "changes.jsonl").open(encoding="utf-8")]
    assert list(truth_changes(big)) == small_lines
    assert_matches_truth(_reader(big, spec).changes(), big)
