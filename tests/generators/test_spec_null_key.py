"""YAML reads an unquoted ``null`` key as the null scalar: ``{gen: text, null: 0.2}`` (the
form docs/generate.md shows) is the generator setting ``null``, not a setting named 'None'
(issue #27); giving both spellings is refused with the spec file's line."""

from __future__ import annotations

import json
from pathlib import Path

from generators.spec import Spec, read_spec_file


def _columns(tmp_path: Path, entry: str) -> tuple:
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"workload: ecommerce\ncolumns:\n  products.description: {entry}\n")
    return Spec.from_dict(read_spec_file(spec).data).columns


def test_an_unquoted_null_key_is_the_null_setting(tmp_path: Path) -> None:
    (gen,) = _columns(tmp_path, "{gen: text, min_len: 5, max_len: 20, null: 0.2}")
    assert gen.target == "products.description" and gen.gen == "text"
    assert dict(gen.params) == {"min_len": 5, "max_len": 20, "null": 0.2}
    assert _columns(tmp_path, '{gen: text, min_len: 5, max_len: 20, "null": 0.2}') == (gen,)


def _run(tmp_path: Path, run_cli, text: str):
    """``generate --spec`` of a spec file holding ``text``, one transaction: (result, spec, out)."""
    spec, out = tmp_path / "spec.yaml", tmp_path / "out"
    spec.write_text(text)
    return run_cli("--out", str(out), "--spec", str(spec), "--transactions", "1", "--no-progress"), spec, out


def test_both_spellings_are_refused_with_the_line(tmp_path: Path, run_cli) -> None:
    text = 'workload: ecommerce\ncolumns:\n  products.description: {gen: text, null: 0.2, "null": 0.5}\n'
    r, spec, out = _run(tmp_path, run_cli, text)
    assert r.exit_code == 2, r.output
    assert r.output.strip() == (
        f"binlogwriter generate: error: {spec}:3: spec columns.products.description: "
        'null given twice (null and "null")'
    )
    assert not out.exists()


def test_the_null_setting_makes_nulls(tmp_path: Path, run_cli) -> None:
    text = "workload: ecommerce\ninitial_rows: 200\ncolumns:\n  products.description: {gen: text, null: 1}\n"
    r, _, out = _run(tmp_path, run_cli, text)
    assert r.exit_code == 0, r.output
    rows = (out / "truth" / "final").glob("*.products.jsonl")
    values = [json.loads(line)["description"] for f in rows for line in f.read_text().splitlines()]
    assert len(values) >= 200 and set(values) == {None}
