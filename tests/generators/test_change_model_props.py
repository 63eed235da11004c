"""One change model (issue #31 §1, docs/output.md "The change model") everywhere.

For drawn runs — built-in workloads and ``--schema`` scripts with wide tables (60–300
columns), utf8mb4 text, keyless and composite-key tables; every flavor, row image and
metadata level; ``--ddl-every``; compressed transactions — the four shapes a run's changes
take give the same change records:

* ``truth/changes/changes.jsonl`` (written by the generator while it writes),
* ``truth/changes/*.parquet`` through :func:`binlogwriter.testing.truth_changes`,
* :meth:`BinlogReader.changes` over the written binlogs (``Change.as_dict()``), an
  independent path (bytes -> frames -> row decoders),
* ``binlogwriter export`` (:func:`changes_tables`, ``images="flat"`` and ``"struct"``),
  the columnar decoders,

compared in canonical form (:func:`canonical_changes`): the same keys, the same ``seq`` /
``row`` / ``op`` / table / GTID / XID / file / positions / timestamp and the same images
(a column absent from a MINIMAL/NOBLOB image is absent in every shape). And
``truth/schema_history.jsonl`` has one entry per table per definition: one per table at
seq 0, one per ALTER of ``--ddl-every``, whose ``columns`` are the full rows' columns of
the table's changes from that ``seq`` on and whose ``create`` parses back to those columns.
The expected values are never computed by the code under test: the JSONL and the Parquet
are written by the generator, the reader and the export decode the binlogs' bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.read.export import changes_tables
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import parse_tables
from binlogwriter.testing import MODEL_FIELDS, canonical_changes, table_definitions, truth_changes
from generators.engine import Run, generate
from generators.spec import Spec

_WIDE_TYPES = ("INT", "BIGINT UNSIGNED", "VARCHAR(24) CHARACTER SET utf8mb4", "DECIMAL(12,3)", "DATETIME(3)",
               "TEXT CHARACTER SET utf8mb4", "DOUBLE", "CHAR(5)", "BLOB", "DATE", "SMALLINT", "VARBINARY(12)")


def _schema(width: int, key: str) -> str:
    """A wide table (``width`` columns of mixed types, utf8mb4 text, BLOB/TEXT for NOBLOB),
    a keyless table and a composite-key one."""
    cols = ["id BIGINT NOT NULL"] + [f"c{i:03d} {_WIDE_TYPES[i % len(_WIDE_TYPES)]} NULL" for i in range(1, width)]
    pk = {"pk": ", PRIMARY KEY (id)", "none": "", "composite": ", PRIMARY KEY (id, c003)"}[key]
    if key == "composite":
        cols[3] = "c003 DECIMAL(12,3) NOT NULL"
    return (f"CREATE TABLE wide ({', '.join(cols)}{pk}) DEFAULT CHARSET=utf8mb4;\n"
            "CREATE TABLE nokey (a INT, b VARCHAR(30) CHARACTER SET utf8mb4, c MEDIUMTEXT);\n"
            "CREATE TABLE comp (a INT NOT NULL, b VARCHAR(8) NOT NULL, v DOUBLE, w VARBINARY(16), "
            "PRIMARY KEY (a, b));\n")


@st.composite
def _specs(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["sysbench", "ecommerce", "alltypes", "schema"]), label="workload")
    flavor = draw(st.sampled_from(["mysql80", "mysql84", "mariadb1011"]), label="flavor")
    d: dict[str, Any] = {
        "flavor": flavor,
        "row_image": draw(st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), label="image"),
        "row_metadata": draw(st.sampled_from(["FULL", "MINIMAL", "NO_LOG"] if flavor == "mariadb1011"
                                             else ["FULL", "MINIMAL"]), label="metadata"),
        "ddl_every": draw(st.sampled_from([0, 3, 5]), label="ddl_every"),
        "seed": draw(st.integers(0, 2**32 - 1), label="seed"),
        "transactions": draw(st.integers(6, 18), label="transactions"),
        "initial_rows": draw(st.integers(2, 6), label="initial_rows"),
        "max_binlog_size": draw(st.sampled_from(["4K", "1M"]), label="max_binlog_size"),
    }
    if d["ddl_every"]:  # a reader given CREATE TABLE text knows one definition per table: names from the Table_map
        d["row_metadata"] = "FULL"
    if kind == "schema":
        width = draw(st.sampled_from([60, 150, 300]), label="width")
        d.update(workload=None, schema_sql=_schema(width, draw(st.sampled_from(["pk", "none", "composite"]))))
    else:
        d["workload"] = kind
    if flavor != "mariadb1011" and draw(st.booleans(), label="compressed"):
        d["transaction_compression"] = True
    return d


def _export_records(files: list[Path], schemas: Any, images: str) -> list[dict[str, Any]]:
    """The export's rows as change-model dicts (images rebuilt from ``<side>_columns``)."""
    out = []
    for tab in changes_tables(files, schemas=schemas, images=images).values():
        for r in tab.to_pylist():
            d = {k: r[k] for k in ("seq", "row", "op", "database", "table", "gtid", "xid", "file", "position",
                                   "transaction_position")}
            d["timestamp"] = int(r["timestamp"].timestamp())
            for side in ("before", "after"):
                cols = r[side + "_columns"]
                if cols is None:
                    d[side] = None
                elif images == "struct":
                    d[side] = {c: r[side][c] for c in cols}
                else:
                    d[side] = {c: r[f"{side}.{c}"] for c in cols}
            out.append(d)
    return sorted(out, key=lambda x: (x["seq"], x["row"]))


def _not_a_calendar_value(v: Any) -> bool:
    """A canonical DATE/DATETIME/TIMESTAMP text with zero parts (the zero date): the export
    writes such a value as null (binlogwriter/read/export.py, Arrow has no such date)."""
    return isinstance(v, str) and len(v) >= 10 and v[4] == "-" and v[7] == "-" and ("-00" in v[:10] or
                                                                                   v.startswith("0000"))


_POSITIONS = ("seq", "row", "op", "database", "table", "gtid", "xid", "file", "position", "transaction_position",
              "timestamp")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(kw=_specs())
def test_every_shape_gives_the_same_change_records(tmp_path_factory, kw: dict[str, Any]) -> None:
    spec = Spec.from_dict(kw)
    out = generate(spec, tmp_path_factory.mktemp("model") / "run").out
    files = sorted(out.glob(f"{spec.basename}.0*"))
    schemas = None if spec.row_metadata == "FULL" else [rt.table for rt in Run(spec, out).rows]

    truth = list(truth_changes(out))
    lines = [json.loads(x) for x in (out / "truth" / "changes" / "changes.jsonl").open(encoding="utf-8")]
    assert truth, "the run wrote no changes"
    # 1. the JSONL and the Parquet: the same records, keys in the model's order
    assert all(tuple(x) == MODEL_FIELDS for x in lines) and all(tuple(x) == MODEL_FIELDS for x in truth)
    assert lines == truth
    # seq counts transactions with changes from 0, row the changes in each from 0
    assert [(x["seq"], x["row"]) for x in truth][0] == (0, 0)
    for a, b in zip(truth, truth[1:], strict=False):
        assert (b["seq"], b["row"]) in ((a["seq"], a["row"] + 1), (a["seq"] + 1, 0))

    # 2. the reader over the binlogs
    reader = list(canonical_changes(BinlogReader(files, schemas=schemas).changes(), out))
    assert len(reader) == len(truth)
    for g, w in zip(reader, truth, strict=True):
        assert tuple(g) == MODEL_FIELDS
        assert g["before_row"] is None and g["after_row"] is None  # a reader knows the images only
        assert {k: g[k] for k in _POSITIONS} == {k: w[k] for k in _POSITIONS}
        assert (g["before"], g["after"]) == (w["before"], w["after"])

    # 3. the export, both image layouts
    for images in ("flat", "struct"):
        got = list(canonical_changes(_export_records(files, schemas, images), out))
        assert len(got) == len(truth), images
        for g, w in zip(got, truth, strict=True):
            assert {k: g[k] for k in _POSITIONS} == {k: w[k] for k in _POSITIONS}, images
            for side in ("before", "after"):
                gi, wi = g[side], w[side]
                assert (gi is None) == (wi is None), (images, side)
                if wi is None:
                    continue
                assert list(gi) == list(wi), (images, side)  # same columns: absent stays absent
                for c, v in wi.items():
                    assert gi[c] == v or (gi[c] is None and _not_a_calendar_value(v)), (images, side, c, gi[c], v)

    # 4. schema_history: one entry per table per definition
    hist = table_definitions(out)
    tables = Run(spec, out).rows
    n_ddl = spec.transactions // spec.ddl_every if spec.ddl_every else 0
    assert len(hist) == len(tables) + n_ddl
    assert [(h["seq"], h["database"], h["table"]) for h in hist[:len(tables)]] == \
        [(0, rt.table.database, rt.table.name) for rt in tables]
    assert [h["seq"] for h in hist] == sorted(h["seq"] for h in hist)
    for h in hist:
        parsed = parse_tables(h["create"], h["database"], spec.flavor)
        assert [(t.name, [c.name for c in t.columns]) for t in parsed] == [(h["table"], h["columns"])]
    for w in truth:  # every full row has the columns of the table's definition in force
        cur = [h for h in hist if (h["database"], h["table"]) == (w["database"], w["table"]) and h["seq"] <= w["seq"]]
        assert cur, w
        for side in ("before_row", "after_row"):
            if w[side] is not None:
                assert list(w[side]) == cur[-1]["columns"], (side, w["seq"], cur[-1])
