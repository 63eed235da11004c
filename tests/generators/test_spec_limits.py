"""A text generator whose min_len cannot fit its column is refused, not silently cut
(issue 15), with the spec file's line, status 2 and nothing at --out."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize("ddl,min_len,ok", [("VARCHAR(5)", 10, False), ("CHAR(3)", 4, False),
                                            ("VARCHAR(5)", 5, True), ("VARCHAR(50)", 10, True)])
def test_text_min_len_longer_than_the_column(tmp_path: Path, run_cli, ddl: str, min_len: int, ok: bool) -> None:
    schema = tmp_path / "s.sql"
    schema.write_text(f"CREATE TABLE t (id INT PRIMARY KEY, v {ddl});\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"columns:\n  t.v: {{gen: text, min_len: {min_len}, max_len: {min_len + 10}}}\n")
    out = tmp_path / "out"
    r = run_cli("--out", str(out), "--schema", str(schema), "--spec", str(spec), "--transactions", "5",
                "--no-progress")
    if ok:
        assert r.exit_code == 0, r.output
        return
    assert r.exit_code == 2, r.output
    assert f"spec.yaml:2: spec columns.t.v: text min_len {min_len} is longer than the column's {ddl}" in r.output
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sql", "spec.yaml"]
