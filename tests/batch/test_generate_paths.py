"""The batch generation path (generators/batch.py + binlogwriter/batch/columnar.py) writes
exactly what the per-transaction path writes: every file of the run (binlogs byte for
byte, truth, manifest) over workloads × 3 flavors × checksum on/off × FULL/MINIMAL/NOBLOB ×
NO_LOG/MINIMAL/FULL metadata × rows-query on/off × GTID modes × rotation sizes × ``row_event_max_size`` ×
``--ddl-every`` × ``--size`` cuts inside a batch × ``--edge-values``. The per-transaction path is the
reference: each of its groups goes through ``transaction_events`` and the batch encoder
that tests/batch/test_batch_equivalence.py holds to the declarative construct path.

Also: the vectorised row function equals the scalar one (values, update column sets) for
random keys and versions of every built-in table.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators.changes_truth import JSONL_MAX_CHANGES
from generators.engine import Run
from generators.spec import Spec
from tests.generators.conftest import generate_both, tree_digest
from tests.generators.edge_schemas import EVERY_FAMILY_DDL, JSON_DDL

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def both(tmp: Path, spec: Spec, monkeypatch) -> tuple[dict, dict]:
    """The run by the engine (the batch path) and by the per-transaction reference loop
    (the test seam ``generators.engine.PER_TRANSACTION_REFERENCE``): their file digests."""
    generate_both(spec, tmp, monkeypatch)
    a, b = tree_digest(tmp / "batch"), tree_digest(tmp / "per-txn")
    # the digests cover the change-stream and typed truth too: truth/changes (Parquet per
    # table, JSONL) and truth/final (JSONL, Parquet) of both paths, and they are not empty
    manifest = json.loads((tmp / "per-txn" / "manifest.json").read_text())
    for t in manifest["tables"]:
        name = f"{t['database']}.{t['name']}"
        for f in (f"truth/changes/{name}.parquet", f"truth/final/{name}.jsonl", f"truth/final/parquet/{name}.parquet"):
            assert f in a and f in b, f
    changes = sum(n for kinds in manifest["totals"]["rows"].values() for n in kinds.values())
    if changes:
        assert sum(pq.read_metadata(tmp / "batch" / "truth" / "changes" / f"{t['database']}.{t['name']}.parquet").num_rows
                   for t in manifest["tables"]) >= changes
        if changes <= JSONL_MAX_CHANGES:
            assert "truth/changes/changes.jsonl" in a
    return a, b


CASES = [
    dict(workload="sysbench", tables=3, row_image="MINIMAL", max_binlog_size=40_000, size=300_000),
    dict(workload="sysbench", flavor="mariadb1011", row_metadata="FULL", size=200_000, gtid="7"),
    dict(workload="ecommerce", flavor="mariadb1011", rows_query=True, row_image="MINIMAL", max_binlog_size=50_000,
         size=150_000, initial_rows=100),
    dict(workload="alltypes", flavor="mysql84", rows_query=True, row_image="NOBLOB", ddl_every=30, initial_rows=20,
         transactions=60),
    dict(workload="ecommerce", checksum="NONE", gtid="anonymous", row_event_max_size=1024,
         max_binlog_size=64 * 1024, size=150_000, initial_rows=100),
    dict(workload="ecommerce", flavor="mysql84", row_image="NOBLOB", ddl_every=37, transactions=200, initial_rows=100),
    dict(workload="alltypes", flavor="mariadb1011", row_image="NOBLOB", row_metadata="MINIMAL", ddl_every=25, initial_rows=20,
         transactions=60),
    dict(workload="alltypes", row_image="MINIMAL", row_metadata="FULL", transactions=50, max_binlog_size=8192, initial_rows=20),
    dict(workload="ecommerce", ddl_every=1, transactions=40, initial_rows=5, key_dist="latest"),
    dict(workload="sysbench", key_dist="zipf:1.2", mix="insert=0.5,update=0.3,delete=0.2", rows_per_txn="1-9",
         template="mix", size=150_000, initial_rows=50),
]


FK_DDL = """
CREATE TABLE line (o BIGINT UNSIGNED NOT NULL, n SMALLINT NOT NULL, p CHAR(8) NOT NULL, q INT,
  PRIMARY KEY (o, n), FOREIGN KEY (o) REFERENCES ord (id), FOREIGN KEY (p) REFERENCES prod (code));
CREATE TABLE ord (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, who VARCHAR(60) NOT NULL,
  note VARCHAR(20), CONSTRAINT fk_who FOREIGN KEY (who) REFERENCES cust (email));
CREATE TABLE cust (id INT NOT NULL PRIMARY KEY, email VARCHAR(60) NOT NULL, UNIQUE KEY (email));
CREATE TABLE prod (code CHAR(8) NOT NULL, price DECIMAL(6,2), PRIMARY KEY (code));
CREATE TABLE node (id INT NOT NULL PRIMARY KEY, up INT REFERENCES node (id), label VARCHAR(10));
"""
# custom schemas with FOREIGN KEYs (generators/foreign_keys.py): the batch path keeps the
# parents' initial rows (keys.resolve_ops) and the key-derived child columns, as the
# per-transaction path does
CASES += [
    dict(workload=None, schema_sql=FK_DDL, schema_file="fk.sql", database="fk", flavor="mariadb1011", rows_query=True,
         initial_rows=5, transactions=120, mix="insert=0.4,update=0.2,delete=0.4", ddl_in_binlog=True),
    dict(workload=None, schema_sql=FK_DDL, schema_file="fk.sql", database="fk", row_image="MINIMAL", initial_rows=4,
         transactions=150, max_binlog_size=8192, gtid="anonymous"),
]


# --edge-values: alltypes at another share than its own, every type family at 1.0 and 0.2
CASES += [
    dict(workload="alltypes", flavor="mariadb1011", edge_values=0.6, initial_rows=10, transactions=40),
    dict(workload=None, schema_sql=EVERY_FAMILY_DDL + JSON_DDL, schema_file="e.sql", flavor="mariadb1011",
         edge_values=1.0, initial_rows=15, transactions=60, rows_query=True),
    dict(workload=None, schema_sql=EVERY_FAMILY_DDL, schema_file="e.sql", edge_values=0.2, initial_rows=15,
         transactions=60, row_image="MINIMAL", ddl_every=20),
]


# MySQL binlog_transaction_compression: the batch path plans the zstd payloads itself
# (binlogwriter/batch/columnar.py _compressed)
CASES += [
    dict(workload="ecommerce", transaction_compression=True, max_binlog_size=20_000, size=120_000, initial_rows=50,
         gtid=UUID),
    dict(workload="alltypes", flavor="mysql84", transaction_compression=True, rows_query=True, row_image="MINIMAL",
         ddl_every=15, transactions=50, initial_rows=10, gtid="anonymous"),
    # tagged GTIDs (mysql84): their varlen lengths re-planned per file (BinlogWriter.prepare_planned)
    dict(workload="sysbench", flavor="mysql84", gtid=f"{UUID}:tag_1", max_binlog_size=8192, size=150_000,
         initial_rows=50),
    dict(workload="ecommerce", flavor="mysql84", gtid=f"{UUID}:tag_1", transaction_compression=True,
         max_binlog_size=16_384, ddl_every=40, transactions=300, initial_rows=50),
]


# MariaDB --parallel-groups: commit ids of group commits (generators/group_commit.py), the
# open group carried across batches, DDL, rotation, --size cuts, keyless and FOREIGN KEY tables
CASES += [
    dict(workload="sysbench", flavor="mariadb1011", parallel_groups=8, max_binlog_size=30_000, size=200_000,
         initial_rows=200),
    dict(workload="ecommerce", flavor="mariadb1011", parallel_groups=3, ddl_every=17, transactions=150, initial_rows=30,
         rows_query=True, ddl_in_binlog=True),
    dict(workload=None, schema_sql=FK_DDL + "CREATE TABLE bag (v INT, w VARCHAR(10));", schema_file="fk.sql",
         database="fk", flavor="mariadb1011", parallel_groups=1000, initial_rows=5, transactions=120,
         mix="insert=0.4,update=0.2,delete=0.4", max_binlog_size=8192),
]


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(f"{v}" for v in kw.values())[:60])
def test_batch_path_writes_what_the_per_transaction_path_writes(kw, tmp_path: Path, monkeypatch) -> None:
    a, b = both(tmp_path, Spec.from_dict(kw), monkeypatch)
    assert a == b


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(workload=st.sampled_from(["sysbench", "ecommerce", "every-family"]),
       flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       image=st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), checksum=st.sampled_from(["CRC32", "NONE"]),
       size=st.integers(20_000, 80_000), rotate=st.integers(4096, 60_000), seed=st.integers(0, 2**31),
       rows_query=st.booleans(), edge=st.sampled_from([None, 0.0, 0.3, 1.0]))
def test_batch_path_equals_per_transaction_path_drawn(workload, flavor, image, checksum, size, rotate, seed, rows_query,
                                                      edge, tmp_path_factory, monkeypatch) -> None:
    tmp = tmp_path_factory.mktemp("paths")
    meta = "NO_LOG" if flavor.startswith("mariadb") else "MINIMAL"
    wl = dict(workload=workload)
    if workload == "every-family":
        wl = dict(workload=None, schema_sql=EVERY_FAMILY_DDL, schema_file="e.sql", initial_rows=20)
    spec = Spec.from_dict(dict(**wl, flavor=flavor, row_image=image, row_metadata=meta, checksum=checksum,
                size=size, max_binlog_size=rotate, seed=seed, rows_query=rows_query, edge_values=edge,
                gtid=None if flavor.startswith("mariadb") else UUID))
    a, b = both(tmp, spec, monkeypatch)
    assert a == b


@pytest.mark.parametrize("workload,flavor", [("sysbench", "mysql80"), ("ecommerce", "mysql80"), ("alltypes", "mysql80"),
                                             ("ecommerce", "mariadb1011"), ("alltypes", "mariadb1011")])
def test_vectorised_rows_equal_the_row_function(workload: str, flavor: str) -> None:
    run = Run(Spec(workload=workload, seed=11, flavor=flavor), Path("unused"))
    rng = np.random.default_rng(5)
    for rt in run.rows:
        n = 200
        keys = rng.integers(0, 3000, n)
        vers = (rng.integers(0, 3, n) << 32) | rng.integers(0, 60, n)
        cols = rt.compute_columns(keys, vers, np.zeros(n, dtype=np.int64))
        lists = [c if isinstance(c, list) else c.tolist() for c in cols]
        # what the UPDATE to each version added (keys.update_inc: 1, or a counted table's second statement)
        before = vers - np.where(rng.integers(0, 2, n) == 1, 1, 1 << 16)
        masks = rt.update_masks(keys, vers, before)
        for r in range(n):
            k, v = int(keys[r]), int(vers[r])
            got, want = tuple(col[r] for col in lists), rt.compute_scalar(k, v, 0)
            # same values of the same types and spellings (Decimal exponent, tz-aware or not)
            assert [(type(x), repr(x)) for x in got] == [(type(x), repr(x)) for x in want], (rt.table.name, k, v)
            want = set(rt.update_columns(k, v, int(before[r])))
            assert {c for p, c in enumerate(rt.mutable) if masks[r, p]} == want


def test_runs_in_one_process_do_not_share_table_maps(tmp_path: Path, monkeypatch) -> None:
    """Runs of different schemas, one after the other in one process (as a test suite or a
    notebook does), each write exactly what the per-transaction path writes: nothing
    memoised for a run (Table_map bodies by an event's ``id()``, which the next run's
    events reuse) leaks into the next one. Found in CI: a sysbench run whose Table_map was
    the previous custom run's ``events_log``."""
    ddl = ("CREATE TABLE events_log (ts DATETIME, kind CHAR(12), payload VARBINARY(100), ratio FLOAT);\n"
           "CREATE TABLE tags (tag VARCHAR(40) NOT NULL, uses INT, UNIQUE KEY (tag));\n")
    specs = [dict(workload=None, schema_sql=ddl, schema_file="s.sql", database="c", transactions=30, initial_rows=5),
             dict(workload="sysbench", tables=2, transactions=30, initial_rows=5)]
    for i in range(30):
        (tmp_path / str(i)).mkdir()
        a, b = both(tmp_path / str(i), Spec.from_dict(specs[i % 2]), monkeypatch)
        assert a == b, f"run {i}"
