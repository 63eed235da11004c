"""JSON partial updates: the diff list of a PARTIAL_UPDATE_ROWS_EVENT (type 39) after image,
both ways (docs/format.md "PARTIAL_UPDATE_ROWS_EVENT"; MySQL ``Json_diff_vector::write_binary``
and ``pack_row`` in ``sql/rpl_record.cc``).

MySQL 8.0 with ``binlog_row_value_options=PARTIAL_JSON`` logs an UPDATE of a JSON column made
by ``JSON_SET`` / ``JSON_REPLACE`` / ``JSON_REMOVE`` (``binlog_row_image`` MINIMAL or NOBLOB) as
a list of changes instead of the whole new document. Each row of the event is:

* the before image, as in any UPDATE;
* ``value_options`` (packed integer: 1 = PARTIAL_JSON_UPDATES when the row carries at least
  one diff, else 0); when 1, ``partial_bits``: one bit per JSON column of the *table* (LSB
  first, ceil(k/8) bytes), 1 = that column holds a diff list;
* the after image (null bitmap + values) where each partial JSON column holds
  ``u32 length`` of the list, then per diff: ``u8 operation`` (0 REPLACE, 1 INSERT, 2 REMOVE),
  packed path length, the path text (``$.a``, ``$[2]``, ``$."a b"``), and unless REMOVE a
  packed value length and the value as a binary JSON document (values.md §7).

:class:`JsonPartial` is the value of such a column in a row (a tuple of :class:`JsonDiff`);
reading keeps each value's bytes so that a re-encoded event is byte-identical.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from binlogwriter.errors import DecodeError, ValueEncodeError
from binlogwriter.layouts.primitives import encode_packed_int
from binlogwriter.values.base import ABSENT, ColumnDesc
from binlogwriter.values.json_binary import JsonEncodeError, decode_json, encode_json
from binlogwriter.values.registry import bind_column
from binlogwriter.values.row import null_bitmap, read_null_bitmap

__all__ = ["JsonDiff", "JsonPartial", "OPERATIONS", "replace", "insert", "remove", "encode_diffs",
           "decode_diffs", "encode_partial_image", "decode_partial_image", "JSON_TYPE"]

OPERATIONS = ("replace", "insert", "remove")  # the operation byte is the index (enum_json_diff_operation)
JSON_TYPE = 245
PARTIAL_JSON_UPDATES = 1
_MEMBER = r'\.(?:[^\W\d][\w$]*|\$[\w$]*|"(?:[^"\\]|\\.)*")'
_CELL = r"\[(?:\d+|last(?:\s*-\s*\d+)?)\]"
_PATH = re.compile(rf"\$(?:{_MEMBER}|{_CELL})+\Z")


@dataclass(frozen=True)
class JsonDiff:
    """One change of a JSON document: ``op`` in :data:`OPERATIONS`, ``path`` a JSON path with
    at least one leg (member names and array cells, no wildcard: the server never logs a
    change of the root), ``value`` the new value (JSON null is ``None``; none for remove)."""

    op: str
    path: str
    value: Any = None
    raw: bytes | None = field(default=None, compare=False, repr=False)  # the value's bytes as read

    def __post_init__(self) -> None:
        if self.op not in OPERATIONS:
            raise ValueEncodeError(f"JSON diff operation must be one of {', '.join(OPERATIONS)}, got {self.op!r}")
        if not isinstance(self.path, str) or not _PATH.match(self.path):
            raise ValueEncodeError(f"JSON diff path must be '$' followed by member (.name) or array cell ([N]) "
                                   f"legs, got {self.path!r}")
        if self.op == "remove" and self.value is not None:
            raise ValueEncodeError(f"a JSON remove at {self.path} takes no value")


@dataclass(frozen=True)
class JsonPartial:
    """The after-image value of a JSON column updated in place: its list of diffs, applied in
    order by the replica (``JSON_SET``/``JSON_REPLACE``/``JSON_ARRAY_INSERT``/``JSON_REMOVE``)."""

    diffs: tuple[JsonDiff, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "diffs", tuple(self.diffs))
        for d in self.diffs:
            if not isinstance(d, JsonDiff):
                raise ValueEncodeError(f"a JsonPartial holds JsonDiff items, got {type(d).__name__}")


def replace(path: str, value: Any) -> JsonDiff:
    return JsonDiff("replace", path, value)


def insert(path: str, value: Any) -> JsonDiff:
    return JsonDiff("insert", path, value)


def remove(path: str) -> JsonDiff:
    return JsonDiff("remove", path)


# --------------------------------------------------------------------------------- the list
def encode_diffs(partial: JsonPartial) -> bytes:
    """``u32 length`` + the diffs (``Json_diff_vector::write_binary``)."""
    out = bytearray()
    for d in partial.diffs:
        path = d.path.encode("utf-8")
        out.append(OPERATIONS.index(d.op))
        out += encode_packed_int(len(path)) + path
        if d.op != "remove":
            if d.raw is not None:
                doc = d.raw
            else:
                try:
                    doc = encode_json(d.value)
                except JsonEncodeError as exc:
                    raise ValueEncodeError(f"JSON diff value at {d.path}: {exc}") from None
                except RecursionError:
                    raise ValueEncodeError(f"JSON diff value at {d.path} is too deep") from None
            out += encode_packed_int(len(doc)) + doc
    if len(out) > 0xFFFFFFFF:
        raise ValueEncodeError(f"JSON diff list of {len(out)} bytes passes 4 GiB")
    return len(out).to_bytes(4, "little") + bytes(out)


def _packed(buf: Any, pos: int, end: int, what: str) -> tuple[int, int]:
    """A packed integer (format.md §2) within ``[pos, end)``."""
    if pos >= end:
        raise DecodeError(f"JSON diff {what} needs a length byte at {pos}")
    b = buf[pos]
    if b < 251:
        return b, pos + 1
    size = {252: 2, 253: 3, 254: 8}.get(b)
    if size is None:
        raise DecodeError(f"JSON diff {what}: bad packed length byte {b:#x} at {pos}")
    if pos + 1 + size > end:
        raise DecodeError(f"JSON diff {what}: packed length at {pos} runs past the list's end ({end})")
    return int.from_bytes(buf[pos + 1:pos + 1 + size], "little"), pos + 1 + size


def decode_diffs(buf: Any, pos: int) -> tuple[JsonPartial, int]:
    """(the diff list at ``pos``, position after it); DecodeError naming the offset if bad.
    Every length is checked against the bytes present before anything is read."""
    if pos + 4 > len(buf):
        raise DecodeError(f"JSON diff list length needs 4 bytes at {pos}, {max(0, len(buf) - pos)} left")
    n = int.from_bytes(buf[pos:pos + 4], "little")
    pos += 4
    end = pos + n
    if end > len(buf):
        raise DecodeError(f"JSON diff list of {n} bytes at {pos} runs past the end ({len(buf)})")
    diffs = []
    while pos < end:  # every step consumes at least the operation byte
        op = buf[pos]
        if op >= len(OPERATIONS):
            raise DecodeError(f"JSON diff operation {op} at {pos} (0 replace, 1 insert, 2 remove)")
        at = pos
        plen, pos = _packed(buf, pos + 1, end, "path")
        if pos + plen > end:
            raise DecodeError(f"JSON diff path of {plen} bytes at {pos} runs past the list's end ({end})")
        try:
            path = bytes(buf[pos:pos + plen]).decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError(f"JSON diff path at {pos} is not UTF-8") from None
        pos += plen
        value, raw = None, None
        if op != 2:
            vlen, pos = _packed(buf, pos, end, "value")
            if pos + vlen > end:
                raise DecodeError(f"JSON diff value of {vlen} bytes at {pos} runs past the list's end ({end})")
            raw = bytes(buf[pos:pos + vlen])
            try:
                value = decode_json(raw)
            except ValueError as exc:
                raise DecodeError(f"JSON diff value at {pos}: {exc}") from None
            pos += vlen
        try:
            diffs.append(JsonDiff(OPERATIONS[op], path, value, raw))
        except ValueEncodeError as exc:
            raise DecodeError(f"JSON diff at {at}: {exc.reason if hasattr(exc, 'reason') else exc}") from None
    return JsonPartial(tuple(diffs)), pos


# --------------------------------------------------------------------------------- the after image
def _json_columns(cols: Sequence[ColumnDesc]) -> list[int]:
    return [i for i, c in enumerate(cols) if c.type_code == JSON_TYPE]


def encode_partial_image(cols: Sequence[ColumnDesc], present: Sequence[bool], values: Sequence[Any],
                         null_pad: int = 0, value_options: int | None = None,
                         partial_bits: bytes | None = None) -> bytes:
    """The after image of one PARTIAL_UPDATE_ROWS row: ``value_options`` [+ ``partial_bits``],
    null bitmap, values (a :class:`JsonPartial` in a JSON column is written as its diff list).
    ``value_options`` / ``partial_bits`` None: as the server computes them from the values."""
    jcols = _json_columns(cols)
    flags = [bool(present[i]) and isinstance(values[i], JsonPartial) for i in jcols]
    for i, v in enumerate(values):
        if isinstance(v, JsonPartial) and (cols[i].type_code != JSON_TYPE or not present[i]):
            c = cols[i]
            raise ValueEncodeError("JSON diffs need a JSON column in the after image", table=c.table, column=c.name)
    vo = (PARTIAL_JSON_UPDATES if any(flags) else 0) if value_options is None else value_options
    out = bytearray(encode_packed_int(vo))
    partial: set[int] = set()
    if vo & PARTIAL_JSON_UPDATES:
        nb = (len(jcols) + 7) // 8
        if partial_bits is None:
            bits = sum(1 << k for k, f in enumerate(flags) if f)
            partial_bits = bits.to_bytes(nb, "little")
        if len(partial_bits) != nb:
            raise ValueEncodeError(f"partial_bits need {nb} bytes for {len(jcols)} JSON columns, got {len(partial_bits)}")
        out += partial_bits
        word = int.from_bytes(partial_bits, "little")
        partial = {i for k, i in enumerate(jcols) if word >> k & 1}
    elif any(flags):
        raise ValueEncodeError("JSON diffs in a row whose value_options is 0 (no PARTIAL_JSON_UPDATES)")
    parts: list[bytes] = []
    bits = k = 0
    for i, c in enumerate(cols):
        if not present[i]:
            continue
        v = values[i]
        if v is None:
            if not c.nullable:
                raise ValueEncodeError("column is NOT NULL, got None", table=c.table, column=c.name)
            bits |= 1 << k
        elif v is ABSENT:
            raise ValueEncodeError("column is present in the image but its value is ABSENT",
                                   table=c.table, column=c.name)
        elif i in partial:
            if not isinstance(v, JsonPartial):
                raise ValueEncodeError("the column's partial bit is set: its value must be a JsonPartial",
                                       table=c.table, column=c.name)
            try:
                parts.append(encode_diffs(v))
            except ValueEncodeError as exc:
                raise ValueEncodeError(exc.reason, table=c.table, column=c.name) from None
        else:
            parts.append(bind_column(c).encode(v))
        k += 1
    return bytes(out) + null_bitmap(bits, k, null_pad) + b"".join(parts)


def decode_partial_image(cols: Sequence[ColumnDesc], present: Sequence[bool], buf: Any,
                         pos: int) -> tuple[tuple, tuple[int, int, bytes | None], int]:
    """(full-width values with ABSENT, (null padding, value_options, partial_bits), position)."""
    vo, pos = _packed(buf, pos, len(buf), "value_options")
    if vo > PARTIAL_JSON_UPDATES:
        raise DecodeError(f"PARTIAL_UPDATE_ROWS value_options {vo} at {pos} (only 0 or 1 exist)")
    jcols = _json_columns(cols)
    pbits = None
    partial: set[int] = set()
    if vo & PARTIAL_JSON_UPDATES:
        nb = (len(jcols) + 7) // 8
        if pos + nb > len(buf):
            raise DecodeError(f"partial_bits need {nb} bytes at {pos}, {max(0, len(buf) - pos)} left")
        pbits = bytes(buf[pos:pos + nb])
        pos += nb
        word = int.from_bytes(pbits, "little")
        partial = {i for k, i in enumerate(jcols) if word >> k & 1}
    idx, bits, pad, pos = read_null_bitmap(present, buf, pos)
    out: list[Any] = [ABSENT] * len(cols)
    for j, i in enumerate(idx):
        if bits >> j & 1:
            out[i] = None
        elif i in partial:
            out[i], pos = decode_diffs(buf, pos)
        else:
            out[i], pos = bind_column(cols[i]).decode(buf, pos)
    return tuple(out), (pad, vo, pbits), pos
