"""``truth/final`` written in bounded pieces (generators/engine.py ``Run.write_final``: sorted
runs of ``SORT_CELLS`` values spilled in pickled blocks of ``RUN_BLOCK_CELLS`` values and
merged, blocks of ``OUT_BLOCK`` rows, Parquet made typed ``FINAL_BLOCK`` rows at a time and
row groups joined from the pieces) writes the bytes
of the whole-table reference kept here: every live row by the scalar row function
(``TableRows.compute``), rendered by ``canonical_renderer``, sorted by ``canonical_key``
(Python's stable sort), one ``json.dumps`` per line, and the Parquet file of arrays built
value by value by ``typed_converter`` in one piece.

Drawn: schemas users have (bench/schemas/app.sql: JSON, utf8mb4, a composite key, a keyless
table, a 100-column table; every type family; wide tables of 60-300 columns and one of
1,030; keyless and composite-key tables, a keyless one of few distinct values and many NULLs:
rows tie on their first columns), ``--edge-values``, multilingual text
(``--charset-stress``), ``--ddl-every`` (columns added mid-stream), flavors, and tiny
piece sizes, so that runs spill, merges interleave and row groups split inside blocks."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import generators.changes_truth as ct
import generators.final_columns as final_columns
import generators.final_sort as final_sort
from generators.changes_truth import final_schema, parquet_options, table_file, typed_converter
from generators.engine import Run
from generators.spec import Spec
from generators.truth import canonical_key, canonical_renderer, dumps_line
from tests.conformance.test_wide_tables_replay import wide_ddl
from tests.generators.edge_schemas import EVERY_FAMILY_DDL

_ROOT = Path(__file__).resolve().parents[2]
KEYS_DDL = """
CREATE TABLE keyless (a INT, b VARCHAR(12) CHARACTER SET utf8mb4, c DECIMAL(6,2), d DATETIME(3) NULL);
CREATE TABLE ties (flag ENUM('x','y') NULL, n TINYINT NULL, v VARCHAR(2) CHARACTER SET utf8mb4 NULL, b BIT(1) NULL,
  d DATE NULL);
CREATE TABLE composite (x SMALLINT NOT NULL, y VARCHAR(8) CHARACTER SET utf8mb4 NOT NULL, z DOUBLE,
  t TEXT CHARACTER SET utf8mb4, PRIMARY KEY (y, x));
"""
SCHEMAS = {
    "app": (_ROOT / "bench" / "schemas" / "app.sql").read_text(),
    "families": EVERY_FAMILY_DDL,
    "keys": KEYS_DDL,
    "wide": None,  # wide_ddl of a drawn column count
}


def _reference(run: Run, final: Path, row_group: int) -> dict[str, bytes]:
    """Each table's truth/final JSONL and Parquet bytes, made whole (see the module docstring)."""
    fl = run.spec.flavor
    out: dict[str, bytes] = {}
    for rt in run.rows:
        t = rt.table
        names = [c.name for c in t.columns]
        keys = np.flatnonzero(rt.live[:rt.next_key])
        ti, tu = rt.times(keys)
        render = canonical_renderer(t, fl)
        rows = [render(rt.compute(int(k), int(rt.ver[k]), int(rt.born[k]),
                                  -1 if ti is None else int(ti[i]), -1 if tu is None else int(tu[i])))
                for i, k in enumerate(keys.tolist())]
        rows.sort(key=canonical_key)
        out[f"{t.database}.{t.name}.jsonl"] = "".join(dumps_line(names, r) + "\n" for r in rows).encode()
        schema = final_schema(t, fl)
        arrays, texts = [], [None] * len(rows)
        for j, col in enumerate(t.columns):
            typ, conv = typed_converter(col, fl)
            vals = []
            for r, row in enumerate(rows):
                v, text = (None, None) if row[j] is None else conv(row[j])
                vals.append(v)
                if text is not None:
                    texts[r] = (texts[r] or []) + [(col.name, text)]
            arrays.append(pa.array(vals, type=typ))
        arrays.append(pa.array(texts, type=schema.field("_text").type))
        path = final / "ref.parquet"
        with pq.ParquetWriter(path, schema, write_statistics=False, **parquet_options(schema)) as w:
            w.write_table(pa.Table.from_arrays(arrays, schema=schema) if rows else schema.empty_table(),
                          row_group_size=row_group)
        out[f"parquet/{table_file(t)}"] = path.read_bytes()
        path.unlink()
    return out


@settings(max_examples=24, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=st.sampled_from(sorted(SCHEMAS)), ncols=st.one_of(st.integers(60, 300), st.just(1030)),
       seed=st.integers(0, 2**16), txns=st.integers(0, 120), initial=st.sampled_from([1, 3, 40]),
       edge=st.sampled_from([None, 0.3, 1.0]), stress=st.sampled_from([None, 0.5]),
       ddl=st.sampled_from([0, 0, 17]), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       cells=st.integers(1, 3000), out_block=st.integers(1, 50), final_block=st.integers(1, 40),
       row_group=st.integers(1, 70), run_cells=st.integers(1, 400))
def test_chunked_final_writes_the_whole_table_reference(tmp_path_factory: Any, monkeypatch: Any, schema: str,
                                                        ncols: int, seed: int, txns: int, initial: int,
                                                        edge: float | None, stress: float | None, ddl: int,
                                                        flavor: str, cells: int, out_block: int,
                                                        final_block: int, row_group: int, run_cells: int) -> None:
    ddl_text = SCHEMAS[schema] or wide_ddl("w", ncols, "InnoDB")
    if ncols > 1000 and schema == "wide":
        txns, initial = min(txns, 30), min(initial, 3)
    monkeypatch.setattr(final_sort, "SORT_CELLS", cells)
    monkeypatch.setattr(final_sort, "OUT_BLOCK", out_block)
    monkeypatch.setattr(final_sort, "RUN_BLOCK_CELLS", run_cells)
    monkeypatch.setattr(ct, "FINAL_BLOCK", final_block)
    monkeypatch.setattr(final_columns, "BLOCK", max(1, final_block - 3))  # rows computed at once (in-order path)
    monkeypatch.setattr(ct, "ROW_GROUP", row_group)
    spec = Spec.from_dict(dict(workload=None, schema_sql=ddl_text, schema_file="s.sql", seed=seed,
                               transactions=txns, initial_rows=initial, edge_values=edge, charset_stress=stress,
                               ddl_every=ddl, flavor=flavor))
    tmp = tmp_path_factory.mktemp("final")
    run = Run(spec, tmp / "out")
    run.run(tmp)
    final = tmp / "truth" / "final"
    want = _reference(run, final, row_group)
    got = {str(p.relative_to(final)): p.read_bytes() for p in sorted(final.rglob("*")) if p.is_file()}
    assert sorted(got) == sorted(want)  # and no run file left behind
    for name, data in want.items():
        assert got[name] == data, name
    live = {f"{t['database']}.{t['name']}.jsonl": t["live_rows"]
            for t in json.loads((tmp / "manifest.json").read_text())["tables"]}
    assert {n: len(d.splitlines()) for n, d in want.items() if n.endswith(".jsonl")} == live


@pytest.mark.parametrize("cells", [1, 7, 10**9])
def test_app_schema_final_rows_are_there(tmp_path: Path, monkeypatch: Any, cells: int) -> None:
    """The drawn test's reference is not trivially empty: app.sql with 200 transactions has
    live rows in every table, several runs per table spill when ``SORT_CELLS`` is small."""
    monkeypatch.setattr(final_sort, "SORT_CELLS", cells)
    spills: list[str] = []
    real = tempfile.mkstemp

    def counting(*a: Any, **kw: Any) -> tuple[int, str]:
        got = real(*a, **kw)
        if got[1].endswith(".run"):
            spills.append(got[1])
        return got
    monkeypatch.setattr(tempfile, "mkstemp", counting)
    spec = Spec.from_dict(dict(workload=None, schema_sql=SCHEMAS["app"], schema_file="app.sql", seed=3,
                               transactions=200, initial_rows=30))
    run = Run(spec, tmp_path / "out")
    run.run(tmp_path)
    final = tmp_path / "truth" / "final"
    assert _reference(run, final, ct.ROW_GROUP) == {
        str(p.relative_to(final)): p.read_bytes() for p in sorted(final.rglob("*")) if p.is_file()}
    for rt in run.rows:
        assert rt.live_count > 0
    assert (len(spills) > 7) == (cells < 10**9)
