"""``generate --replica-schema`` (docs/replica.md): truth/replica/ is written, recorded in the
manifest's spec so that ``--spec manifest.json`` repeats it, never changes the binlog bytes,
and every mistake is one line naming the option (exit status 2, nothing at --out)."""

from __future__ import annotations

import json
from pathlib import Path

PRIMARY = "CREATE TABLE t (id INT PRIMARY KEY, a INT UNSIGNED, c VARCHAR(20) CHARACTER SET latin1);\n"
REPLICA = "CREATE TABLE t (id INT PRIMARY KEY, a SMALLINT, c VARCHAR(20) CHARACTER SET latin1, x INT DEFAULT 7);\n"
BASE = ["--database", "d", "--flavor", "mariadb1011", "--initial-rows", "0", "--transactions", "15",
        "--edge-values", "0.3", "--no-progress"]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "p.sql").write_text(PRIMARY)
    (tmp_path / "r.sql").write_text(REPLICA)
    return tmp_path / "p.sql", tmp_path / "r.sql"


def test_replica_truth_is_written_and_repeated_by_the_manifest(run_cli, tmp_path: Path) -> None:
    p, r = _files(tmp_path)
    plain, rep, again = tmp_path / "plain", tmp_path / "rep", tmp_path / "again"
    assert run_cli("--out", str(plain), "--schema", str(p), *BASE).exit_code == 0
    res = run_cli("--out", str(rep), "--schema", str(p), *BASE, "--replica-schema", str(r),
                  "--replica-conversions", "ALL_LOSSY")
    assert res.exit_code == 0, res.output
    assert not (plain / "truth" / "replica").exists()
    assert (plain / "binlog.000001").read_bytes() == (rep / "binlog.000001").read_bytes()
    outcome = json.loads((rep / "truth" / "replica" / "outcome.json").read_text())
    changes = (rep / "truth" / "changes" / "changes.jsonl").read_text().splitlines()
    assert outcome == {"stopped": False, "transactions": len({json.loads(c)["gtid"] for c in changes})}
    rows = [json.loads(x) for x in (rep / "truth" / "replica" / "final" / "d.t.jsonl").read_text().splitlines()]
    assert rows and all(list(row) == ["id", "a", "c", "x"] and row["x"] == 7 for row in rows)
    assert all(row["a"] is None or -32768 <= row["a"] <= 32767 for row in rows)
    spec = json.loads((rep / "manifest.json").read_text())["spec"]
    assert spec["replica"] == {"schema_sql": REPLICA, "conversions": ["ALL_LOSSY"], "flavor": "mariadb1011"}
    assert "replica" not in json.loads((plain / "manifest.json").read_text())["spec"]
    assert run_cli("--out", str(again), "--spec", str(rep / "manifest.json"), "--no-progress").exit_code == 0
    for name in ("outcome.json", "final/d.t.jsonl"):
        assert (again / "truth" / "replica" / name).read_bytes() == (rep / "truth" / "replica" / name).read_bytes()


def test_without_the_setting_the_truth_is_the_1677_stop(run_cli, tmp_path: Path) -> None:
    p, r = _files(tmp_path)
    assert run_cli("--out", str(tmp_path / "o"), "--schema", str(p), *BASE, "--replica-schema", str(r)).exit_code == 0
    outcome = json.loads((tmp_path / "o" / "truth" / "replica" / "outcome.json").read_text())
    assert outcome["errno"] == 1677 and outcome["transactions"] == 0 and outcome["gtid"] == "0-1-1"
    assert outcome["message"] == "Column 1 of table 'd.t' cannot be converted from type 'int' to type 'smallint(6)'"
    assert (tmp_path / "o" / "truth" / "replica" / "final" / "d.t.jsonl").read_text() == ""


def test_mistakes_are_one_line(run_cli, tmp_path: Path) -> None:
    p, r = _files(tmp_path)
    (tmp_path / "bad.sql").write_text("CREATE TABLE t (id INT PRIMARY KEY, a INT UNSIGNED, c CHAR(20));\n")
    cases = [
        (["--replica-conversions", "ALL_LOSSY"], "--replica-conversions / --replica-flavor need --replica-schema"),
        (["--replica-schema", str(r), "--replica-conversions", "SOME"], "unknown value 'SOME'"),
        (["--replica-schema", str(r), "--replica-flavor", "mysql80"], "not modelled yet"),
        (["--replica-schema", str(tmp_path / "missing.sql")], "--replica-schema: cannot read"),
        (["--replica-schema", str(tmp_path / "bad.sql")], "unsupported conversion: d.t.c: varchar(20 octets) -> char(80 octets)"),
    ]
    for args, text in cases:
        out = tmp_path / "x"
        res = run_cli("--out", str(out), "--schema", str(p), *BASE, *args)
        assert res.exit_code == 2, (args, res.output)
        assert text in res.output and len(res.output.strip().splitlines()) == 1, res.output
        assert not out.exists() or not any(out.iterdir())


def test_library_function_on_an_existing_run_writes_the_same_truth(run_cli, tmp_path: Path) -> None:
    from generators.replica import compute_replica_truth

    p, r = _files(tmp_path)
    plain, rep = tmp_path / "plain", tmp_path / "rep"
    assert run_cli("--out", str(plain), "--schema", str(p), *BASE).exit_code == 0
    assert run_cli("--out", str(rep), "--schema", str(p), *BASE, "--replica-schema", str(r),
                   "--replica-conversions", "ALL_LOSSY").exit_code == 0
    outcome = compute_replica_truth(plain, REPLICA, conversions="ALL_LOSSY")
    assert outcome["stopped"] is False
    for name in ("outcome.json", "final/d.t.jsonl", "schema.sql", "settings.json"):
        assert (plain / "truth" / "replica" / name).read_bytes() == (rep / "truth" / "replica" / name).read_bytes()


def test_initial_rows_the_replica_cannot_load_are_one_line(run_cli, tmp_path: Path) -> None:
    """snapshot.sql names column c, which the replica dropped: the load would stop (1054)."""
    p, _ = _files(tmp_path)
    (tmp_path / "dropped.sql").write_text("CREATE TABLE t (id INT PRIMARY KEY, a INT UNSIGNED);\n")
    base = [a for a in BASE if a not in ("--initial-rows", "0")]
    res = run_cli("--out", str(tmp_path / "x"), "--schema", str(p), *base, "--initial-rows", "5",
                  "--replica-schema", str(tmp_path / "dropped.sql"))
    assert res.exit_code == 2, res.output
    assert res.output.strip().endswith("replica provisioning: truth/snapshot.sql:10: d.t.c: error 1054: "
                                       "Unknown column 'c' in 'INSERT INTO' (the replica has no column c)")
    assert len(res.output.strip().splitlines()) == 1
    ok = run_cli("--out", str(tmp_path / "y"), "--schema", str(p), *base, "--initial-rows", "5",
                 "--replica-schema", str(tmp_path / "r.sql"), "--replica-conversions", "ALL_LOSSY")
    assert ok.exit_code == 0, ok.output
    provision = (tmp_path / "y" / "truth" / "replica" / "provision.sql").read_text()
    assert REPLICA.strip() in provision and provision.count("INSERT INTO `d`.`t`") == 1


def test_a_replica_schema_of_create_and_alter_is_read_as_its_folded_create(run_cli, tmp_path: Path) -> None:
    """A replica schema exported as phpMyAdmin does (CREATE TABLE, then ALTER TABLE adding the
    key and a column) is the table REPLICA declares in one statement: the same replica truth."""
    p, r = _files(tmp_path)
    altered = tmp_path / "altered.sql"
    altered.write_text("CREATE TABLE t (id INT NOT NULL, a SMALLINT, c VARCHAR(20) CHARACTER SET latin1);\n"
                       "ALTER TABLE t ADD PRIMARY KEY (id), ADD COLUMN x INT DEFAULT 7;\n")
    one, two = tmp_path / "one", tmp_path / "two"
    for out, schema in ((one, r), (two, altered)):
        res = run_cli("--out", str(out), "--schema", str(p), *BASE, "--replica-schema", str(schema),
                      "--replica-conversions", "ALL_LOSSY")
        assert res.exit_code == 0, res.output
    for name in ("outcome.json", "final/d.t.jsonl"):
        assert (two / "truth" / "replica" / name).read_bytes() == (one / "truth" / "replica" / name).read_bytes()
