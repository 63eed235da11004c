"""samples/: every command in samples/README.md regenerates its directory byte for byte."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main as cli_main

from .conftest import tree_digest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def _commands() -> list[list[str]]:
    text = (SAMPLES / "README.md").read_text()
    block = text.split("```sh", 1)[1].split("```", 1)[0]
    return [shlex.split(line) for line in block.splitlines() if line.startswith("binlogwriter generate")]


def _out(argv: list[str]) -> str:
    return argv[argv.index("--out") + 1]


def test_samples_cover_every_flavor_metadata_image_combination() -> None:
    cmds = _commands()
    combos = {(a[a.index("--flavor") + 1], a[a.index("--row-metadata") + 1], a[a.index("--row-image") + 1])
              for a in cmds}
    assert len(combos) == len(cmds) == 2 * 2 * 3 + 3 * 3
    assert all("--rows-query" in a for a in cmds)
    for a in cmds:
        d = ROOT / _out(a)
        assert (d / "manifest.json").is_file()
        # truth/changes (typed Parquet per table + JSONL) is most of an alltypes sample: its
        # 260-column table costs ~250 bytes of Parquet footer per column and image
        assert 2_000 < sum(p.stat().st_size for p in d.rglob("*") if p.is_file()) < 900_000


@pytest.mark.parametrize("argv", _commands(), ids=lambda a: _out(a).split("/")[-1])
def test_sample_regenerates_identically(argv: list[str], tmp_path: Path) -> None:
    rel = _out(argv)
    args = list(argv[2:])
    args[args.index("--out") + 1] = str(tmp_path / "again")
    r = CliRunner().invoke(cli_main, ["generate", *args])
    assert r.exit_code == 0, r.output
    assert tree_digest(tmp_path / "again") == tree_digest(ROOT / rel)


def test_samples_pass_verify_roundtrip() -> None:
    files = sorted(str(p) for p in SAMPLES.glob("*/binlog.[0-9]*"))
    assert len(files) >= 21
    r = CliRunner().invoke(cli_main, ["verify", "--roundtrip", *files])
    assert r.exit_code == 0, r.output[-3000:]
