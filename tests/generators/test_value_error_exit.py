"""A value that does not fit its column, found while generating, is the user's mistake like
any other bad input: one line naming db.table.column, exit status 2, nothing at --out nor
beside it (issue 15; docs/generate.md)."""

from __future__ import annotations

from pathlib import Path


def test_value_error_while_generating_exits_2(tmp_path: Path, run_cli) -> None:
    schema = tmp_path / "s.sql"
    schema.write_text("CREATE TABLE t (id TINYINT PRIMARY KEY, v VARCHAR(5));\n")
    out = tmp_path / "out"
    result = run_cli("--out", str(out), "--schema", str(schema), "--initial-rows", "1000",
                     "--transactions", "10", "--no-progress")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("binlogwriter generate: error: TINYINT: holds -128..127, got ")
    assert lines[0].endswith(" - at test.t.id row 0")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sql"]
