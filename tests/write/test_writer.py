"""BinlogWriter: the file-level invariants of format.md §1, §3, §4, §18 and docs/output.md.

Positions chain (log_pos = offset + event_length), every CRC32 is valid, FDE sizes per flavor,
rotation at max_binlog_size with a ROTATE naming the next file and ``binlog.index`` listing
``./binlog.NNNNNN``, STOP at the end, the in-use flag cleared on close, create_timestamp only
in the first file, no temporary files left, determinism, abort, and MariaDB's own
``mariadb-binlog`` reading what we write without an error or a warning.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from binlogwriter.events import (
    AnonymousGtidEvent,
    BinlogCheckpointEvent,
    FormatDescriptionEvent,
    MariadbGtidEvent,
    MariadbGtidListEvent,
    PreviousGtidsEvent,
    QueryEvent,
    RotateEvent,
    StopEvent,
    XidEvent,
)
from binlogwriter.format import BinlogFormat, Checksum
from binlogwriter.reader import BinlogReader, iter_raw
from binlogwriter.write.writer import BinlogWriter

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
# format.md §4 / mariadb.md "FDE": FDE length with the checksum field, and where the next event starts
FDE_SIZE = {"mysql80": 122, "mysql84": 123, "mariadb1011": 252}

_CHARSET = {"client": 33, "connection": 33, "server": 45}
_STATUS = [(0, 0), (1, 0x45A00020), (6, "std"), (4, _CHARSET)]


def _transaction(flavor: str, n: int) -> list:
    """One statement-format transaction: GTID · BEGIN · INSERT · XID (MariaDB: GTID replaces BEGIN)."""
    insert = QueryEvent(thread_id=7, db="d", status_vars=list(_STATUS),
                        query=f"INSERT INTO t VALUES ({n}, '{'x' * 40}')")
    xid = XidEvent(xid=100 + n)
    if flavor == "mariadb1011":
        return [MariadbGtidEvent(seq_no=n + 1, domain_id=0, flags2=0x0C, flags=0x08), insert, xid]
    gtid = AnonymousGtidEvent(last_committed=n, sequence_number=n + 1,
                              immediate_commit_timestamp=1_767_225_600_000_000 + n,
                              transaction_length=None, immediate_server_version=None)
    begin = QueryEvent(thread_id=7, flags=0x08, status_vars=list(_STATUS), query="BEGIN")
    return [gtid, begin, insert, xid]


def write_files(directory: Path, flavor: str, *, transactions: int = 5, max_size: int = 1 << 30,
                checksum: Checksum = Checksum.CRC32) -> list[Path]:
    fmt = BinlogFormat.preset(flavor, checksum=checksum)
    with BinlogWriter(directory, fmt, max_binlog_size=max_size, server_id=3) as w:
        w.write(QueryEvent(thread_id=7, db="d", status_vars=list(_STATUS), query="CREATE TABLE t (a INT)"))
        for n in range(transactions):
            w.advance(1)
            w.write_group(_transaction(flavor, n))
    return w.files


@pytest.fixture(params=FLAVORS)
def flavor(request) -> str:
    return request.param


# ------------------------------------------------------------------------------ framing


def test_log_pos_chain_and_crc(tmp_path: Path, flavor: str) -> None:
    files = write_files(tmp_path, flavor, transactions=30, max_size=4096)
    assert len(files) >= 2
    for f in files:
        data = f.read_bytes()
        assert data[:4] == b"\xfebin"
        offset = 4
        count = 0
        while offset < len(data):
            length = int.from_bytes(data[offset + 9:offset + 13], "little")
            log_pos = int.from_bytes(data[offset + 13:offset + 17], "little")
            assert log_pos == offset + length, f"{f.name}:{offset}: log_pos {log_pos}"
            event = data[offset:offset + length]
            stored = int.from_bytes(event[-4:], "little")
            src = bytearray(event[:-4])
            if event[4] == 15:
                src[17] &= 0xFE  # the FDE's CRC is computed with the in-use flag cleared (format.md §3)
            assert zlib.crc32(bytes(src)) == stored, f"{f.name}:{offset}: CRC32"
            offset += length
            count += 1
        assert offset == len(data)
        assert count >= 4


def test_fde_size_and_next_position(tmp_path: Path, flavor: str) -> None:
    (f,) = write_files(tmp_path, flavor, transactions=1)
    data = f.read_bytes()
    assert data[4 + 4] == 15
    length = int.from_bytes(data[4 + 9:4 + 13], "little")
    assert length == FDE_SIZE[flavor]
    assert int.from_bytes(data[4 + 13:4 + 17], "little") == 4 + FDE_SIZE[flavor]
    assert data[4 + length - 5] == 1  # checksum alg CRC32
    recs = list(iter_raw(f))
    assert recs[1].offset == 4 + FDE_SIZE[flavor]  # 126 / 127 / 256


@pytest.mark.parametrize("flavor_", FLAVORS)
def test_checksum_none_file(tmp_path: Path, flavor_: str) -> None:
    (f,) = write_files(tmp_path, flavor_, transactions=2, checksum=Checksum.NONE)
    recs = list(iter_raw(f))
    fde = recs[0].data
    # the FDE keeps the alg byte (0) and a valid CRC32 (format.md §3)
    assert len(fde) == FDE_SIZE[flavor_]
    assert fde[-5] == 0
    assert zlib.crc32(fde[:-4]) == int.from_bytes(fde[-4:], "little")
    xids = [r for r in recs if r.type_code == 16]
    assert xids and all(len(r.data) == 19 + 8 for r in xids)  # no footer
    assert [e.type_code for e in BinlogReader([f])][-1] == 3


def test_events_get_the_writer_server_id(tmp_path: Path, flavor: str) -> None:
    """Events built without a server_id are written with the writer's (here 3), like the
    FDE / PREVIOUS_GTIDS / STOP the writer makes itself."""
    (f,) = write_files(tmp_path, flavor, transactions=2)
    ids = {(r.type_code, int.from_bytes(r.data[5:9], "little")) for r in iter_raw(f)}
    assert {sid for _, sid in ids} == {3}, sorted(ids)


def test_second_events_per_flavor(tmp_path: Path, flavor: str) -> None:
    (f,) = write_files(tmp_path, flavor, transactions=1)
    events = list(BinlogReader([f]))
    assert isinstance(events[0], FormatDescriptionEvent)
    if flavor == "mariadb1011":
        assert isinstance(events[1], MariadbGtidListEvent)
        assert isinstance(events[2], BinlogCheckpointEvent)
    else:
        assert isinstance(events[1], PreviousGtidsEvent)
        assert events[1].flags & 0x80


# ------------------------------------------------------------------------------ rotation


def test_rotation_rotate_event_and_index(tmp_path: Path, flavor: str) -> None:
    files = write_files(tmp_path, flavor, transactions=60, max_size=4096)
    names = [p.name for p in files]
    assert names == [f"binlog.{i:06d}" for i in range(1, len(files) + 1)]
    assert len(files) >= 3
    index = (tmp_path / "binlog.index").read_text()
    assert index == "".join(f"./{n}\n" for n in names)
    for i, f in enumerate(files):
        events = list(BinlogReader([f]))
        last = events[-1]
        if i < len(files) - 1:
            assert isinstance(last, RotateEvent)
            assert last.next_file == names[i + 1]
            assert last.position == 4
            # servers rotate between transactions, once the file reached max_binlog_size
            assert f.stat().st_size - last.origin.length >= 4096
            assert f.stat().st_size - last.origin.length - 4096 < 600
        else:
            assert isinstance(last, StopEvent)
        assert not any(isinstance(e, StopEvent | RotateEvent) for e in events[:-1])


def test_in_use_flag_cleared_and_create_timestamp(tmp_path: Path, flavor: str) -> None:
    files = write_files(tmp_path, flavor, transactions=40, max_size=4096)
    assert len(files) >= 2
    for i, f in enumerate(files):
        fde = next(iter(BinlogReader([f])))
        assert isinstance(fde, FormatDescriptionEvent)
        assert fde.flags & 0x0001 == 0, f"{f.name}: in-use flag left set"
        if i == 0:
            assert fde.create_timestamp == fde.timestamp != 0
        else:
            assert fde.create_timestamp == 0


def test_no_part_files_left(tmp_path: Path, flavor: str) -> None:
    write_files(tmp_path, flavor, transactions=40, max_size=4096)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")]
    assert leftovers == []


def test_same_inputs_same_bytes(tmp_path: Path, flavor: str) -> None:
    def digest(d: Path) -> list[str]:
        files = write_files(d, flavor, transactions=40, max_size=4096)
        return [hashlib.sha256(f.read_bytes()).hexdigest() for f in files] + [
            hashlib.sha256((d / "binlog.index").read_bytes()).hexdigest()]

    assert digest(tmp_path / "a") == digest(tmp_path / "b")


def test_abort_leaves_no_half_file(tmp_path: Path, flavor: str) -> None:
    fmt = BinlogFormat.preset(flavor)
    with pytest.raises(RuntimeError, match="boom"), BinlogWriter(tmp_path, fmt) as w:
        w.write_group(_transaction(flavor, 0))
        raise RuntimeError("boom")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("binlog.0")) == []
    assert not any(p.name.endswith(".part") for p in tmp_path.iterdir())


def test_abort_after_rotation_keeps_only_complete_files(tmp_path: Path) -> None:
    fmt = BinlogFormat.mysql80()
    w = BinlogWriter(tmp_path, fmt, max_binlog_size=4096)
    for n in range(40):
        w.write_group(_transaction("mysql80", n))
    w.abort()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert not any(n.endswith(".part") for n in names)
    complete = [tmp_path / n for n in names if n.startswith("binlog.0")]
    assert complete, "the rotated files are complete and stay"
    for f in complete:
        assert isinstance(list(BinlogReader([f]))[-1], RotateEvent)


# ------------------------------------------------------------------------------ mariadb-binlog


def _mariadb_binlog() -> str:
    exe = shutil.which("mariadb-binlog")
    if exe is None:
        pytest.fail("mariadb-binlog is not installed (apt-get install mariadb-client); "
                    "this test must run, not skip", pytrace=False)
    return exe


@pytest.mark.parametrize("flavor_", ["mariadb1011", "mysql80"])
@pytest.mark.parametrize("checksum", [Checksum.CRC32, Checksum.NONE])
def test_mariadb_binlog_reads_our_files(tmp_path: Path, flavor_: str, checksum: Checksum) -> None:
    exe = _mariadb_binlog()
    files = write_files(tmp_path, flavor_, transactions=40, max_size=4096, checksum=checksum)
    assert len(files) >= 2
    proc = subprocess.run([exe, "-c", *map(str, files)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == ""
    low = proc.stdout.lower()
    assert "warning" not in low and "error" not in low.replace("error_code=0", "")
    assert proc.stdout.count("Xid = ") == 40
    assert "# End of log file" in proc.stdout
