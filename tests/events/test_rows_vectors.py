"""Every rows-event vector decodes to the values its source asserts and re-encodes byte-exactly.

Vectors (tests/data/vectors/README.md): the rows events of ``rows.json`` and of
``mariadb.json`` (WRITE/UPDATE/DELETE v1 23–25, v2 30–32, MariaDB compressed 166–171).

- ``event_body`` vectors carry their Table_map body in ``context.table_map_body_hex``; their
  ``expected.rows`` are the values the upstream (go-mysql) test asserts, in go-mysql's value
  notation, mapped to our Python types by :func:`expected_value` (DECIMAL as a string ->
  ``Decimal``, JSON as text -> the parsed document, VARCHAR without charset metadata -> the
  bytes' UTF-8 text, two placeholders described in words -> the value they describe).
- ``event`` vectors (whole events from real binlog files) assert header and body fields
  (``rows_data_hex`` …), not values. Their values are checked against the independent
  decoder output that comes with them (``decoder_output_mariadb_binlog_10.11``: the
  ``### @N=value /* TYPE */`` lines of ``mariadb-binlog -vv``), rendering our decoded value
  the way mariadb-binlog prints it (:func:`render_like_mariadb_binlog`). Their Table_map comes
  from the ``BINLOG '…'`` base64 block of that output (it holds the Table_map event and the
  rows event), else from ``table_map.json`` (same source file and table id).

Nothing is skipped silently: :data:`NO_VALUE_CHECK` lists the vectors whose values cannot be
compared with anything, with the reason, and the structural checks still run for them.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import struct
import zlib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from binlogwriter.events import FormatDescriptionEvent, decode_body, decode_event, encode_body, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.values import (
    ABSENT,
    JSON_NULL,
    JSON_NULL_EMPTY,
    ColumnDesc,
    MysqlDateTime,
    parse_string_meta,
)
from binlogwriter.values._strings import string_real_type

VECTORS = Path(__file__).resolve().parents[1] / "data" / "vectors"

ROWS_TYPES = {23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171}
UPDATE_TYPES = {24, 31, 39, 167, 170}
V2_TYPES = {30, 31, 32, 39, 169, 170, 171}

# vectors whose decoded values have nothing to be compared with (the structural checks —
# header, body fields, rows bytes consumed exactly, byte-exact re-encode — still run)
NO_VALUE_CHECK = {
    "rows.json[17]": "MySQL 5.5.27 sakila event: upstream asserts no values and the vector has "
                     "no mariadb-binlog output; only the first row is checked against the "
                     "well-known sakila.actor data (see test_sakila_first_row)",
}

# Commentary keys of ``expected`` (words, not decoded fields).
COMMENTARY = {"note", "asserted", "correction"}


def _rows_entries() -> list[Any]:
    out = []
    for fname in ("rows.json", "mariadb.json"):
        for i, e in enumerate(json.loads((VECTORS / fname).read_text())):
            raw = bytes.fromhex(e["hex"])
            if e["kind"] == "event_body":
                tcode = e["context"]["event_type"]
            elif e["kind"] == "event":
                tcode = raw[4]
            else:
                continue
            if tcode in ROWS_TYPES:
                out.append(pytest.param(fname, i, e, id=f"{fname}[{i}]"))
    return out


ENTRIES = _rows_entries()


def test_inventory() -> None:
    names = [p.id for p in ENTRIES]
    assert len([n for n in names if n.startswith("rows.json")]) == 27
    assert len([n for n in names if n.startswith("mariadb.json")]) == 12
    assert set(NO_VALUE_CHECK) <= set(names)


# --------------------------------------------------------------------------- formats / table maps

def _format(fname: str, e: dict) -> tuple[BinlogFormat, bool | None]:
    base = BinlogFormat.mariadb1011() if fname == "mariadb.json" else BinlogFormat.mysql80()
    if e["kind"] == "event_body":
        return base, None
    ctx = e["context"]
    if "fde_hex" in ctx:  # an event from inside a TRANSACTION_PAYLOAD: no footer, log_pos 0
        fde = decode_event(bytes.fromhex(ctx["fde_hex"]), base)
        assert isinstance(fde, FormatDescriptionEvent)
        return fde.to_format(), False
    crc = ctx.get("checksum", "").upper().startswith("CRC32")
    return base.with_checksum(1 if crc else 0), None


def _binlog_block_events(lines: list[str]) -> list[bytes]:
    """The events of the ``BINLOG '…'`` statement in mariadb-binlog output (each event is
    base64-encoded on its own; the event length in its header says where the next starts)."""
    try:
        start = lines.index("BINLOG '")
    except ValueError:
        return []
    text = ""
    for line in lines[start + 1:]:
        if line.startswith("'"):
            break
        text += line.strip()
    events = []
    while text:
        head = base64.b64decode(text[:24])
        length = int.from_bytes(head[9:13], "little")
        n = 4 * ((length + 2) // 3)
        events.append(base64.b64decode(text[:n]))
        text = text[n:]
    return events


_TABLE_MAPS = json.loads((VECTORS / "table_map.json").read_text())


def _origin_file(source: str) -> str:
    return source.split(" (")[0].split(":")[-1]


def table_map_body(fname: str, e: dict, fmt: BinlogFormat) -> bytes:
    """The Table_map body (post-header + body, no footer) that governs a rows vector."""
    if e["kind"] == "event_body":
        return bytes.fromhex(e["context"]["table_map_body_hex"])
    raw = bytes.fromhex(e["hex"])
    tid = int.from_bytes(raw[19:25], "little")
    for ev in _binlog_block_events(e.get("decoder_output_mariadb_binlog_10.11", [])):
        if ev[4] == 19:
            end = len(ev) - (4 if fmt.footer_size == 4 else 0)
            assert int.from_bytes(ev[19:25], "little") == tid
            return ev[19:end]
    for tm in _TABLE_MAPS:
        if tm["kind"] != "event" or _origin_file(tm["source"]) != _origin_file(e["source"]):
            continue
        traw = bytes.fromhex(tm["hex"])
        if int.from_bytes(traw[19:25], "little") == tid:
            crc = tm["context"].get("checksum", "").upper().startswith("CRC32")
            return traw[19:len(traw) - (4 if crc else 0)]
    raise AssertionError(f"no Table_map found for table id {tid}")


def decode_vector(fname: str, e: dict):
    fmt, footer = _format(fname, e)
    tm = decode_body(19, table_map_body(fname, e, fmt), fmt)
    cols = tm.column_descs()
    raw = bytes.fromhex(e["hex"])
    if e["kind"] == "event_body":
        ev = decode_body(e["context"]["event_type"], raw, fmt, columns_for=lambda tid: cols)
    else:
        ev = decode_event(raw, fmt, footer=footer, columns_for=lambda tid: cols)
    return fmt, footer, tm, cols, ev


# --------------------------------------------------------------------------- value notation

LOREM_PREFIX = "Lorem ipsum dolor sit amet"


def expected_value(col: ColumnDesc, exp: Any, got: Any) -> Any:
    """go-mysql's notation of a value -> ours (compared with ``==``)."""
    code = col.type_code
    if exp is None:
        return None
    if code == 246:
        return Decimal(str(exp))
    if code == 245:
        if isinstance(exp, str) and exp.startswith("<JSON with length 0"):
            return JSON_NULL  # the zero-length JSON value (JSON_NULL_EMPTY == JSON_NULL)
        if isinstance(exp, str):
            return json.loads(exp)
        if isinstance(exp, dict) and exp.get("text", "").startswith("<2766-byte Lorem"):
            # The vector's words say "2766-byte", but the bytes it cites as the string's
            # varlen length, be 15, are 0x3e + (0x15 << 7) = 2750: the string is 2750 bytes.
            text = got["text"] if isinstance(got, dict) else ""
            assert len(text.encode()) == 2750 and text.startswith(LOREM_PREFIX)
            return {"text": text}
        return exp
    if code == 17 and isinstance(exp, str):  # TIMESTAMP2 written as text
        return exp
    if code in (15, 252, 254) and isinstance(exp, str) and isinstance(got, bytes):
        return exp.encode("utf-8")  # no charset metadata: strings decode to bytes
    return exp


def _cmp(col: ColumnDesc, got: Any, exp: Any) -> None:
    want = expected_value(col, exp, got)
    if col.type_code == 17 and isinstance(want, str):
        assert str(got) == want
        return
    if col.type_code == 245 and isinstance(want, str):  # JSON column holding a JSON string
        assert got == want
        return
    assert got == want, (col, got, exp)


def _row_list(exp_rows: list, update: bool) -> list:
    if not update:
        return exp_rows
    return [(r["before"], r["after"]) for r in exp_rows]


# --------------------------------------------------------------------------- extra row info

def parse_extra_info(extra: bytes, update: bool) -> dict:
    """v2 extra row info (format.md §13): NDB (type 0) and partition (type 1) fields."""
    out: dict[str, Any] = {}
    pos = 0
    while pos < len(extra):
        kind = extra[pos]
        if kind == 0:
            n = extra[pos + 1]
            out["ndb_format"] = extra[pos + 2]
            out["ndb_data_hex"] = extra[pos + 3:pos + 1 + n].hex()
            pos += 1 + n
        elif kind == 1:
            out["partition_id"] = int.from_bytes(extra[pos + 1:pos + 3], "little")
            pos += 3
            if update:
                out["source_partition_id"] = int.from_bytes(extra[pos:pos + 2], "little")
                pos += 2
        else:
            raise AssertionError(f"unknown extra row info type {kind}")
    return out


# --------------------------------------------------------------------------- mariadb-binlog text

_AT = re.compile(r"^###   @(\d+)=(.*) /\* (.*?) \*/$")
_INT_BITS = {1: 8, 2: 16, 9: 24, 3: 32, 8: 64}


def decoder_items(lines: list[str]) -> list[tuple[int, int, int, str]]:
    """mariadb-binlog -vv lines -> [(row, image, column number, value text)] in output order."""
    items = []
    row = img = -1
    for line in lines:
        if line.startswith(("### INSERT INTO", "### UPDATE ", "### DELETE FROM")):
            row += 1
            img = -1
        elif line in ("### WHERE", "### SET"):
            img += 1
        else:
            m = _AT.match(line)
            if m:
                items.append((row, max(img, 0), int(m.group(1)), m.group(2)))
    return items


def _quoted(data: bytes) -> str:
    out = bytearray(b"'")
    for b in data:
        out += bytes([b]) if b > 0x1F else b"\\x%02x" % b
    return out.decode("utf-8", "replace") + "'"


def _value_bytes(col: ColumnDesc, v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    from binlogwriter.charsets import collation

    return collation(col.collation, col.flavor).encode(v)


def render_like_mariadb_binlog(col: ColumnDesc, v: Any) -> str:
    """Our decoded value as ``mariadb-binlog -vv`` prints it (log_event_client.cc
    ``log_event_print_value``)."""
    if v is None:
        return "NULL"
    code = col.type_code
    if code in _INT_BITS:
        bits = _INT_BITS[code]
        s = v - (1 << bits) if v >= 1 << (bits - 1) else v
        return f"{s} ({s + (1 << bits)})" if s < 0 else str(s)
    if code == 13:
        return str(v)
    if code == 16:
        m = col.meta[1] * 8 + col.meta[0]
        return f"b'{v:0{m}b}'"
    if code == 4:
        return f"{v:<20g}"
    if code == 5:
        return f"{v:<.20g}"
    if code == 246:
        return format(v, "f")
    if code in (7, 17):
        if isinstance(v, MysqlDateTime):
            return "0"
        secs = int(v.timestamp())
        fsp = col.meta[0] if col.meta else 0
        return str(secs) if not fsp else f"{secs}.{v.microsecond // 10 ** (6 - fsp):0{fsp}d}"
    if code in (12, 18):
        fsp = col.meta[0] if col.meta else 0
        s = f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        return f"'{s}" + (f".{v.microsecond // 10 ** (6 - fsp):0{fsp}d}" if fsp else "") + "'"
    if code == 10:
        return f"'{v.year:04d}:{v.month:02d}:{v.day:02d}'"
    if code in (11, 19):
        fsp = col.meta[0] if col.meta else (col.fsp or 0)
        us = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
        sign, us = ("-" if us < 0 else ""), abs(us)
        secs, frac = divmod(us, 1_000_000)
        s = f"{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
        return f"'{s}" + (f".{frac // 10 ** (6 - fsp):0{fsp}d}" if fsp else "") + "'"
    if code in (15, 252, 253, 254, 255):
        if code in (253, 254):
            real = string_real_type(col)
            if real == 247:
                return str(col.enum_values.index(v) + 1 if v else 0) if col.enum_values else str(v)
            if real == 248:
                storage = parse_string_meta(col.meta)[1]
                mask = v if isinstance(v, int) else sum(1 << col.set_values.index(m) for m in v)
                return f"b'{mask:0{8 * storage}b}'"
        if code == 255:
            return _quoted(v.to_bytes())
        return _quoted(_value_bytes(col, v))
    raise AssertionError(f"no mariadb-binlog rendering for type {code}")


# --------------------------------------------------------------------------- tests

@pytest.mark.parametrize("fname,i,e", ENTRIES)
def test_rows_vector(fname: str, i: int, e: dict) -> None:
    name = f"{fname}[{i}]"
    fmt, footer, tm, cols, ev = decode_vector(fname, e)
    raw = bytes.fromhex(e["hex"])
    assert ev.rows_raw is None, f"{name}: rows were not decoded"
    assert ev.table_id == tm.table_id
    update = ev.TYPE in UPDATE_TYPES
    exp = e["expected"]

    # byte-exact re-encode
    if e["kind"] == "event_body":
        assert encode_body(ev, fmt) == raw
    else:
        assert encode_event(ev, fmt, footer=footer) == raw

    if e["kind"] == "event_body":
        unchecked = set(exp) - COMMENTARY - {"rows", "flags", "partition_id", "source_partition_id",
                                               "ndb_format", "ndb_data_hex"}
        assert not unchecked, f"{name}: expected keys not checked: {unchecked}"
        if "flags" in exp:
            assert ev.rows_flags == exp["flags"]
        extra = parse_extra_info(ev.extra_info, update) if ev.TYPE in V2_TYPES else {}
        for key in ("partition_id", "source_partition_id", "ndb_format", "ndb_data_hex"):
            if key in exp:
                # go-mysql reports 0 for a partition id the event does not carry (NDB event,
                # source partition of a WRITE); the vectors write None where none is asserted
                default = 0 if key.endswith("partition_id") and exp[key] == 0 else None
                assert extra.get(key, default) == exp[key], key
        want_rows = _row_list(exp["rows"], update)
        assert len(ev.rows) == len(want_rows)
        for got, want in zip(ev.rows, want_rows, strict=True):
            images = zip(got, want, strict=True) if update else [(got, want)]
            for g_img, w_img in images:
                assert len(g_img) == len(w_img) == len(cols)
                for col, g, w in zip(cols, g_img, w_img, strict=True):
                    _cmp(col, g, w)
        return

    # whole events: header, footer, body fields
    h = exp["header"]
    ts, tc, sid, length, pos, flags = struct.unpack_from("<IBIIIH", raw)
    assert (ts, tc, sid, length, pos, flags) == (h["timestamp"], h["type_code"], h["server_id"],
                                                 h["event_length"], h["next_position"], h["flags"])
    assert (ev.timestamp, ev.server_id, ev.log_pos, ev.flags) == (ts, sid, pos, flags)
    if "crc32" in exp:
        crc = int.from_bytes(raw[-4:], "little")
        assert f"{crc:08x}" == exp["crc32"]
        assert (zlib.crc32(raw[:-4]) == crc) is exp["crc32_valid"]
    b = exp["body"]
    assert ev.table_id == b["table_id"]
    assert ev.rows_flags == b["flags"]
    assert ev.width == b["width"] == len(cols)
    if "var_header_len" in b:
        assert len(ev.extra_info) + 2 == b["var_header_len"]
        assert ev.extra_info.hex() == b["extra_row_info_hex"]
    from binlogwriter.layouts.primitives import encode_bitmap

    def bm_hex(bm) -> str:
        return encode_bitmap(list(bm), False, getattr(bm, "pad", 0)).hex()

    assert bm_hex(ev.columns_present) == b["columns_before_image_hex"]
    if "columns_after_image_hex" in b:
        assert bm_hex(ev.columns_after) == b["columns_after_image_hex"]
    # rows_data_hex is exactly the rows part of the body
    assert raw.hex().find(b["rows_data_hex"]) >= 0
    assert raw[:len(raw) - (4 if footer is not False and fmt.footer_size == 4 else 0)].hex().endswith(
        b["rows_data_hex"])

    lines = e.get("decoder_output_mariadb_binlog_10.11", [])
    if name in NO_VALUE_CHECK:
        assert not any(_AT.match(x) for x in lines)
        return
    want = decoder_items(lines)
    assert want, f"{name}: no decoder output to compare values with"
    got_items = []
    for r, row in enumerate(ev.rows):
        for m, img in enumerate(row if update else [row]):
            got_items += [(r, m, k + 1, render_like_mariadb_binlog(cols[k], v))
                          for k, v in enumerate(img) if v is not ABSENT]
    # the stored decoder output may stop early (vectors keep a bounded number of lines):
    # what it shows must be a prefix of ours
    assert len(want) <= len(got_items)
    assert got_items[:len(want)] == want


def test_sakila_first_row() -> None:
    """rows.json[17] (MySQL 5.5.27, sakila.actor, TIMESTAMP in the old type 7): the first row
    is actor 1, PENELOPE GUINESS, last_update '2006-02-15 04:34:33' of sakila-data.sql, loaded
    on a server at UTC+01:00, i.e. 1139974473 s."""
    e = json.loads((VECTORS / "rows.json").read_text())[17]
    _, _, tm, cols, ev = decode_vector("rows.json", e)
    assert tm.table == "actor"
    first = ev.rows[0]
    assert first[0] == 1
    assert first[1] in ("PENELOPE", b"PENELOPE") and first[2] in ("GUINESS", b"GUINESS")
    assert first[3] == dt.datetime(2006, 2, 15, 3, 34, 33, tzinfo=dt.UTC)
    assert int(first[3].timestamp()) == 1139974473
    assert len(ev.rows) == 49


def test_json_null_empty_vector_keeps_its_form() -> None:
    """rows.json[5]: the zero-length JSON value decodes to JSON_NULL_EMPTY (re-encodes as
    length 0, not as the literal ``04 00``)."""
    e = json.loads((VECTORS / "rows.json").read_text())[5]
    _, _, _, _, ev = decode_vector("rows.json", e)
    assert ev.rows[0][3] is JSON_NULL_EMPTY
