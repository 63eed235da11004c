"""The `binlogwriter generate` command: layout, determinism, reproduction, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from binlogwriter.reader import iter_raw

from .conftest import tree_digest

SMALL = ["--transactions", "60", "--initial-rows", "20", "--no-progress"]


@pytest.mark.parametrize("gtid", ["", ":Load_A"])
def test_one_transaction_executed_set_as_mysql_shows_it(run_cli, tmp_path: Path, gtid: str) -> None:
    """``gtid_executed`` of a one-transaction run is ``uuid:1`` (Gtid_set::to_string, what serve's
    ``@@gtid_executed`` gives for it), not ``uuid:1-1``."""
    out = tmp_path / "out"
    uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    r = run_cli("--out", str(out), "--transactions", "1", "--initial-rows", "5", "--no-progress",
                "--flavor", "mysql84", "--gtid", uuid + gtid)
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["gtid_executed"] == uuid + gtid.lower() + ":1"


def test_defaults_alone_write_the_output_layout(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run_cli("--out", str(out), "--no-progress")
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["binlog.000001", "binlog.index", "manifest.json", "truth"]
    assert (out / "binlog.index").read_text() == "./binlog.000001\n"
    m = json.loads((out / "manifest.json").read_text())
    assert m["spec"]["workload"] == "sysbench" and m["spec"]["transactions"] == 2000
    assert m["format"]["flavor"] == "mysql80" and m["format"]["row_metadata"] == "FULL"
    assert m["totals"]["transactions"] == 2000
    assert m["gtid_executed"] == "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2000"
    f = m["files"][0]
    assert f["first_gtid"].endswith(":1") and f["last_gtid"].endswith(":2000")
    assert m["totals"]["rows"]["test.sbtest1"] == {"insert": 2000, "update": 4000, "delete": 2000}
    assert (out / "truth" / "final" / "test.sbtest1.jsonl").read_text().count("\n") == 1000
    assert "CREATE TABLE `sbtest1`" in (out / "truth" / "snapshot.sql").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp dir left


def test_same_arguments_twice_give_byte_identical_directories(run_cli, tmp_path: Path) -> None:
    args = ["--workload", "ecommerce", "--seed", "5", "--ddl-every", "17", "--rows-query",
            "--max-binlog-size", "16K", *SMALL]
    assert run_cli("--out", str(tmp_path / "a"), *args).exit_code == 0
    assert run_cli("--out", str(tmp_path / "b"), *args).exit_code == 0
    a, b = tree_digest(tmp_path / "a"), tree_digest(tmp_path / "b")
    assert len(a) > 5 and a == b


def test_manifest_alone_reproduces_the_run(run_cli, tmp_path: Path) -> None:
    schema = tmp_path / "s.sql"
    schema.write_text("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(30), price DECIMAL(8,2), j JSON);")
    out = tmp_path / "one"
    r = run_cli("--out", str(out), "--schema", str(schema), "--flavor", "mariadb1011", "--mix",
                "insert=0.6,update=0.3,delete=0.1", "--key-dist", "hotspot:0.1:0.8", *SMALL)
    assert r.exit_code == 0, r.output
    schema.unlink()  # the manifest holds the DDL text itself
    r = run_cli("--spec", str(out / "manifest.json"), "--out", str(tmp_path / "two"), "--no-progress")
    assert r.exit_code == 0, r.output
    assert tree_digest(out) == tree_digest(tmp_path / "two")


def test_spec_file_with_column_generators(run_cli, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("""
workload: ecommerce
seed: 3
transactions: 30
initial_rows: 10
flavor: mysql84
columns:
  customers.city: {gen: choice, values: [Paris, Lyon], weights: [3, 1]}
  products.stock: {gen: int, min: 7, max: 7}
  customers.phone: {gen: const, value: "555-0100", "null": 0.5}
""")
    out = tmp_path / "o"
    r = run_cli("--spec", str(spec), "--out", str(out), "--no-progress")
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in (out / "truth/final/test.customers.jsonl").read_text().splitlines()]
    assert {r["city"] for r in rows} <= {"Paris", "Lyon"} and len(rows) >= 10
    assert {r["phone"] for r in rows} <= {"555-0100", None}
    assert {json.loads(x)["stock"] for x in (out / "truth/final/test.products.jsonl").read_text().splitlines()} == {7}
    m = json.loads((out / "manifest.json").read_text())
    assert m["spec"]["columns"]["products.stock"] == {"gen": "int", "max": 7, "min": 7}


def test_size_stops_at_the_requested_bytes_and_rotation_chains_files(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "o"
    r = run_cli("--out", str(out), "--size", "120KB", "--max-binlog-size", "32K", "--initial-rows", "50",
                "--no-progress")
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert 120 * 1024 <= m["totals"]["bytes"] < 120 * 1024 + 8192
    files = [out / x[2:] for x in (out / "binlog.index").read_text().splitlines()]
    assert len(files) == len(m["files"]) >= 4
    for i, f in enumerate(files):
        recs = list(iter_raw(f))
        assert recs[-1].type_code == (3 if i == len(files) - 1 else 4)  # STOP / ROTATE
        assert m["files"][i]["events"] == len(recs)
    assert sum(f["transactions"] for f in m["files"]) == m["totals"]["transactions"]


def test_ddl_in_binlog_leaves_only_comments_in_snapshot(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "o"
    assert run_cli("--out", str(out), "--ddl-in-binlog", "--flavor", "mariadb1011", *SMALL).exit_code == 0
    lines = [x for x in (out / "truth/snapshot.sql").read_text().splitlines() if x.strip()]
    assert all(x.startswith("--") for x in lines)
    m = json.loads((out / "manifest.json").read_text())
    assert m["totals"]["rows"]["test.sbtest1"]["insert"] == 20 + 60
    assert m["gtid_executed"].startswith("0-1-")


BAD = [
    (["--workload", "nosuch"], "workload"),
    (["--mix", "insert=abc"], "--mix"),
    (["--mix", "upsert=1"], "--mix"),
    (["--key-dist", "zipf:x"], "--key-dist"),
    (["--rows-per-txn", "5-2"], "--rows-per-txn"),
    (["--row-metadata", "NO_LOG"], "NO_LOG"),
    (["--size", "12XB"], "--size"),
    (["--start-time", "yesterday"], "--start-time"),
    (["--gtid", "not-a-uuid"], "--gtid"),
    (["--transactions", "5", "--size", "1M"], "exclusive"),
    (["--max-binlog-size", "100"], "--max-binlog-size"),
    (["--frobnicate"], "frobnicate"),
    (["--flavor", "mariadb1011", "--gtid", "anonymous"], "--gtid"),
    (["--spec", "/nonexistent/spec.yaml"], "--spec"),
    (["--workload", "ecommerce", "--initial-rows", "0"], "--initial-rows"),
]


@pytest.mark.parametrize(("args", "needle"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_options_give_one_line_exit_2_and_no_output(run_cli, tmp_path: Path, args, needle) -> None:
    out = tmp_path / "o"
    r = run_cli("--out", str(out), *args)
    assert r.exit_code == 2
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and needle in err, err
    assert not out.exists() and list(tmp_path.iterdir()) == []


BAD_DDL = [
    ("CREATE TABLE t (a FOO)", "FOO"),
    ("CREATE TABLE t (a INT, a INT)", "duplicate"),
    ("CREATE TABLE t (", "cannot parse"),
    ("CREATE TABLE t (a VARCHAR(70000))", "65535"),
    ("SELECT 1;", "no CREATE TABLE"),
    ("CREATE TABLE t (a DECIMAL(70,2))", "precision"),
    ("CREATE TABLE t (a TEXT, PRIMARY KEY (a))", "key length"),
]


@pytest.mark.parametrize(("ddl", "needle"), BAD_DDL, ids=[d for d, _ in BAD_DDL])
def test_bad_ddl_gives_one_line_exit_2_and_no_output(run_cli, tmp_path: Path, ddl: str, needle: str) -> None:
    f = tmp_path / "bad.sql"
    f.write_text(ddl)
    out = tmp_path / "o"
    r = run_cli("--out", str(out), "--schema", str(f), "--no-progress")
    assert r.exit_code == 2, r.output
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and needle in err, err
    assert not out.exists()


def test_bad_spec_files(run_cli, tmp_path: Path) -> None:
    cases = {
        "a.yaml": "workload: [unclosed",
        "b.json": "{not json",
        "c.yaml": "seed: 1\nbogus_setting: 3\n",
        "d.yaml": "columns:\n  nosuch.col: {gen: int}\n",
        "e.yaml": "columns:\n  sbtest1.k: {gen: wibble}\n",
        "f.yaml": "columns:\n  sbtest1.id: {gen: int}\n",
    }
    for name, text in cases.items():
        p = tmp_path / name
        p.write_text(text)
        out = tmp_path / ("o-" + name)
        r = run_cli("--spec", str(p), "--out", str(out), "--no-progress")
        assert r.exit_code == 2, (name, r.output)
        assert len(r.stderr.strip().splitlines()) == 1, (name, r.stderr)
        assert not out.exists()


def test_existing_non_empty_output_is_refused(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep").write_text("x")
    r = run_cli("--out", str(out), *SMALL)
    assert r.exit_code == 2 and "already exists" in r.stderr
    assert [p.name for p in out.iterdir()] == ["keep"]
