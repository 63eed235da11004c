"""Columnar export (issue 11): the Arrow tables hold exactly the changes ``changes()`` gives
(op, gtid, file, pos, timestamp, every image column, absent columns null) for generated
runs of every built-in workload in MySQL and MariaDB flavors and every row image;
``binlogwriter export FILES --to parquet DIR`` writes one Parquet dataset per table that
reads back equal."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from binlogwriter.read.export import changes_tables
from binlogwriter.reader import BinlogReader
from binlogwriter.values import Geometry, MysqlDate, MysqlDateTime


def generate(out: Path, workload: str, flavor: str, image: str) -> list[Path]:
    compress = ["--compress"] if image == "full-compressed" else []
    image = image.replace("-compressed", "")
    subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--workload", workload, "--flavor", flavor,
                    "--transactions", "40", "--initial-rows", "10", "--row-image", image, "--seed", "3",
                    "--out", str(out), "--no-progress", *compress], check=True, capture_output=True, timeout=300)
    return sorted(out.glob("binlog.0*"))


def expected(v, col_type: str | None = None):
    """What the export holds for a decoded value (export module docstring)."""
    if isinstance(v, MysqlDate | MysqlDateTime):
        return None
    if isinstance(v, Geometry):
        return v.to_bytes()
    if isinstance(v, frozenset):
        return v
    if isinstance(v, dict | list) or col_type == "json":
        return json.dumps(v, ensure_ascii=False, default=str)
    return v


def same(got, want, members=None) -> bool:
    if isinstance(want, frozenset):
        return set(got.split(",")) - {""} == set(want)
    if isinstance(want, float) and isinstance(got, float):
        return got == want or (got != got and want != want)
    if isinstance(want, bytes) and isinstance(got, bytes) or isinstance(want, str) and isinstance(got, str):
        return got == want
    return got == want and type(got) is type(want) or (isinstance(got, dt.datetime) and got == want)


CASES = [(w, f, i) for w in ("sysbench", "ecommerce", "alltypes") for f in ("mysql80", "mariadb1011")
         for i in ("full", "minimal")] + [("ecommerce", "mysql84", "full-compressed")]


@pytest.mark.parametrize("workload,flavor,image", CASES, ids=["-".join(c) for c in CASES])
def test_export_equals_changes(tmp_path: Path, workload: str, flavor: str, image: str) -> None:
    files = generate(tmp_path / "run", workload, flavor, image)
    tables = changes_tables(files)
    by_table: dict[str, list] = {}
    for c in BinlogReader(files).changes():
        by_table.setdefault(f"{c.database}.{c.table}", []).append(c)
    assert set(tables) == set(by_table)
    for key, tab in tables.items():
        rows = tab.to_pylist()
        changes = by_table[key]
        assert len(rows) == len(changes)
        json_cols = {c.name for e in BinlogReader(files) if e.type_code == 19 and f"{e.schema}.{e.table}" == key
                     for c in e.column_descs() if c.type_code == 245}
        for r, c in zip(rows, changes, strict=True):
            assert (r["op"], r["gtid"], r["file"], r["position"]) == (c.op, c.gtid, c.file, c.position)
            assert (r["seq"], r["row"], r["xid"], r["transaction_position"]) == \
                (c.seq, c.row, c.xid, c.transaction_position)
            assert r["timestamp"] == dt.datetime.fromtimestamp(c.timestamp, dt.UTC)
            for side, image in (("before", c.before), ("after", c.after)):
                cols = [k[len(side) + 1:] for k in r if k.startswith(side + ".")]
                for name in cols:
                    got = r[f"{side}.{name}"]
                    if image is None or name not in image or image[name] is None:
                        assert got is None, f"{key} {side}.{name}: {got!r} for an absent/NULL value"
                        continue
                    want = expected(image[name], "json" if name in json_cols else None)
                    assert same(got, want), f"{key} {side}.{name}: {got!r} != {want!r}"


def test_export_cli_parquet(tmp_path: Path) -> None:
    files = generate(tmp_path / "run", "alltypes", "mariadb1011", "full")
    out = tmp_path / "pq"
    res = subprocess.run([sys.executable, "-m", "binlogwriter", "export", *map(str, files), "--to", "parquet",
                          str(out)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    tables = changes_tables(files)
    assert sorted(p.name for p in out.iterdir()) == sorted(tables)
    for key, tab in tables.items():
        back = pq.read_table(out / key)
        assert back.equals(tab.cast(back.schema)) or back.to_pylist() == tab.to_pylist()
    bad = subprocess.run([sys.executable, "-m", "binlogwriter", "export", str(out / "nope"), "--to", "parquet",
                          str(tmp_path / "x")], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "no such binlog file" in bad.stderr
