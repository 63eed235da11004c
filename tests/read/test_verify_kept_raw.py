"""``verify --roundtrip`` says OK only for events it decoded and re-encoded (issue #27).

An event the decoder keeps raw gives its bytes back without having been decoded: the summary
line counts and names such events (type, file:offset, why), ``--strict`` makes them failures.
Files written by BinlogWriter, one event patched into a form that parses but that the encoder
does not write (the lengths, log_pos chain and CRC32s fixed).
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main
from tests.test_gtid_reading import SID, body, nth, save, with_body, write


def run(*args: str) -> tuple[int, list[str]]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output.strip().splitlines()


def non_shortest_column_count(tmp_path: Path) -> tuple[Path, int, int]:
    """MySQL: the second rows event's column count 2 written in 3 bytes (``fc 02 00``)."""
    fmt, evs = write(tmp_path, "mysql80")
    i = nth(evs, 30, 1)
    b = body(evs[i])
    assert b[6 + 2 : 6 + 2 + 3] == b"\x02\x00\x02"  # table id, flags, var_header_len 2, column count
    evs[i] = with_body(evs[i], b[:10] + b"\xfc\x02\x00" + b[11:])
    return save(tmp_path, evs), sum(len(e) for e in evs[:i]) + 4, len(evs)


def tagged_gtid_non_shortest(tmp_path: Path) -> tuple[Path, int, int]:
    """MySQL 8.4 tagged GTID (42): its gtid_flags field (id 0, value 0) in a 2-byte varlen."""
    fmt, evs = write(tmp_path, "mysql84", gtid=SID + ":load")
    i = nth(evs, 42, 1)
    b = body(evs[i])
    # version 1 (varlen: 0x02), message_size (one byte: size << 1), last_non_ignorable_field_id,
    # then field id 0 and its value 0
    assert b[0] == 0x02 and b[1] == len(b) << 1 and b[3:5] == b"\x00\x00"
    evs[i] = with_body(evs[i], b[:1] + bytes([(len(b) + 1) << 1]) + b[2:4] + b"\x01\x00" + b[5:])
    return save(tmp_path, evs), sum(len(e) for e in evs[:i]) + 4, len(evs)


def compressed_rows_level_1(tmp_path: Path) -> tuple[Path, int, int]:
    """MariaDB: the second Write_rows as a WRITE_ROWS_COMPRESSED_EVENT (166) whose rows are a
    zlib stream at level 1, not the server's compress() (default level; mariadb.md)."""
    fmt, evs = write(tmp_path, "mariadb1011")
    i = nth(evs, 23, 1)
    b = body(evs[i])
    assert b[8:10] == b"\x02\x03"  # table id, flags, column count 2, present bitmap; then rows
    rows = b[10:]
    blob = bytes((0x81, len(rows))) + zlib.compress(rows, 1)
    assert zlib.compress(rows) != zlib.compress(rows, 1)
    evs[i] = with_body(evs[i][:4] + bytes([166]) + evs[i][5:], b[:10] + blob)
    return save(tmp_path, evs), sum(len(e) for e in evs[:i]) + 4, len(evs)


CASES = [
    (non_shortest_column_count, "WRITE_ROWS_EVENT", "not canonical: column count 2"),
    (tagged_gtid_non_shortest, "GTID_TAGGED_LOG_EVENT", "not canonical: varlen 0 takes 2 bytes"),
    (compressed_rows_level_1, "WRITE_ROWS_COMPRESSED_EVENT_V1", "not the one the server's compress() writes"),
]


@pytest.mark.parametrize("make,type_name,why", CASES, ids=[c[1] for c in CASES])
def test_kept_raw_events_are_named_not_called_ok(tmp_path, make, type_name, why):
    path, offset, n = make(tmp_path)
    code, out = run("verify", "--roundtrip", str(path))
    assert code == 0, out
    head = f"1 files, {n} events: OK (1 kept raw, not decoded: {type_name} at {path}:{offset}: "
    assert out[-1].startswith(head) and why in out[-1], out
    code, out = run("verify", "--roundtrip", "--strict", str(path))
    assert code == 1
    assert out[-1].startswith(
        f"1 files, {n} events: FAILED kept raw, not decoded: {type_name} at {path}:{offset}: "
    )


def test_several_kept_raw_events_each_on_a_line(tmp_path):
    a, off_a, n_a = non_shortest_column_count(tmp_path / "a")
    b, off_b, n_b = tagged_gtid_non_shortest(tmp_path / "b")
    code, out = run("verify", "--roundtrip", str(a), str(b))
    assert code == 0
    assert [re.sub(r": .*", "", line) for line in out[:-1]] == [
        f"KEPT RAW WRITE_ROWS_EVENT at {a}:{off_a}",
        f"KEPT RAW GTID_TAGGED_LOG_EVENT at {b}:{off_b}",
    ]
    assert out[-1].startswith(
        f"2 files, {n_a + n_b} events: OK (2 kept raw, not decoded: WRITE_ROWS_EVENT at {a}:"
    )
    assert out[-1].endswith("; +1 more above)")


def test_files_without_kept_raw_events_say_plain_ok(tmp_path):
    fmt, evs = write(tmp_path, "mysql80")
    path = save(tmp_path, evs)
    assert run("verify", "--roundtrip", "--strict", str(path)) == (0, [f"1 files, {len(evs)} events: OK"])


def test_strict_without_roundtrip_is_a_usage_error(tmp_path):
    fmt, evs = write(tmp_path, "mysql80")
    code, out = run("verify", "--strict", str(save(tmp_path, evs)))
    assert code == 2 and "--strict needs --roundtrip" in out[-1]


def test_kept_raw_event_inside_a_payload_is_named(tmp_path):
    """A TRANSACTION_PAYLOAD whose inner rows event has its column count in 3 bytes: the
    payload re-encodes, the inner event was not decoded (format.md §15)."""
    from binlogwriter.events import RawEvent, decode_event, encode_event
    from binlogwriter.payload import compress_transaction

    fmt, evs = write(tmp_path, "mysql80")
    g = nth(evs, 33, 1)
    x = nth(evs, 16, 1)
    inner = [decode_event(e, fmt) for e in evs[g + 1 : x + 1]]
    assert [e.type_code for e in inner] == [2, 19, 30, 16]
    b = body(evs[g + 3])
    inner[2] = RawEvent(raw_type=30, body=b[:10] + b"\xfc\x02\x00" + b[11:], server_id=1)
    payload = encode_event(compress_transaction(inner, fmt, server_id=1), fmt, offset=0)
    evs[g + 1 : x + 1] = [payload]
    path = save(tmp_path, evs)
    offset = sum(len(e) for e in evs[: g + 1]) + 4
    at = len(encode_event(inner[0], fmt, footer=False)) + len(encode_event(inner[1], fmt, footer=False))
    code, out = run("verify", "--roundtrip", str(path))
    assert code == 0, out
    head = (
        f"1 files, {len(evs)} events: OK (1 kept raw, not decoded: WRITE_ROWS_EVENT at {path}:{offset} "
        f"(TRANSACTION_PAYLOAD_EVENT, payload byte {at}): not canonical: column count 2"
    )
    assert out[-1].startswith(head), out
