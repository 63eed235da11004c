"""Framing errors say where (docs/design.md principle 6) and odd-but-valid framings read right.

A corrupted event body, a truncated file, a wrong magic and a too-short event each give a
located error (``file:offset``) from the reader and from ``binlogwriter verify``. An FDE
declaring longer post-headers than we know keeps the extra bytes (docs/edge-cases.md 19); an FDE still
flagged in use reads with a valid CRC (format.md §3); checksum NONE files keep the FDE's
alg byte and CRC (format.md §3, §4).
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from binlogwriter.errors import ChecksumError, DecodeError, TruncatedError
from binlogwriter.events import (
    FormatDescriptionEvent,
    QueryEvent,
    RotateEvent,
    XidEvent,
    encode_event,
)
from binlogwriter.format import BinlogFormat, Checksum
from binlogwriter.layouts.header import MAGIC
from binlogwriter.reader import BinlogReader, iter_raw
from binlogwriter.write.writer import BinlogWriter

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
_STATUS = [(0, 0), (1, 0), (6, "std"), (4, {"client": 33, "connection": 33, "server": 45})]


def _write(directory: Path, flavor: str, checksum: Checksum = Checksum.CRC32) -> Path:
    fmt = BinlogFormat.preset(flavor, checksum=checksum)
    with BinlogWriter(directory, fmt) as w:
        for n in range(3):
            w.write_group([QueryEvent(flags=0x08, status_vars=list(_STATUS), query="BEGIN"),
                           QueryEvent(db="d", status_vars=list(_STATUS), query=f"INSERT INTO t VALUES ({n})"),
                           XidEvent(xid=n + 1)])
    (path,) = w.files
    return path


def _offsets(path: Path) -> list[tuple[int, int, int]]:
    """(offset, length, type) of every event, by walking headers only."""
    data = path.read_bytes()
    out = []
    off = 4
    while off < len(data):
        length = int.from_bytes(data[off + 9:off + 13], "little")
        out.append((off, length, data[off + 4]))
        off += length
    return out


def _verify(*paths: Path) -> subprocess.CompletedProcess:
    # The console script installed beside this interpreter (a venv need not be activated).
    beside = Path(sys.executable).parent / "binlogwriter"
    exe = str(beside) if beside.exists() else shutil.which("binlogwriter")
    assert exe is not None, "the binlogwriter command is not installed (pip install -e .)"
    return subprocess.run([exe, "verify", *map(str, paths)], capture_output=True, text=True, timeout=60)


@pytest.fixture(params=FLAVORS)
def flavor(request) -> str:
    return request.param


# ----------------------------------------------------------------------------- CRC


def _corrupt_insert(tmp_path: Path, flavor: str) -> tuple[Path, int]:
    path = _write(tmp_path, flavor)
    # the first INSERT Query event (not BEGIN): flip a byte of its SQL text
    queries = [(o, n) for o, n, t in _offsets(path) if t == 2]
    offset, length = queries[1]
    data = bytearray(path.read_bytes())
    data[offset + length - 4 - 3] ^= 0x5A
    path.write_bytes(bytes(data))
    return path, offset


def test_flipped_body_byte_verify_names_offset(tmp_path: Path, flavor: str) -> None:
    path, offset = _corrupt_insert(tmp_path, flavor)
    proc = _verify(path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert f"{path}:{offset}" in last
    assert "CRC32" in last


def test_flipped_body_byte_reader_raises_checksum_error(tmp_path: Path, flavor: str) -> None:
    path, offset = _corrupt_insert(tmp_path, flavor)
    with pytest.raises(ChecksumError) as info:
        list(BinlogReader([path]))
    assert info.value.file == str(path)
    assert info.value.offset == offset
    assert f"{path}:{offset}" in str(info.value)
    # not verifying checksums reads the corrupted event
    events = list(BinlogReader([path], verify_checksum=False))
    assert any(getattr(e, "origin", None) and e.origin.offset == offset for e in events)


# ----------------------------------------------------------------------------- truncation


def test_truncated_mid_event(tmp_path: Path, flavor: str) -> None:
    path = _write(tmp_path, flavor)
    offset, length, _ = _offsets(path)[-2]  # the last XID
    data = path.read_bytes()
    path.write_bytes(data[:offset + length // 2])
    with pytest.raises(TruncatedError) as info:
        list(BinlogReader([path]))
    assert info.value.file == str(path) and info.value.offset == offset
    assert f"{path}:{offset}" in str(info.value)
    proc = _verify(path)
    assert proc.returncode == 1
    assert f"{path}:{offset}" in proc.stdout.strip().splitlines()[-1]


def test_truncated_mid_header(tmp_path: Path) -> None:
    path = _write(tmp_path, "mysql80")
    offset, _, _ = _offsets(path)[-1]
    path.write_bytes(path.read_bytes()[:offset + 7])
    with pytest.raises(TruncatedError) as info:
        list(iter_raw(path))
    assert info.value.offset == offset and f"{path}:{offset}" in str(info.value)


def test_wrong_magic(tmp_path: Path, flavor: str) -> None:
    path = _write(tmp_path, flavor)
    path.write_bytes(b"\xfebim" + path.read_bytes()[4:])
    with pytest.raises(DecodeError) as info:
        list(BinlogReader([path]))
    assert info.value.offset == 0 and f"{path}:0" in str(info.value)
    proc = _verify(path)
    assert proc.returncode == 1
    assert f"{path}:0" in proc.stdout.strip().splitlines()[-1]


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    path.write_bytes(b"")
    with pytest.raises(DecodeError) as info:
        list(BinlogReader([path]))
    assert f"{path}:0" in str(info.value)


def test_event_length_below_header_size(tmp_path: Path, flavor: str) -> None:
    path = _write(tmp_path, flavor)
    offset, _, _ = _offsets(path)[3]
    data = bytearray(path.read_bytes())
    data[offset + 9:offset + 13] = (12).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(DecodeError) as info:
        list(BinlogReader([path]))
    assert info.value.offset == offset
    assert f"{path}:{offset}" in str(info.value)
    proc = _verify(path)
    assert proc.returncode == 1 and f"{path}:{offset}" in proc.stdout.strip().splitlines()[-1]


def test_event_too_short_for_its_checksum(tmp_path: Path) -> None:
    """An XID whose event_length leaves no room for body + CRC: located error, no traceback."""
    path = _write(tmp_path, "mysql80")
    offset, length, tcode = next(x for x in _offsets(path) if x[2] == 16)
    data = bytearray(path.read_bytes())
    data[offset + 9:offset + 13] = (21).to_bytes(4, "little")
    path.write_bytes(bytes(data[:offset + 21]))
    with pytest.raises(DecodeError) as info:
        list(BinlogReader([path]))
    assert info.value.offset == offset


# ----------------------------------------------------------------------------- longer post-headers


def test_longer_post_headers_than_known(tmp_path: Path) -> None:
    """docs/edge-cases.md 19: QUERY declared 13+4, ROTATE 8+3; fields decode right, the extra bytes are
    kept as ``post_header_extra`` and every event re-encodes byte-identically."""
    base = BinlogFormat.mysql80()
    table = list(base.post_header_lengths)
    table[2 - 1] = 13 + 4
    table[4 - 1] = 8 + 3
    fmt = dataclasses.replace(base, post_header_lengths=tuple(table))
    w = BinlogWriter(tmp_path, fmt, stop_event=False)
    q = QueryEvent(thread_id=9, db="d", status_vars=list(_STATUS), query="INSERT INTO t VALUES (1)",
                   post_header_extra=b"\x01\x02\x03\x04")
    w.write(q)
    w.write(XidEvent(xid=5))
    w.write(RotateEvent(position=4, next_file="binlog.000002", post_header_extra=b"\xaa\xbb\xcc"))
    w.close()
    first = w.files[0]

    reader = BinlogReader([first])
    events = list(reader)
    fde = events[0]
    assert isinstance(fde, FormatDescriptionEvent)
    assert fde.post_header_lengths[1] == 17 and fde.post_header_lengths[3] == 11
    assert reader.fmt.post_header_len(2) == 17 and reader.fmt.post_header_len(4) == 11
    query = next(e for e in events if isinstance(e, QueryEvent))
    assert (query.thread_id, query.db, query.query) == (9, "d", "INSERT INTO t VALUES (1)")
    assert query.status_vars == q.status_vars
    assert query.post_header_extra == b"\x01\x02\x03\x04"
    rotate = events[-1]
    assert isinstance(rotate, RotateEvent)
    assert rotate.next_file == "binlog.000002" and rotate.position == 4
    assert rotate.post_header_extra == b"\xaa\xbb\xcc"

    for rec in iter_raw(first):
        ev = reader.decode(rec)
        assert encode_event(ev, rec.fmt) == rec.data, f"offset {rec.offset}"


def test_writer_rotates_in_a_format_with_longer_post_headers(tmp_path: Path) -> None:
    """The writer's own ROTATE must be writable when the format declares a longer ROTATE
    post-header (it has nothing to put there but zeros)."""
    base = BinlogFormat.mysql80()
    table = list(base.post_header_lengths)
    table[4 - 1] = 8 + 3
    fmt = dataclasses.replace(base, post_header_lengths=tuple(table))
    w = BinlogWriter(tmp_path, fmt)
    w.write(XidEvent(xid=1))
    w.rotate()
    w.close()
    rotate = list(BinlogReader([w.files[0]]))[-1]
    assert isinstance(rotate, RotateEvent) and rotate.next_file == "binlog.000002"
    assert rotate.post_header_extra == b"\0\0\0"


def test_longer_post_header_without_extra_is_an_encode_error() -> None:
    from binlogwriter.errors import EncodeError

    base = BinlogFormat.mysql80()
    table = list(base.post_header_lengths)
    table[2 - 1] = 17
    fmt = dataclasses.replace(base, post_header_lengths=tuple(table))
    with pytest.raises(EncodeError, match="post_header_extra"):
        encode_event(QueryEvent(query="BEGIN"), fmt)


# ----------------------------------------------------------------------------- in-use flag


def test_fde_in_use_flag_reads_with_valid_crc(tmp_path: Path, flavor: str) -> None:
    """A file copied while open: FDE flags 0x0001, CRC computed with the flag cleared."""
    path = _write(tmp_path, flavor)
    closed = path.read_bytes()
    fmt = BinlogFormat.preset(flavor)
    fde = next(iter(BinlogReader([path])))
    fde.flags |= 0x0001
    open_fde = encode_event(fde, fmt, offset=4)
    # the only difference between the open and the closed FDE is the flag byte (format.md §3)
    assert open_fde[:17] == closed[4:4 + 17] and open_fde[19:] == closed[4 + 19:4 + len(open_fde)]
    assert open_fde[17:19] == b"\x01\x00"
    in_use = tmp_path / "in-use.000001"
    in_use.write_bytes(MAGIC + open_fde + closed[4 + len(open_fde):])

    events = list(BinlogReader([in_use]))
    assert events[0].flags & 0x0001
    assert len(events) == len(list(BinlogReader([path])))
    proc = _verify(in_use)
    assert proc.returncode == 0, proc.stdout
    exe = shutil.which("mariadb-binlog")
    if exe is None:
        pytest.fail("mariadb-binlog is not installed; this test must run, not skip", pytrace=False)
    mb = subprocess.run([exe, "-c", str(in_use)], capture_output=True, text=True, timeout=60)
    assert mb.returncode == 0, mb.stderr
    assert "not closed properly" in mb.stdout  # mariadb-binlog warns, and still reads it


# ----------------------------------------------------------------------------- checksum NONE


def test_checksum_none_fde_keeps_alg_and_crc(tmp_path: Path, flavor: str) -> None:
    path = _write(tmp_path, flavor, Checksum.NONE)
    recs = list(iter_raw(path))
    fde = recs[0].data
    assert fde[-5] == 0 and zlib.crc32(fde[:-4]) == int.from_bytes(fde[-4:], "little")
    assert recs[0].fmt.checksum == Checksum.NONE
    assert recs[1].offset == 4 + len(fde)
    reader = BinlogReader([path])
    events = list(reader)
    assert [e.type_code for e in events][-1] == 3
    for rec in recs:
        ev = reader.decode(rec)
        assert encode_event(ev, rec.fmt) == rec.data
        if rec.type_code == 16:
            assert len(rec.data) == 27
    # a flipped byte cannot be detected without CRCs, but the FDE's own CRC is still checked
    data = bytearray(path.read_bytes())
    data[4 + 30] ^= 0x01  # inside server_version
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumError) as info:
        list(BinlogReader([path]))
    assert info.value.offset == 4
