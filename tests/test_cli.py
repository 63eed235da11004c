"""The ``binlogwriter`` command: ``inspect`` lists events in mysqlbinlog's style, ``verify``
ends with one summary line, ``python -m binlogwriter`` works, usage errors exit 2."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main
from binlogwriter.events import QueryEvent, XidEvent
from binlogwriter.format import BinlogFormat
from binlogwriter.reader import iter_raw
from binlogwriter.write.writer import BinlogWriter

_STATUS = [(0, 0), (1, 0), (6, "std"), (4, {"client": 33, "connection": 33, "server": 45})]

# mysqlbinlog's event header line: #YYMMDD HH:MM:SS (hour space-padded) ... (format.md, OUTPUT)
HEADER_LINE = re.compile(
    r"^#(\d{6}) ([ \d]\d:\d\d:\d\d) server id (\d+)  end_log_pos (\d+) CRC32 0x([0-9a-f]{8}) \t(.*)$")


def _write(directory: Path, flavor: str = "mysql80", transactions: int = 3, max_size: int = 1 << 30) -> list[Path]:
    fmt = BinlogFormat.preset(flavor)
    with BinlogWriter(directory, fmt, server_id=42, max_binlog_size=max_size) as w:
        w.write(QueryEvent(thread_id=5, db="shop", status_vars=list(_STATUS),
                           query="CREATE TABLE orders (id INT PRIMARY KEY)"))
        for n in range(transactions):
            w.advance(3600 * 5 + 61)
            w.write_group([QueryEvent(thread_id=5, flags=0x08, status_vars=list(_STATUS), query="BEGIN"),
                           QueryEvent(thread_id=5, db="shop", status_vars=list(_STATUS),
                                      query=f"INSERT INTO orders VALUES ({n})"),
                           XidEvent(xid=n + 10)])
    return w.files


def _run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output


@pytest.fixture(params=["mysql80", "mysql84", "mariadb1011"])
def flavor(request) -> str:
    return request.param


# ------------------------------------------------------------------------------ inspect


def test_inspect_listing(tmp_path: Path, flavor: str) -> None:
    (f,) = _write(tmp_path, flavor)
    code, out = _run("inspect", str(f))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "# at 4"
    m = HEADER_LINE.match(lines[1])
    assert m, lines[1]
    assert m.group(1) == "260101" and m.group(2) == " 0:00:00"  # DEFAULT_START_TIME, UTC
    assert m.group(3) == "42"
    fde_len = {"mysql80": 122, "mysql84": 123, "mariadb1011": 252}[flavor]
    assert m.group(4) == str(4 + fde_len)
    version = BinlogFormat.preset(flavor).server_version
    assert m.group(6).startswith(f"Start: binlog v 4, server v {version}")
    # every event has its "# at" line, and the header line right after it carries the right numbers
    recs = list(iter_raw(f))
    ats = [int(x[5:]) for x in lines if x.startswith("# at ")]
    assert ats == [r.offset for r in recs]
    for rec in recs:
        i = lines.index(f"# at {rec.offset}")
        hm = HEADER_LINE.match(lines[i + 1])
        assert hm, lines[i + 1]
        assert int(hm.group(4)) == rec.log_pos
        assert int(hm.group(5), 16) == int.from_bytes(rec.data[-4:], "little")
    # SQL of the Query events, the later hours space-padded / zero-padded as mysqlbinlog does
    assert "CREATE TABLE orders (id INT PRIMARY KEY)" in lines
    assert "INSERT INTO orders VALUES (2)" in lines
    assert "use `shop`/*!*/;" in lines
    assert any(x.startswith("#260101  5:01:01 server id ") for x in lines)
    assert any(x.startswith("#260101 10:02:02 server id ") for x in lines)
    assert any("Xid = 12" in x for x in lines)


def test_inspect_start_and_stop_position(tmp_path: Path) -> None:
    (f,) = _write(tmp_path)
    recs = list(iter_raw(f))
    start, stop = recs[4].offset, recs[7].offset
    code, out = _run("inspect", "--start-position", str(start), "--stop-position", str(stop), str(f))
    assert code == 0, out
    ats = [int(x[5:]) for x in out.splitlines() if x.startswith("# at ")]
    assert ats == [r.offset for r in recs[4:7]]
    code, out = _run("inspect", "--start-position", str(recs[-2].offset), str(f))
    assert [int(x[5:]) for x in out.splitlines() if x.startswith("# at ")] == [recs[-2].offset, recs[-1].offset]
    code, out = _run("inspect", "--stop-position", str(recs[2].offset), str(f))
    assert [int(x[5:]) for x in out.splitlines() if x.startswith("# at ")] == [r.offset for r in recs[:2]]


def test_inspect_header_lines_match_mariadb_binlog(tmp_path: Path) -> None:
    """The '# at' and header lines (up to the tab) are what mariadb-binlog prints for the file."""
    exe = shutil.which("mariadb-binlog")
    if exe is None:
        pytest.fail("mariadb-binlog is not installed; this test must run, not skip", pytrace=False)
    (f,) = _write(tmp_path, "mariadb1011")
    code, out = _run("inspect", str(f))
    assert code == 0
    theirs = subprocess.run([exe, str(f)], capture_output=True, text=True, timeout=60).stdout

    def heads(text: str) -> list[str]:
        return [x.split("\t")[0] for x in text.splitlines() if x.startswith("# at ") or HEADER_LINE.match(x)]

    assert heads(out) == heads(theirs)


def test_inspect_corrupt_file_exits_1(tmp_path: Path) -> None:
    (f,) = _write(tmp_path)
    data = bytearray(f.read_bytes())
    data[-10] ^= 0xFF
    f.write_bytes(bytes(data))
    res = CliRunner().invoke(main, ["inspect", str(f)])
    assert res.exit_code == 1
    assert "CRC32" in res.output and f"{f}:" in res.output


# ------------------------------------------------------------------------------ verify


def test_verify_summary_line(tmp_path: Path, flavor: str) -> None:
    files = _write(tmp_path, flavor, transactions=60, max_size=4096)
    assert len(files) >= 2
    n_events = sum(len(list(iter_raw(f))) for f in files)
    code, out = _run("verify", *map(str, files))
    assert code == 0, out
    assert out.strip().splitlines()[-1] == f"{len(files)} files, {n_events} events: OK"
    code, out = _run("verify", "--roundtrip", *map(str, files))
    assert code == 0, out
    assert out.strip().splitlines()[-1] == f"{len(files)} files, {n_events} events: OK"


def test_verify_missing_file_fails(tmp_path: Path) -> None:
    code, out = _run("verify", str(tmp_path / "nope.000001"))
    assert code == 1
    assert "nope.000001" in out.strip().splitlines()[-1]


@pytest.mark.parametrize("roundtrip", [[], ["--roundtrip"]])
def test_verify_magic_alone_is_a_cut_file(tmp_path: Path, roundtrip: list) -> None:
    """A file holding the magic and no FORMAT_DESCRIPTION_EVENT fails with and without
    --roundtrip (a server writes the FDE right after the magic, docs/format.md §4)."""
    f = tmp_path / "binlog.000001"
    f.write_bytes(b"\xfebin")
    code, out = _run("verify", *roundtrip, str(f))
    assert code == 1
    assert f"FORMAT_DESCRIPTION_EVENT missing after the magic - at {f}:4" in out.strip().splitlines()[-1]


def test_inspect_magic_alone_fails_as_verify_does(tmp_path: Path) -> None:
    """inspect of the magic alone printed nothing and exited 0 while verify failed the file
    (issue #27): now the same located error on stderr and status 1."""
    f = tmp_path / "binlog.000001"
    f.write_bytes(b"\xfebin")
    res = CliRunner().invoke(main, ["inspect", str(f)])
    assert res.exit_code == 1
    assert res.stdout == ""
    assert res.stderr == f"binlogwriter: file holds no events: FORMAT_DESCRIPTION_EVENT missing after the magic - at {f}:4\n"


# ------------------------------------------------------------------------------ entry points


def test_python_m_help() -> None:
    proc = subprocess.run([sys.executable, "-m", "binlogwriter", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "inspect" in proc.stdout and "verify" in proc.stdout


def test_console_script_help() -> None:
    # The console script installed beside this interpreter (a venv need not be activated).
    beside = Path(sys.executable).parent / "binlogwriter"
    exe = str(beside) if beside.exists() else shutil.which("binlogwriter")
    assert exe is not None, "the binlogwriter command is not installed (pip install -e .)"
    proc = subprocess.run([exe, "verify", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--roundtrip" in proc.stdout


@pytest.mark.parametrize("args", [
    ["inspect"],
    ["verify"],
    ["no-such-command"],
    ["inspect", "--start-position", "-1", "x"],
    ["inspect", "--start-position", "abc", "x"],
    ["inspect", "--no-such-option", "x"],
    ["inspect", "/nonexistent/binlog.000001"],
])
def test_usage_errors_exit_2(args: list[str], tmp_path: Path) -> None:
    (f,) = _write(tmp_path, transactions=0)
    args = [str(f) if a == "x" else a for a in args]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
