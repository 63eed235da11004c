"""The decoder's limits on hostile input (docs/fuzzing.md "Limits"): each is a typed error
naming file:offset, raised before anything of the declared size is read or allocated.

Inputs are built with our own encoder, then corrupted, then given a correct event_length
and CRC32 (as the fuzzer does), so the corruption reaches the body decoders.
"""

from __future__ import annotations

import dataclasses
import struct
import tracemalloc
import zlib
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner

from binlogwriter.cli import main as cli
from binlogwriter.compression import mariadb_compress, mariadb_decompress
from binlogwriter.errors import BinlogError, DecodeError, KeptRawError, LimitError, TruncatedError
from binlogwriter.events import FormatDescriptionEvent, QueryEvent, RawEvent, encode_event
from binlogwriter.events.rows import rows_event_class
from binlogwriter.events.table_map import TableMapEvent
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts.header import MAGIC
from binlogwriter.payload import compress_transaction, inner_event_bytes, inner_events
from binlogwriter.read.framing import scan_file
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Table
from binlogwriter.values.base import ABSENT
from tests.fuzz.seeds import fix_event


def _file(tmp_path: Path, fmt: BinlogFormat, events: list[bytes], name: str = "binlog.000001") -> Path:
    """Magic, the FDE of ``fmt``, then ``events`` with log_pos, event_length and CRC fixed."""
    fde = encode_event(FormatDescriptionEvent.for_format(fmt, timestamp=1), fmt, offset=4)
    out = bytearray(MAGIC + fde)
    for ev in events:
        out += fix_event(ev, fmt.footer_size == 4, len(out))
    p = tmp_path / name
    p.write_bytes(bytes(out))
    return p


def _read_all(path: Path, **kw) -> list:
    return list(BinlogReader(path, **kw))


def _table(flavor: str, sql: str = "CREATE TABLE t (a INT, b TIME(3), c BIT(5))") -> Table:
    return Table.from_sql(sql, database="d", flavor=flavor)


def _table_map(fmt: BinlogFormat, table: Table) -> bytes:
    return encode_event(TableMapEvent.from_table(table, 7, fmt, "FULL"), fmt)


def _rows(fmt: BinlogFormat, present: tuple[bool, ...], raw: bytes, kind: str = "insert") -> bytes:
    cls = rows_event_class(kind, version=1 if fmt.flavor.startswith("mariadb") else 2)
    kw = {"columns_after": present} if kind == "update" else {}
    return encode_event(cls(table_id=7, rows_flags=1, width=len(present), columns_present=present,
                            rows=None, rows_raw=raw, **kw), fmt)


# ------------------------------------------------------------------------ event length
@pytest.mark.parametrize("read", ["events", "changes"])
@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_event_length_beyond_the_maximum_is_a_limit_error(tmp_path, flavor, read):
    """``BinlogReader(max_event_size=)`` bounds its events and its ``changes()`` (which read
    with the 1 GiB default whatever the reader was given)."""
    fmt = BinlogFormat.preset(flavor)
    q = encode_event(QueryEvent(db="d", query="x" * 500), fmt)
    path = _file(tmp_path, fmt, [q])
    off = len(MAGIC) + path.read_bytes()[4 + 9:4 + 13][0] + (path.read_bytes()[4 + 10] << 8)
    def run(**kw) -> list:
        return _read_all(path, **kw) if read == "events" else list(BinlogReader(path, **kw).changes())
    with pytest.raises(LimitError) as e:
        run(max_event_size=256)
    assert e.value.offset == off and e.value.file == str(path)
    assert f"{path}:{off}" in str(e.value)
    assert len(run()) == (2 if read == "events" else 0)  # the default (1 GiB) accepts it


@pytest.mark.parametrize("length", [0xFFFFFFFF, (1 << 30) + 1])
def test_huge_event_length_is_refused_before_reading(tmp_path, length):
    fmt = BinlogFormat.mysql80()
    q = bytearray(encode_event(QueryEvent(db="d", query="BEGIN"), fmt))
    path = _file(tmp_path, fmt, [bytes(q)])
    data = bytearray(path.read_bytes())
    off = 4 + int.from_bytes(data[4 + 9:4 + 13], "little")
    data[off + 9:off + 13] = length.to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(LimitError, match=f"event_length {length}") as e:
        _read_all(path)
    assert e.value.offset == off
    scan = scan_file(path)
    assert scan.failures and f"{path}:{off}" in scan.failures[0] and "maximum event size" in scan.failures[0]


def test_event_length_beyond_the_file_is_a_truncated_error(tmp_path):
    fmt = BinlogFormat.mysql80()
    path = _file(tmp_path, fmt, [encode_event(QueryEvent(db="d", query="BEGIN"), fmt)])
    data = bytearray(path.read_bytes())
    off = 4 + int.from_bytes(data[4 + 9:4 + 13], "little")
    data[off + 9:off + 13] = (len(data) - off + 1).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(TruncatedError) as e:
        _read_all(path)
    assert e.value.offset == off


# ------------------------------------------------------------------------ decompression
def _payload_event(fmt: BinlogFormat, declared: int | None = None, payload: bytes | None = None):
    inner = [QueryEvent(db="d", query="BEGIN"), QueryEvent(db="d", query="INSERT INTO t VALUES (1)")]
    ev = compress_transaction(inner, fmt, timestamp=1)
    if declared is not None:
        ev.header_fields = [(k, declared if k == 3 else v) for k, v in ev.header_fields]
    if payload is not None:
        ev.payload = payload
        ev.header_fields = [(k, len(payload) if k == 1 else v) for k, v in ev.header_fields]
    return ev


@pytest.mark.parametrize("declared", [1 << 40, (1 << 64) - 1, (1 << 30) + 1])
def test_payload_declaring_a_huge_size_is_a_limit_error(tmp_path, declared):
    fmt = BinlogFormat.mysql80()
    path = _file(tmp_path, fmt, [encode_event(_payload_event(fmt, declared), fmt)])
    evs = _read_all(path)
    tracemalloc.start()
    try:
        with pytest.raises(LimitError) as e:
            list(inner_events(evs[1], fmt))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    assert e.value.file == str(path) and e.value.offset == evs[1].origin.offset
    assert "TRANSACTION_PAYLOAD_EVENT" in str(e.value)


def test_zstd_bomb_costs_at_most_what_it_declares(tmp_path):
    fmt = BinlogFormat.mysql80()
    bomb = zstandard.ZstdCompressor(level=3, write_content_size=False).compress(b"\0" * (64 << 20))
    assert len(bomb) < 64 << 10
    ev = _payload_event(fmt, declared=1000, payload=bomb)
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError, match="1001 or more bytes, header says 1000"):
            inner_event_bytes(ev)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def test_mariadb_compressed_blob_declaring_more_than_it_can_hold():
    blob = mariadb_compress(b"abc" * 10)
    n = blob[0] & 7
    big = bytes((0x84,)) + (256 << 20).to_bytes(4, "big") + blob[1 + n:]
    with pytest.raises(DecodeError, match="cannot hold"):
        mariadb_decompress(big)
    huge = bytes((0x84,)) + (0xFFFFFFFF).to_bytes(4, "big") + blob[1 + n:]
    with pytest.raises(LimitError):
        mariadb_decompress(huge, max_size=1 << 20)


def test_mariadb_zlib_bomb_stops_at_the_declared_size():
    stream = zlib.compress(b"\0" * (50 << 20))
    blob = bytes((0x81, 100)) + stream
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError, match="101 or more bytes, header says 100"):
            mariadb_decompress(blob)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def test_mariadb_blob_with_bytes_after_the_stream_is_refused():
    blob = mariadb_compress(b"hello") + b"\0"
    with pytest.raises(DecodeError, match="does not end"):
        mariadb_decompress(blob)


def test_compressed_query_text_error_is_located(tmp_path):
    fmt = BinlogFormat.mariadb1011()
    from binlogwriter.events import QueryCompressedEvent

    ev = QueryCompressedEvent(db="d", query=bytes((0x81, 200)) + zlib.compress(b"SELECT 1"))
    path = _file(tmp_path, fmt, [encode_event(ev, fmt)])
    q = _read_all(path)[1]
    with pytest.raises(DecodeError) as e:
        _ = q.text
    assert e.value.file == str(path) and e.value.offset == q.origin.offset


# ------------------------------------------------------------------------ row images
@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
@pytest.mark.parametrize("kind", ["insert", "update"])
def test_rows_with_no_column_in_their_images_are_refused(tmp_path, flavor, kind):
    """A columns-present bitmap with no bit set makes 0-byte row images: the row loop would
    never advance. No server writes one (every image holds at least the PKE or one column)."""
    fmt = BinlogFormat.preset(flavor)
    table = _table(flavor)
    path = _file(tmp_path, fmt, [_table_map(fmt, table), _rows(fmt, (False,) * 3, b"\0" * 40, kind)])
    rows_off = 4 + sum(int.from_bytes(path.read_bytes()[o + 9:o + 13], "little") for o in [4])
    with pytest.raises(DecodeError, match="no column in its image") as e:
        _read_all(path)
    assert e.value.file == str(path)
    with pytest.raises(BinlogError):
        list(BinlogReader(path).changes())
    runner = CliRunner()
    for args in (["verify", "--roundtrip", str(path)], ["inspect", "-vv", str(path)]):
        res = runner.invoke(cli, args)
        assert res.exit_code == 1, res.output
        assert isinstance(res.exception, SystemExit)
    assert rows_off > 4


def test_rows_with_no_column_and_no_rows_read(tmp_path):
    fmt = BinlogFormat.mysql80()
    table = _table("mysql80")
    path = _file(tmp_path, fmt, [_table_map(fmt, table), _rows(fmt, (False,) * 3, b"")])
    evs = _read_all(path)
    # one row of 0-byte images, as a server writes and mariadb-binlog counts it
    # (tests/test_zero_column_rows.py, real MariaDB 10.11 bytes)
    assert evs[2].rows == [(ABSENT,) * 3]


def test_time_fraction_of_a_second_or_more_is_a_located_error(tmp_path):
    fmt = BinlogFormat.mysql80()
    table = _table("mysql80", "CREATE TABLE t (b TIME(3))")
    image = b"\x00" + (0x800000).to_bytes(3, "big") + (10000).to_bytes(2, "big")
    path = _file(tmp_path, fmt, [_table_map(fmt, table), _rows(fmt, (True,), image)])
    with pytest.raises(DecodeError, match="fraction 10000 is a second or more") as e:
        _read_all(path)
    assert e.value.path and e.value.path.endswith("t.b") and e.value.offset is not None


# ------------------------------------------------------------------------ fidelity
def test_query_status_vars_cut_short_are_kept_raw_and_reencode(tmp_path):
    fmt = BinlogFormat.mysql80()
    good = bytearray(encode_event(QueryEvent(db="d", status_vars=[(0, 0), (1, 0)], query="BEGIN"), fmt))
    # status_vars_len 5 -> 7: the block now ends with "code 1 + 2 bytes", a SQL_MODE cut short
    body = good[19:-4]
    svlen = int.from_bytes(body[11:13], "little")
    bad = body[:11] + (svlen - 6).to_bytes(2, "little") + body[13:13 + svlen - 6] + body[13 + svlen:]
    path = _file(tmp_path, fmt, [bytes(good[:19] + bad + b"\0\0\0\0")])
    (fde, q) = _read_all(path)
    assert q.status_vars[-1][0] is None
    data = path.read_bytes()
    assert encode_event(q, fmt) == data[q.origin.offset:q.origin.offset + q.origin.length]


def test_event_that_would_not_reencode_is_kept_raw(tmp_path):
    """A tagged GTID whose message has an empty field section decodes to fields that
    would encode to other bytes: it is kept as raw bytes, and asking it for its GTID is a
    located, typed error."""
    fmt = BinlogFormat.mysql84()
    body = bytes(3)  # version 0, message_size 0, last_non_ignorable_field_id 0: no field at all
    ev = bytes(19) + body + b"\0\0\0\0"
    ev = ev[:4] + bytes((42,)) + ev[5:]
    path = _file(tmp_path, fmt, [ev])
    (fde, g) = _read_all(path)
    assert isinstance(g, RawEvent) and g.kept_raw and g.body == body
    assert not hasattr(g, "gtid")
    with pytest.raises(KeptRawError) as e:
        _ = g.gtid
    assert e.value.offset == g.origin.offset and e.value.file == str(path)
    res = CliRunner().invoke(cli, ["verify", "--roundtrip", str(path)])
    assert res.exit_code == 0, res.output


# ------------------------------------------------------------------------ located errors
def test_bit_metadata_of_one_byte_is_a_located_error_in_inspect(tmp_path):
    """A Table_map whose metadata stops inside a BIT column's two bytes (after a type the
    decoder does not know): rendering its columns is a located DecodeError, not IndexError."""
    fmt = BinlogFormat.mariadb1011()
    tm = TableMapEvent(table_id=7, schema="d", table="t", column_types=[138, 16], metadata=b"\x05",
                       null_bits=(True, True))
    path = _file(tmp_path, fmt, [encode_event(tm, fmt)])
    (fde, ev) = _read_all(path)
    from binlogwriter.text.metadata import render_table_metadata

    with pytest.raises(DecodeError, match="metadata bytes"):
        render_table_metadata(ev.view(), "mariadb1011")
    res = CliRunner().invoke(cli, ["inspect", "--print-table-metadata", str(path)])
    assert res.exit_code == 1, res.output
    assert isinstance(res.exception, SystemExit)
    assert f"{path}:{ev.origin.offset}" in res.output


def test_payload_inner_event_error_names_the_payload_and_the_byte(tmp_path):
    fmt = BinlogFormat.mysql80()
    inner = encode_event(QueryEvent(db="d", query="BEGIN"), fmt, footer=False, log_pos=0)
    inner = inner[:19 + 8] + b"\xff" + inner[19 + 9:]  # db_len 255: runs past the body
    comp = zstandard.ZstdCompressor(write_content_size=False).compress(inner)
    from binlogwriter.events import TransactionPayloadEvent

    ev = TransactionPayloadEvent(header_fields=[(2, 0), (3, len(inner)), (1, len(comp))], payload=comp)
    path = _file(tmp_path, fmt, [encode_event(ev, fmt)])
    p = _read_all(path)[1]
    with pytest.raises(DecodeError) as e:
        list(inner_events(p, fmt))
    assert e.value.file == str(path) and e.value.offset == p.origin.offset
    assert "payload byte 0" in str(e.value) and "TRANSACTION_PAYLOAD_EVENT" in str(e.value)


def test_all_decoder_errors_are_binlog_errors():
    assert issubclass(LimitError, DecodeError) and issubclass(KeptRawError, AttributeError)
    assert struct.calcsize("<I") == 4


def test_non_shortest_column_count_keeps_the_rows_event_raw(tmp_path):
    fmt = BinlogFormat.mysql80()
    table = _table("mysql80", "CREATE TABLE t (a INT)")
    ev = bytearray(_rows(fmt, (True,), b"\x00\x01\x00\x00\x00"))
    p = 19 + 10  # v2 post-header: table id 6, flags 2, var_header_len 2 (no extra info)
    assert ev[p] == 1
    ev[p:p + 1] = b"\xfc\x01\x00"
    path = _file(tmp_path, fmt, [_table_map(fmt, table), bytes(ev)])
    rows = _read_all(path)[2]
    assert isinstance(rows, RawEvent) and "not canonical" in rows.kept_raw
    data = path.read_bytes()
    assert encode_event(rows, fmt) == data[rows.origin.offset:]


def test_compressed_header_byte_with_reserved_bits_is_refused():
    blob = bytearray(mariadb_compress(b"hello"))
    blob[0] |= 0x08
    with pytest.raises(DecodeError, match="header byte 0x89"):
        mariadb_decompress(bytes(blob))


# ------------------------------------------------------------------------ non-canonical values
def _one_column_file(tmp_path: Path, flavor: str, sql: str, image: bytes) -> tuple[Path, list]:
    fmt = BinlogFormat.preset(flavor)
    path = _file(tmp_path, fmt, [_table_map(fmt, _table(flavor, sql)), _rows(fmt, (True,), image)])
    return path, _read_all(path)


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
@pytest.mark.parametrize(("sql", "stored"), [
    ("CREATE TABLE t (a BINARY(4))", b"ab\x00"),          # BINARY's pad is 0x00
    ("CREATE TABLE t (a CHAR(4) CHARSET latin1)", b"ab "),  # a text CHAR's is the space
    ("CREATE TABLE t (a CHAR(4) CHARSET utf8mb4)", b"a "),
])
def test_char_logged_with_its_trailing_pad_keeps_the_rows_event_raw(tmp_path, flavor, sql, stored):
    """Servers strip a CHAR/BINARY value's trailing pad before logging it (Field_string::pack):
    a value stored with it would decode and re-encode shorter, so the event is kept raw."""
    path, evs = _one_column_file(tmp_path, flavor, sql, b"\x00" + bytes((len(stored),)) + stored)
    rows = evs[2]
    assert isinstance(rows, RawEvent) and "pad" in rows.kept_raw and "t.a" in rows.kept_raw
    fmt = BinlogFormat.preset(flavor)
    assert encode_event(rows, fmt) == path.read_bytes()[rows.origin.offset:]
    with pytest.raises(KeptRawError) as e:
        _ = rows.rows
    assert e.value.file == str(path) and e.value.offset == rows.origin.offset
    with pytest.raises(DecodeError, match="not in the form a server writes") as e2:
        list(BinlogReader(path).changes())
    assert e2.value.offset == rows.origin.offset
    # the same value without its pad is an ordinary row
    path2, evs2 = _one_column_file(tmp_path / "..", flavor, sql,
                                   b"\x00" + bytes((len(stored.rstrip(b" \x00")),)) + stored.rstrip(b" \x00"))
    assert not isinstance(evs2[2], RawEvent)


# {"a": 1} in the large-object format (4-byte counts and offsets) that the small one holds:
# type 01, count 1, size 20, key entry (offset 19, length 1), value entry (INT16 inlined in
# 4 bytes: 1), key "a" (values.md §7). Its shortest form is the 13-byte small object.
_LARGE_A1 = bytes.fromhex("01" "01000000" "14000000" "13000000" "0100" "05" "01000000" "61")
_SMALL_A1 = bytes.fromhex("00" "0100" "0c00" "0b00" "0100" "05" "0100" "61")


def test_json_not_in_its_shortest_form_decodes_and_keeps_its_bytes(tmp_path):
    """MySQL leaves unused bytes in a JSON document updated in place (JSON_STORAGE_FREE), so a
    longer-than-shortest document is real: its value decodes, and re-encodes to its bytes."""
    from binlogwriter.values.json_binary import JsonKeptObject, decode_json, encode_json

    assert decode_json(_LARGE_A1) == {"a": 1} and encode_json({"a": 1}) == _SMALL_A1
    image = b"\x00" + len(_LARGE_A1).to_bytes(4, "little") + _LARGE_A1
    path, evs = _one_column_file(tmp_path, "mysql80", "CREATE TABLE t (a JSON)", image)
    rows = evs[2]
    (v,) = rows.rows[0]
    assert v == {"a": 1} and isinstance(v, JsonKeptObject) and v.binary == _LARGE_A1
    assert encode_event(rows, BinlogFormat.mysql80()) == path.read_bytes()[rows.origin.offset:]
    assert [c.after for c in BinlogReader(path).changes()] == [{"a": {"a": 1}}]
    v["b"] = 2  # changed: the kept bytes no longer hold it, the shortest form is written
    assert decode_json(encode_json(v)) == {"a": 1, "b": 2} and encode_json(v)[0] == 0


def test_json_scalar_not_in_its_shortest_form_keeps_the_rows_event_raw(tmp_path):
    doc = bytes.fromhex("09" "0100000000000000")  # INT64 holding 1: the shortest is INT16
    image = b"\x00" + len(doc).to_bytes(4, "little") + doc
    path, evs = _one_column_file(tmp_path, "mysql80", "CREATE TABLE t (a JSON)", image)
    assert isinstance(evs[2], RawEvent) and "shortest" in evs[2].kept_raw


@pytest.mark.parametrize(("sql", "stored", "want"), [
    ("CREATE TABLE t (a ENUM('x','y'))", b"\x02", "y"),
    ("CREATE TABLE t (a SET('x','y'))", b"\x03", frozenset({"x", "y"})),
])
def test_enum_set_members_with_one_name_twice_decode_to_ints(tmp_path, sql, stored, want):
    """A Table_map naming two ENUM/SET members alike (no server accepts that): a member name
    would not say which index it was, so values decode to the int index / bitmask."""
    from binlogwriter.values import bind_column

    fmt = BinlogFormat.mysql80()
    col = TableMapEvent.from_table(_table("mysql80", sql), 7, fmt, "FULL").view().column_descs(None)[0]
    assert bind_column(col).decode(stored, 0)[0] == want
    field = "enum_values" if "ENUM" in sql else "set_values"
    twice = dataclasses.replace(col, **{field: ("x", "x")})
    v, end = bind_column(twice).decode(stored, 0)
    assert v == stored[0] and end == 1 and bind_column(twice).encode(v) == stored


@pytest.mark.parametrize("level", [0, 1, 9])
def test_mariadb_blob_compressed_otherwise_is_not_canonical(level):
    """A zlib stream the server's compress() (default level) would not write for the same
    bytes: exact decompression refuses it (the rows event is kept raw), plain accepts it."""
    from binlogwriter.layouts.control import NonCanonical

    data = b"row image bytes " * 20
    blob = bytes((0x82,)) + len(data).to_bytes(2, "big") + zlib.compress(data, level)
    assert mariadb_decompress(blob) == data
    with pytest.raises(NonCanonical):
        mariadb_decompress(blob, exact=True)
    assert mariadb_decompress(mariadb_compress(data), exact=True) == data


def test_fuzzer_counts_an_error_without_file_offset_as_a_finding():
    from binlogwriter.errors import SchemaError
    from tests.fuzz.runner import located

    assert located(DecodeError("x", file="f.bin", offset=4), "f.bin")
    assert not located(DecodeError("x", file="f.bin"), "f.bin")
    assert not located(SchemaError("x"), "f.bin")


@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_timestamp_of_zero_seconds_with_a_fraction_is_a_located_error(tmp_path, flavor):
    """Only the zero timestamp has 0 seconds; 1970-01-01 00:00:00.000254 UTC is below the
    range (the encoder refuses it), so the decoder does too, naming table.column."""
    image = b"\x00" + bytes(4) + (254).to_bytes(3, "big")
    with pytest.raises(DecodeError, match="below its range") as e:
        _one_column_file(tmp_path, flavor, "CREATE TABLE t (a TIMESTAMP(6))", image)
    assert e.value.path.endswith("t.a") and e.value.offset is not None


def test_old_time_with_seconds_of_60_or_more_is_a_located_error(tmp_path):
    """Old TIME (type 11) is ±hhmmss as one integer: 102:55:72 is no time a server writes
    (it would decode as 102:56:12 and re-encode so)."""
    from binlogwriter.values import bind_column
    from binlogwriter.values.base import ColumnDesc

    col = ColumnDesc(type_code=11, name="a", table="t")
    assert bind_column(col).decode((1025559).to_bytes(3, "little"), 0)[0].total_seconds() == 102 * 3600 + 55 * 60 + 59
    for bad in (1025572, 1026012, -1025572):
        with pytest.raises(DecodeError, match="out of range") as e:
            bind_column(col).decode(bad.to_bytes(3, "little", signed=True), 0)
        assert e.value.path == "t.a"
