"""The ``binlogwriter`` command line as a user meets it (issue #27 item 6): unknown names get
a did-you-mean and status 2, errors name command-line flags rather than library keyword
arguments, and Ctrl-C ends every command with one line and status 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main
from binlogwriter.cli_support import cli_message
from binlogwriter.errors import OutputExistsError, did_you_mean
from binlogwriter.fixtures import entry
from binlogwriter.reader import BinlogReader

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


# ------------------------------------------------------------------------ did you mean


def test_did_you_mean() -> None:
    assert did_you_mean("zero_date", ["zero_dates", "negative_time"]) == " (did you mean 'zero_dates'?)"
    assert did_you_mean("SYSBENC", ["sysbench", "ecommerce"]) == " (did you mean 'sysbench'?)"
    assert did_you_mean("qqqq", ["sysbench", "ecommerce"]) == ""


def test_unknown_fixture_name_suggests_and_exits_2(tmp_path: Path) -> None:
    res = _cli("fixture", "zero_date", "--out", str(tmp_path / "fx"))
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1
    assert "no fixture named 'zero_date' (did you mean 'zero_dates'?)" in res.stderr
    assert not (tmp_path / "fx").exists()


def test_unknown_fixture_flavor_suggests_and_exits_2(tmp_path: Path) -> None:
    res = _cli("fixture", "tagged_gtid", "--out", str(tmp_path / "fx"), "--flavor", "mysql8")
    assert res.exit_code == 2
    assert (
        "--flavor: fixture 'tagged_gtid' exists for mysql84, not 'mysql8' (did you mean 'mysql84'?)"
        in res.stderr
    )
    assert not (tmp_path / "fx").exists()


def test_fixture_into_a_used_directory_names_the_flag(tmp_path: Path) -> None:
    out = tmp_path / "fx"
    assert _cli("fixture", "zero_dates", "--out", str(out)).exit_code == 0
    before = sorted(p.name for p in out.iterdir())
    res = _cli("fixture", "negative_time", "--out", str(out))
    assert res.exit_code == 2
    assert f"--out: {out} already exists and is not an empty directory" in res.stderr
    assert "overwrite" not in res.stderr
    assert sorted(p.name for p in out.iterdir()) == before


@pytest.mark.parametrize(
    "args,expected",
    [
        (["--workload", "sysbenc"], "(did you mean 'sysbench'?)"),
        (["--flavor", "mariadb1012"], "(did you mean 'mariadb1011'?)"),
        (["--engine", "sprak"], "(did you mean 'spark'?)"),
        (["--mix", "insret=1"], "--mix: unknown operation 'insret' (did you mean 'insert'?)"),
        (["--exclude-types", "JSN"], "--exclude-types: unknown type 'JSN' (did you mean 'JSON'?)"),
    ],
)
def test_generate_names_suggest(tmp_path: Path, args: list[str], expected: str) -> None:
    res = _cli("generate", "--out", str(tmp_path / "o"), *args)
    assert res.exit_code == 2, res.output
    assert expected in res.stderr and res.stderr.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_spec_file_names_suggest(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("workload: ecommerce\ncolumns:\n  products.stock: {gen: itn}\n")
    res = _cli("generate", "--out", str(tmp_path / "o"), "--spec", str(spec))
    assert res.exit_code == 2
    assert f"{spec}:3: spec columns.products.stock: unknown gen 'itn' (did you mean 'int'?)" in res.stderr


# ------------------------------------------------------------ library words -> flags


def test_output_exists_advice_in_library_and_cli_words(tmp_path: Path) -> None:
    entry("zero_dates").write(tmp_path)
    with pytest.raises(OutputExistsError) as info:
        entry("zero_dates").write(tmp_path)
    assert str(info.value) == f"{tmp_path / 'binlog.000001'} exists; pass overwrite=True to replace it"
    assert cli_message(info.value) == f"{tmp_path / 'binlog.000001'} exists; choose an empty --out directory"


def test_export_without_names_names_the_schema_flag(tmp_path: Path) -> None:
    case = entry("metadata_minimal").write(tmp_path / "bin", "mysql80")
    with pytest.raises(Exception) as info:  # the library names its keyword argument
        list(BinlogReader(case.files).changes())
    assert "pass schemas= (Table objects or a CREATE TABLE file) - at " in str(info.value)
    res = _cli("export", *map(str, case.files), "--to", "parquet", str(tmp_path / "pq"))
    assert res.exit_code == 1
    (line,) = res.stderr.splitlines()
    assert (
        "the Table_map carries no column names (binlog_row_metadata is not FULL); give --schema FILE" in line
    )
    assert "schemas=" not in line


# ------------------------------------------------------------------------------ Ctrl-C


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }


# each command's work stands still (a patched step prints "working" and sleeps) so the signal
# lands inside the command, not in the interpreter's start-up
_PATCHED = {
    "inspect": "binlogwriter.text.listing.write_listing",
    "verify": "binlogwriter.read.framing.scan_file",
    "fixture": "binlogwriter.fixtures.catalogue.Entry.write",
    "export": "binlogwriter.read.export.export_parquet",
}


@pytest.mark.parametrize("command", sorted(_PATCHED))
def test_ctrl_c_is_one_line_and_status_130(tmp_path: Path, command: str) -> None:
    f = entry("zero_dates").write(tmp_path / "bin").files[0]
    args = {
        "inspect": ["inspect", str(f)],
        "verify": ["verify", str(f)],
        "fixture": ["fixture", "zero_dates", "--out", str(tmp_path / "fx")],
        "export": ["export", str(f), "--to", "parquet", str(tmp_path / "pq")],
    }[command]
    module, _, attr = _PATCHED[command].rpartition(".")
    owner, _, cls = module.rpartition(".") if attr == "write" else (module, "", "")
    target = f"importlib.import_module({owner!r}).{cls}" if cls else f"importlib.import_module({module!r})"
    code = (
        "import importlib, sys, time\n"
        "def stall(*a, **k):\n    print('working', flush=True)\n    time.sleep(60)\n"
        f"setattr({target}, {attr!r}, stall)\n"
        "from binlogwriter.cli import main\n"
        f"main({args!r})\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "working\n", proc.communicate()[1]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == "binlogwriter: interrupted\n"


def test_ctrl_c_during_a_large_generate(tmp_path: Path) -> None:
    """generate cleans up first (its own handler) and ends with its own one line, status 130."""
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "binlogwriter",
            "generate",
            "--out",
            str(out),
            "--size",
            "5G",
            "--no-progress",
        ],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    end = time.monotonic() + 60
    while not any(p.name.startswith(".out.tmp-") for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()[1]
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == f"binlogwriter generate: interrupted by SIGINT (nothing was left at {out})\n"
    assert list(tmp_path.iterdir()) == []
