"""``###`` lines of rows events (text/rows.py) against the real mariadb-binlog output.

Expected lines come only from
``tests/data/mysqlbinlog-output/mariadb-10.11-local-mysqlbinlog-vv-print-table-metadata.txt``
(``mariadb-binlog -vv --print-table-metadata`` of a real MariaDB 10.11.19 run): each
``BINLOG '…'`` block there holds the base64 of one statement's Table_map and rows events, and
the ``###`` lines printed after it are what we must print for those bytes. The file is read as
bytes (GEOMETRY values print raw non-UTF-8 bytes; we keep them as surrogate escapes).
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.events import decode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.read.state import ReadState
from binlogwriter.text import RenderOptions, render_event
from binlogwriter.text.columns import decimal_text, field_metadata, format_value, meta_bytes
from binlogwriter.text.rows import render_row_image, render_rows
from binlogwriter.values.render import bit_string, quote_bytes

OUTPUT = (Path(__file__).resolve().parents[1] / "data" / "mysqlbinlog-output"
          / "mariadb-10.11-local-mysqlbinlog-vv-print-table-metadata.txt")
FMT = BinlogFormat.preset("mariadb1011")


def _lines() -> list[str]:
    return OUTPUT.read_bytes().decode("utf-8", "surrogateescape").split("\n")


def _statements() -> list[tuple[int, bytes, list[str]]]:
    """(line number, the events of a BINLOG block, the ### and # Number lines after it)."""
    lines = _lines()
    out = []
    i = 0
    while i < len(lines):
        if lines[i] != "BINLOG '":
            i += 1
            continue
        start = i
        i += 1
        b64 = []
        while not lines[i].startswith("'"):
            b64.append(lines[i])
            i += 1
        i += 1
        printed = []
        while i < len(lines) and (lines[i].startswith("###") or lines[i].startswith("# Number of rows")):
            printed.append(lines[i])
            i += 1
        data = _decode_block(b64)
        if data[4] != 15:  # the FDE's block prints nothing
            out.append((start + 1, data, printed))
    return out


def _decode_block(b64_lines: list[str]) -> bytes:
    """Each event of a BINLOG block is base64-encoded on its own (own padding), starting on a
    new line: take lines until the decoded bytes reach the event_length in their header."""
    out, acc = b"", ""
    for line in b64_lines:
        acc += line
        if len(acc) % 4:
            continue
        ev = base64.b64decode(acc)
        if len(ev) >= 13 and len(ev) == int.from_bytes(ev[9:13], "little"):
            out += ev
            acc = ""
    assert not acc, "a BINLOG block ended inside an event"
    return out


def _events(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        n = int.from_bytes(data[pos + 9:pos + 13], "little")
        out.append(data[pos:pos + n])
        pos += n
    return out


STATEMENTS = _statements()


def test_the_stored_output_has_rows_statements() -> None:
    assert len(STATEMENTS) == 18
    assert sum(len(p) for _, _, p in STATEMENTS) == 352


@pytest.mark.parametrize(("line", "data", "printed"), STATEMENTS, ids=[f"line{n}" for n, _, _ in STATEMENTS])
def test_rows_print_as_mariadb_binlog_printed_them(line: int, data: bytes, printed: list[str]) -> None:
    state = ReadState()
    ours: list[str] = []
    opts = RenderOptions(verbose=2)
    for raw in _events(data):
        ev = decode_event(raw, FMT, columns_for=state.columns_for)
        state.observe(ev)
        if ev.type_code != 19:
            ours += list(render_rows(ev, opts, state))
    assert ours == printed


@pytest.mark.parametrize(("line", "data", "printed"), STATEMENTS[:6], ids=[f"line{n}" for n, _, _ in STATEMENTS[:6]])
def test_verbose_one_drops_the_type_comments(line: int, data: bytes, printed: list[str]) -> None:
    state = ReadState()
    ours: list[str] = []
    for raw in _events(data):
        ev = decode_event(raw, FMT, columns_for=state.columns_for)
        state.observe(ev)
        ours += [x for x in render_event(ev, RenderOptions(verbose=1), state) if x.startswith("###")]
    assert ours == [x.split(" /* ")[0] if "/* " in x else x for x in printed if x.startswith("###")]


def test_no_verbose_still_counts_rows_like_mariadb_binlog() -> None:
    _, data, printed = STATEMENTS[0]
    state = ReadState()
    ours: list[str] = []
    for raw in _events(data):
        ev = decode_event(raw, FMT, columns_for=state.columns_for)
        state.observe(ev)
        ours += render_event(ev, RenderOptions(), state)
    assert not [x for x in ours if x.startswith("###")]
    assert ours[-1] == printed[-1] == "# Number of rows: 1"


# -- single values: bytes per values.md, expected lines from the stored output ----------------

def _stored_line(prefix: str) -> str:
    return next(x for x in _lines() if x.startswith(prefix))


def _one(type_code: int, meta: bytes, value: bytes | None, column: int, nullable: bool = True) -> str:
    """The ``###   @N=…`` line of a one-column image (null bitmap, then the value)."""
    types = [0] * (column - 1) + [type_code]
    metas = [0] * (column - 1) + [field_metadata(type_code, meta)]
    present = [False] * (column - 1) + [True]
    null = b"\x01" if value is None else b"\x00"
    lines, end = render_row_image(types, metas, [True] * (column - 1) + [nullable], present,
                                  null + (value or b""), 0)
    assert end == 1 + len(value or b"")
    return lines[0]


@pytest.mark.parametrize(("type_code", "meta", "value", "column", "nullable", "prefix"), [
    (3, b"", struct.pack("<i", 1), 1, False, "###   @1=1 /* INT"),
    (1, b"", b"\x80", 2, True, "###   @2=-128 (128)"),
    (2, b"", b"\xff\xff", 3, True, "###   @3=-1 (65535)"),
    (9, b"", b"\x00\x00\x80", 4, True, "###   @4=-8388608 (8388608)"),
    (8, b"", b"\xff" * 8, 5, True, "###   @5=-1 (18446744073709551615)"),
    (13, b"", bytes([2024 - 1900]), 6, True, "###   @6=2024"),
    (16, b"\x02\x01", b"\x02\xaa", 7, True, "###   @7=b'1010101010'"),
    (4, b"\x04", struct.pack("<f", 1.5), 8, True, "###   @8=1.5 "),
    (5, b"\x08", struct.pack("<d", -2.25), 9, True, "###   @9=-2.25"),
    (246, b"\x0a\x04", bytes.fromhex("7ffb2de9d1"), 10, True, "###   @10=-1234.5678"),
    (246, b"\x05\x00", bytes.fromhex("81869f"), 11, True, "###   @11=99999"),
    (10, b"", (2024 * 512 + 2 * 32 + 29).to_bytes(3, "little"), 2, True, "###   @2='2024:02:29'"),
    (19, b"\x03", bytes.fromhex("7ffffeec78"), 4, True, "###   @4='-00:00:01.500'"),
    (17, b"\x02", bytes.fromhex("0000000101"), 8, True, "###   @8=1.01"),
    (17, b"\x00", bytes.fromhex("7fffffff"), 7, True, "###   @7=2147483647"),
    (18, b"\x00", bytes.fromhex("99a5443105"), 5, True, "###   @5='2020-01-02 03:04:05'"),
    (254, b"\xfe\x04", b"\x01a", 6, True, "###   @6='a'"),
    (15, b"\x0a\x00", b"\x04bin\x00", 7, True, "###   @7='bin\\x00'"),
    (247, b"\xf7\x01", b"\x02", 12, True, "###   @12=2 /* ENUM(1 byte)"),
    (248, b"\xf8\x01", b"\x05", 13, True, "###   @13=b'00000101'"),
    (252, b"\x04", b"\x04\x00\x00\x00long", 11, True, "###   @11='long'"),
    (4, b"\x04", None, 8, True, "###   @8=NULL /* FLOAT meta=4 nullable=1 is_null=1 */"),
])
def test_value_line(type_code, meta, value, column, nullable, prefix) -> None:
    expected = _stored_line(prefix)
    assert _one(type_code, meta, value, column, nullable) == expected


@pytest.mark.parametrize(("type_code", "meta", "number"), [
    (254, b"\xfe\x04", 0xFE04),   # STRING: real type, then length (big-endian)
    (246, b"\x0a\x04", 0x0A04),   # NEWDECIMAL: precision, then scale (big-endian)
    (16, b"\x02\x01", 0x0102),    # BIT: bits + bytes * 256
    (15, b"\x0a\x01", 0x010A),    # VARCHAR: little-endian
    (252, b"\x04", 4), (18, b"\x06", 6), (4, b"\x04", 4),
    (242, b"\x04", 4),             # VECTOR: its length-prefix width, as BLOB's (MySQL 9 read_field_metadata)
    (3, b"", 0), (13, b"", 0),
])
def test_field_metadata_is_table_defs_integer(type_code: int, meta: bytes, number: int) -> None:
    """``meta=N`` is what ``table_def`` reads from the Table_map (rpl_utility.cc), and
    :func:`meta_bytes` gives the bytes back."""
    assert field_metadata(type_code, meta) == number
    assert meta_bytes(type_code, number) == meta


def test_vector_has_no_printer_and_names_its_metadata() -> None:
    """mariadb-binlog has no printer for VECTOR (242): the listing stops with its metadata."""
    with pytest.raises(ValueError, match=r"column type: 242 meta: 4 \(0004\)"):
        format_value(242, field_metadata(242, b"\x04"), b"\x08\x00\x00\x00" + struct.pack("<2f", 1, 2), 0)


def test_string_quoting_keeps_quote_and_backslash_raw_on_mariadb() -> None:
    # MariaDB's my_b_write_quoted tests `> 0x1F` first: ' and \ go out unescaped
    assert quote_bytes(b"it's \\ \x00\n\x7f\xff") == "'it's \\ \\x00\\x0a\x7f\udcff'"
    assert quote_bytes(b"it's \\", "mysql") == "'it\\x27s \\x5c'"


def test_float_is_padded_to_twenty() -> None:
    assert format_value(4, 4, struct.pack("<f", 1.5), 0)[0] == "1.5" + " " * 17
    assert format_value(4, 4, struct.pack("<f", 3.4028234663852886e38), 0)[0] == "3.40282e+38" + " " * 9


def test_decimal_prints_every_scale_digit() -> None:
    # DECIMAL(10,4): 3 bytes for 6 integer digits, 2 for 4 fraction digits (values.md)
    assert decimal_text(bytes.fromhex("8000011388"), 0, 10, 4) == ("1.5000", 5)
    assert decimal_text(bytes.fromhex("7ffffeec77"), 0, 10, 4) == ("-1.5000", 5)
    assert decimal_text(bytes.fromhex("800000"), 0, 5, 0) == ("0", 3)


def test_set_and_bit_strings() -> None:
    assert bit_string(b"\x01\x80", 16) == "b'0000000110000000'"
    assert bit_string(b"\x05", 3) == "b'101'"


def test_year_zero_prints_1900() -> None:
    assert format_value(13, 0, b"\x00", 0)[0] == "1900"


def test_unknown_table_line() -> None:
    from binlogwriter.events.rows import rows_event_class

    ev = rows_event_class("insert", version=1)(table_id=77, rows_flags=1, width=1,
                                               columns_present=(True,), rows=None, rows_raw=b"\x00\x01")
    assert list(render_rows(ev, RenderOptions(verbose=1), ReadState())) == ["### Row event for unknown table #77"]


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40) | st.text(max_size=20).map(lambda t: t.encode("utf-8")),
       st.sampled_from(("mariadb", "mysql")))
def test_quote_bytes_escapes_byte_by_byte(data: bytes, family: str) -> None:
    """``my_b_write_quoted`` works on bytes: each byte < 0x20 (MySQL: also ``'`` and ``\\``)
    becomes ``\\xNN``, every other byte is written as is (our text: UTF-8 with surrogate
    escapes for what does not decode)."""
    special = set(range(0x20)) | ({0x27, 0x5C} if family == "mysql" else set())
    want = b"'" + b"".join(b"\\x%02x" % b if b in special else bytes((b,)) for b in data) + b"'"
    assert quote_bytes(data, family).encode("utf-8", "surrogateescape") == want


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 64).flatmap(lambda n: st.tuples(st.just(n), st.binary(min_size=(n + 7) // 8,
                                                                             max_size=(n + 7) // 8))))
def test_bit_string_takes_the_last_bits(case: tuple[int, bytes]) -> None:
    nbits, data = case
    bits = "".join(f"{b:08b}" for b in data)
    assert bit_string(data, nbits) == "b'" + bits[len(bits) - nbits:] + "'"


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=__import__("datetime").datetime(1, 1, 1)), st.integers(0, 6))
def test_datetime2_text_keeps_fsp_digits(value, fsp: int) -> None:
    """DATETIME2 prints ``'YYYY-MM-DD hh:mm:ss[.f…]'``: the year in 4 digits, the first ``fsp``
    digits of the microseconds (log_event_print_value)."""
    from binlogwriter.values import ColumnDesc
    from binlogwriter.values.render import render_value

    frac = "." + f"{value.microsecond:06d}"[:fsp] if fsp else ""
    want = (f"'{value.year:04d}-{value.month:02d}-{value.day:02d} {value.hour:02d}:{value.minute:02d}:"
            f"{value.second:02d}{frac}'")
    assert render_value(ColumnDesc(18, bytes((fsp,))), value) == want


@settings(max_examples=300, deadline=None)
@given(st.integers(0, (1 << 32) - 1))
def test_header_time_is_utc_yymmdd_with_a_space_padded_hour(ts: int) -> None:
    import datetime as dt

    from binlogwriter.text import format_time

    t = dt.datetime.fromtimestamp(ts, dt.UTC)
    assert format_time(ts) == f"{t.year % 100:02d}{t.month:02d}{t.day:02d} {t.hour:2d}:{t.minute:02d}:{t.second:02d}"
