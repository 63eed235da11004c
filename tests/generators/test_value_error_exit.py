"""A value that does not fit its column, found while generating, is the user's mistake like
any other bad input: one line naming db.table.column, exit status 2, nothing at --out nor
beside it (issue 15; docs/generate.md)."""

from __future__ import annotations

from pathlib import Path


def test_value_error_while_generating_exits_2(tmp_path: Path, run_cli) -> None:
    schema = tmp_path / "s.sql"
    schema.write_text("CREATE TABLE t (id INT PRIMARY KEY, n TINYINT, v VARCHAR(5));\n")
    spec = tmp_path / "s.json"  # the user's own generator goes past the column's range
    spec.write_text('{"columns": {"t.n": {"gen": "int", "min": 0, "max": 1000}}}')
    out = tmp_path / "out"
    result = run_cli("--out", str(out), "--schema", str(schema), "--spec", str(spec), "--initial-rows", "50",
                     "--transactions", "10", "--no-progress")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("binlogwriter generate: error: TINYINT: holds -128..127, got ")
    assert lines[0].endswith(" - at test.t.n row 0")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json", "s.sql"]


def test_a_key_narrower_than_the_initial_rows_holds_what_it_can(tmp_path: Path, run_cli) -> None:
    """A TINYINT key with --initial-rows 1000 (it was this error: a key past 127) has 127
    initial rows, its INSERTs past them skipped (generators/workloads/custom.py)."""
    schema = tmp_path / "s.sql"
    schema.write_text("CREATE TABLE t (id TINYINT PRIMARY KEY, v VARCHAR(5));\n")
    out = tmp_path / "out"
    result = run_cli("--out", str(out), "--schema", str(schema), "--initial-rows", "1000",
                     "--transactions", "10", "--no-progress")
    assert result.exit_code == 0, result.output
    rows = [x for x in (out / "truth" / "snapshot.sql").read_text().splitlines() if x.startswith("(")]
    assert [int(r[1:].split(",")[0]) for r in rows] == list(range(1, 128))
