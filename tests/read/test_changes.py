"""``BinlogReader.changes()`` against the generator's own record (issue 11).

For generated runs (every built-in workload, MySQL and MariaDB flavors, initial rows and DDL
in the binlog): replaying the changes in Python from an empty database leaves exactly the
rows of ``truth/final`` (values per row, rendered canonically by the generator's own
renderer); every change's ``before`` / ``after`` holds exactly the image columns the
declarative reader finds present (names from FULL metadata, or from a CREATE TABLE file
under MINIMAL metadata); GTIDs, XIDs and positions are those of the enclosing events.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from binlogwriter.events import QueryEvent, XidEvent
from binlogwriter.read.changes import ColumnNamesError
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import parse_tables
from binlogwriter.testing import final_files
from binlogwriter.values import ABSENT
from generators.truth import canonical_renderer, dumps_line


def generate(out: Path, workload: str, flavor: str, *extra: str) -> list[Path]:
    cmd = [sys.executable, "-m", "binlogwriter", "generate", "--workload", workload, "--flavor", flavor,
           "--transactions", "60", "--initial-rows", "15", "--ddl-in-binlog", "--seed", "7",
           "--out", str(out), "--no-progress", *extra]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return sorted(out.glob("binlog.0*"))


def ddl_of(files: list[Path]) -> str:
    return "".join(f"USE `{e.db}`;\n{e.query};\n" if e.db else f"{e.query};\n"
                   for e in BinlogReader(files) if isinstance(e, QueryEvent)
                   and e.query.upper().startswith(("CREATE", "ALTER", "DROP")))


def replay(changes, tables: dict, flavor: str) -> dict[str, Counter]:
    state: dict[str, Counter] = {}
    renderers = {k: canonical_renderer(t, flavor) for k, t in tables.items()}

    def line(key: str, row: dict) -> str:
        t = tables[key]
        names = [c.name for c in t.columns]
        assert set(row) == set(names), f"{key}: image columns {sorted(row)} != table columns"
        return dumps_line(names, renderers[key](tuple(row[n] for n in names)))

    for c in changes:
        key = f"{c.database}.{c.table}"
        rows = state.setdefault(key, Counter())
        if c.op in ("delete", "update"):
            old = line(key, c.before)
            assert rows[old] > 0, f"{c.op} of a row that is not there: {old}"
            rows[old] -= 1
            if not rows[old]:
                del rows[old]
        if c.op in ("insert", "update"):
            rows[line(key, c.after)] += 1
    return state


CASES = [(w, f) for w in ("sysbench", "ecommerce", "alltypes") for f in ("mysql80", "mariadb1011")]


@pytest.mark.parametrize("workload,flavor", CASES, ids=[f"{w}-{f}" for w, f in CASES])
def test_changes_replay_to_truth(tmp_path: Path, workload: str, flavor: str) -> None:
    out = tmp_path / "run"
    files = generate(out, workload, flavor)
    tables = {f"{t.database}.{t.name}": t for t in parse_tables(ddl_of(files), "test", flavor)}
    changes = list(BinlogReader(files).changes())
    assert changes
    state = replay(changes, tables, flavor)
    finals = {".".join(k): f for k, f in final_files(out).items()}
    for key, f in finals.items():
        want = Counter(f.read_text(encoding="utf-8").splitlines())
        assert state.get(key, Counter()) == want, f"{key}: replayed rows differ from truth/final"
    assert set(state) <= set(finals) | {
        k for k, v in state.items() if not v}


def _declarative(files, schemas=None):
    """(op, db, table, before, after, gtid, xid, offset) per row, from the declarative reader."""
    from binlogwriter.events import GtidBase, MariadbGtidEvent

    reader = BinlogReader(files, schemas=schemas)
    out, txn, gtid = [], [], None
    for ev in reader:
        if isinstance(ev, GtidBase):
            gtid = ev.gtid
        elif isinstance(ev, MariadbGtidEvent):
            gtid = f"{ev.domain_id}-{ev.server_id}-{ev.seq_no}"
        elif isinstance(ev, XidEvent):
            out += [(*r, ev.xid) for r in txn]
            txn = []
        elif hasattr(ev, "rows") and ev.type_code != 19 and ev.rows is not None:
            tm = reader.state.tables[ev.table_id]
            names = [c.name for c in reader.state.columns_for(ev.table_id)]

            def named(vals, names=names):
                return {n: v for n, v in zip(names, vals, strict=True) if v is not ABSENT}

            for r in ev.rows:
                if ev.KIND == "update":
                    txn.append(("update", tm.schema, tm.table, named(r[0]), named(r[1]), gtid, ev.origin.offset))
                elif ev.KIND == "insert":
                    txn.append(("insert", tm.schema, tm.table, None, named(r), gtid, ev.origin.offset))
                else:
                    txn.append(("delete", tm.schema, tm.table, named(r), None, gtid, ev.origin.offset))
    return out


IMAGES = [(f, i, m) for f in ("mysql80", "mariadb1011") for i in ("full", "minimal", "noblob")
          for m in ("full", "minimal")]


@pytest.mark.parametrize("flavor,image,metadata", IMAGES, ids=["-".join(x) for x in IMAGES])
def test_changes_images_and_names(tmp_path: Path, flavor: str, image: str, metadata: str) -> None:
    files = generate(tmp_path / "run", "alltypes", flavor, "--row-image", image, "--row-metadata", metadata)
    sql = tmp_path / "schema.sql"
    sql.write_text(ddl_of(files), encoding="utf-8")
    if metadata == "minimal":
        with pytest.raises(ColumnNamesError) as info:
            list(BinlogReader(files).changes())
        assert "schemas=" in str(info.value) and str(files[0]) in str(info.value)
    tables = {f"{t.database}.{t.name}": t for t in parse_tables(sql.read_text(), "test", flavor)}
    want = _declarative(files, tables)
    for schemas in ((sql, tables, list(tables.values())) if metadata == "minimal" else (None,)):
        got = [(c.op, c.database, c.table, c.before, c.after, c.gtid, c.position, c.xid)
               for c in BinlogReader(files, schemas=schemas).changes()]
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g == w


def test_changes_positions_and_timestamps(tmp_path: Path) -> None:
    files = generate(tmp_path / "run", "sysbench", "mysql80")
    offsets = {e.origin.offset: e for e in BinlogReader(files) if hasattr(e, "rows") and e.type_code != 19}
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    n = 0
    for c in BinlogReader(files).changes():
        ev = offsets[c.position]
        assert c.timestamp == ev.timestamp and c.file == str(files[0])
        assert c.gtid.startswith(manifest["format"]["gtid_mode"].split(":", 1)[1].lower())
        n += 1
    assert n == sum(sum(v.values()) for v in manifest["totals"]["rows"].values())  # initial rows included
