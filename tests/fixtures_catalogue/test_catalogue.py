"""The fixture catalogue (binlogwriter.fixtures): every entry, in every flavor it exists in, is
decoded by our reader to exactly its truth, holds the shape it documents (event types, sizes,
column counts checked on the bytes), is deterministic, and is written by the CLI with its
truth.jsonl. Third-party decoders and the MariaDB replay: test_catalogue_conformance.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main as cli_main
from binlogwriter.fixtures import ENTRIES, entry, names
from binlogwriter.reader import BinlogReader
from binlogwriter.testing import assert_changes_equal, read_changes

CASES = [(n, f) for n, e in ENTRIES.items() for f in (e.flavors[:1] if e.large else e.flavors)]  # large: once


def _schemas(case):
    """Tables to fill in what MINIMAL / NO_LOG metadata leave out (FULL needs none)."""
    return () if case.settings.row_metadata == "FULL" else case.tables


def _types(files) -> list[int]:
    return [rec.type_code for rec in BinlogReader(files).records()]


# event types a shape must show (format.md / mariadb.md): 40 payload, 42 tagged GTID,
# 29 ROWS_QUERY, 160 ANNOTATE_ROWS
SHAPE_EVENTS = {
    "compressed_transaction": {40},
    "tagged_gtid": {42},
}


@pytest.mark.parametrize("name,flavor", CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_entry_reads_back_as_its_truth(tmp_path: Path, name: str, flavor: str) -> None:
    e = entry(name)
    case = e.write(tmp_path / "a", flavor)
    assert case.changes, "an entry without row changes"
    assert_changes_equal(read_changes(case.files, _schemas(case)), case.changes)
    again = e.write(tmp_path / "b", flavor)
    assert [f.read_bytes() for f in case.files] == [f.read_bytes() for f in again.files], "not deterministic"
    types = set(_types(case.files))
    assert SHAPE_EVENTS.get(name, set()) <= types
    if name == "rows_query_long":
        code = 160 if flavor.startswith("mariadb") else 29
        texts = [ev for ev in BinlogReader(case.files) if ev.type_code == code]
        assert texts and max(len(getattr(ev, "query", b"") or b"") for ev in texts) > 255
    if name == "tagged_gtid":
        assert len(case.files) >= 2, "the tagged GTID set must reach a later file's PREVIOUS_GTIDS"


def test_large_entry_has_an_event_over_16mb(tmp_path: Path) -> None:
    case = entry("event_over_16mb").write(tmp_path)
    sizes = [len(rec.data) for rec in BinlogReader(case.files).records()]
    assert max(sizes) > 1 << 25  # > 32 MB: over two 16 MB packets


def test_wide_entries_have_their_column_counts(tmp_path: Path) -> None:
    for n in (251, 260):
        case = entry(f"wide_{n}_columns").write(tmp_path / str(n), "mysql80")
        maps = [ev for ev in BinlogReader(case.files) if ev.type_code == 19]
        assert maps and all(len(ev.column_types) == n for ev in maps)


def test_cli_list_names_every_entry() -> None:
    res = CliRunner().invoke(cli_main, ["fixture", "--list"])
    assert res.exit_code == 0, res.output
    listed = [line.split()[0] for line in res.output.splitlines()]
    assert listed == names()


@pytest.mark.parametrize("name", ["decimal_group_boundaries", "alter_table_midstream"])
def test_cli_writes_files_and_truth(tmp_path: Path, name: str) -> None:
    res = CliRunner().invoke(cli_main, ["fixture", name, "--out", str(tmp_path), "--flavor", "mariadb1011"])
    assert res.exit_code == 0, res.output
    files = sorted(tmp_path.glob("binlog.0*"))
    lines = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()]
    decoded = read_changes(files)
    assert len(lines) == len(decoded) and [x["op"] for x in lines] == [c.op for c in decoded]
    assert (tmp_path / "schema.sql").read_text().startswith("CREATE TABLE")
    res = CliRunner().invoke(cli_main, ["verify", "--roundtrip", *map(str, files)])
    assert res.exit_code == 0, res.output


def test_cli_unknown_name_and_flavor(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli_main, ["fixture", "nope", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "no fixture named 'nope'" in res.output  # a usage error (issue #27)
    res = CliRunner().invoke(cli_main, ["fixture", "tagged_gtid", "--out", str(tmp_path), "--flavor", "mysql80"])
    assert res.exit_code == 2 and "exists for mysql84" in res.output


def test_doc_is_rendered_from_the_catalogue(repo_root: Path) -> None:
    """docs/fixtures.md lists every entry with its shape and references (regenerate with
    ``python -m binlogwriter.fixtures._doc > docs/fixtures.md``)."""
    from binlogwriter.fixtures._doc import render

    doc = (repo_root / "docs" / "fixtures.md").read_text()
    assert doc == render(), "docs/fixtures.md is out of date: regenerate it"
    assert all(f"### `{e.name}`" in doc and e.shape in doc for e in ENTRIES.values())


def _optional_metadata(case) -> dict[int, bytes]:
    tm = next(ev for ev in BinlogReader(case.files) if ev.type_code == 19)
    return {m["type"]: m["value"] for m in tm.optional_metadata}


@pytest.mark.parametrize("flavor,default", [("mysql80", b"\xfc\xff\x00"), ("mariadb1011", b"\x2d")])
def test_default_charset_pairs_count_character_columns_only(tmp_path: Path, flavor: str, default: bytes) -> None:
    """id INT, a utf8mb4, n DECIMAL, b latin1, m INT, c utf8mb4, d gbk, e utf8mb4: the exceptions
    are the 2nd and 4th *character* columns (1 -> latin1 8, 3 -> gbk 28), not columns 3 and 6."""
    meta = _optional_metadata(entry("default_charset_char_columns").write(tmp_path, flavor))
    assert meta[2] == default + bytes([1, 8, 3, 28])


@pytest.mark.parametrize("flavor,bits", [("mysql80", 0b01011000), ("mariadb1011", 0b11011000)])
def test_year_takes_a_signedness_bit(tmp_path: Path, flavor: str, bits: int) -> None:
    """y YEAR, a TINYINT UNSIGNED, b SMALLINT, c INT UNSIGNED, d BIGINT UNSIGNED, e MEDIUMINT:
    YEAR has the first bit — 0 in MySQL, 1 in MariaDB — and the others follow it."""
    meta = _optional_metadata(entry("year_signedness").write(tmp_path, flavor))
    assert meta[1] == bytes([bits])


def test_every_reference_is_a_checked_link() -> None:
    """Each entry cites at least one public report, and every citation carries the address of
    the tracker page it was checked against (binlogwriter/fixtures/_doc.py LINKS)."""
    from binlogwriter.fixtures._doc import LINKS

    for e in ENTRIES.values():
        assert e.reproduces, e.name
        for r in e.reproduces:
            assert LINKS.get(r, "").startswith("https://github.com/"), (e.name, r)
