"""Arrow arrays from row-image spans, one section per type family (issue 11): integer,
floating, decimal, date, datetime, timestamp, enum_set, char / blob / geometry. Each turns
the spans :func:`binlogwriter.read.arrowcols.walk_image` found into an Arrow array's buffers
(validity bitmap, int/float data, decimal128 from unscaled integers, date32 days,
timestamp microseconds, offsets + bytes for strings), never into Python values. A value
outside a family's plain case (a zero date, a NaN, an invalid UTF-8 text) is decoded by
the reference — the column's compiled decoder and :func:`~binlogwriter.read.arrowcols.converter`
— per distinct bytes; the families without a section here (bit, year, time, json,
inet_uuid, UTF-16/32 text, DECIMAL above 18 digits) go that way for every value.

Size (about 450 lines): one class, ColumnBuilder (see its reason), and the array helpers its
family sections share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from binlogwriter.read.arrowbuild import bitmap, span_bytes, strings, take
from binlogwriter.read.arrowcols import (
    Fallback,
    arrow_type,
    column_layout,
    converter,
    safe_array,
)
from binlogwriter.values._strings import (
    char_pad,
    column_collation,
    plain_string_layout,
    string_real_type,
)
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.decimal_binary import SIGN_BIT, digit_groups
from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    DATETIME2_INT_BYTES,
    FRACTIONS,
    TIMESTAMP2_SECONDS,
    datetime_parts,
)

__all__ = ["ColumnBuilder"]

_INT = frozenset((1, 2, 9, 3, 8))
"""TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT (the integer family's type codes)."""


# -- Arrow arrays from spans ------------------------------------------------------------------

def _gather(buf: np.ndarray, start: np.ndarray, w: int) -> np.ndarray:
    """(n, w) bytes at each start (garbage for NULL rows, in bounds thanks to PAD)."""
    if w == 1:
        return buf[start].reshape(-1, 1)
    return buf[start[:, None] + np.arange(w)]


def _be(m: np.ndarray, at: int, n: int) -> np.ndarray:
    """Big-endian unsigned integer of bytes ``at .. at+n`` of each row of ``m`` (int64)."""
    v = np.zeros(len(m), dtype=np.int64)
    for j in range(at, at + n):
        v = (v << 8) | m[:, j]
    return v


class ColumnBuilder:
    """One column's Arrow array from its spans in a batch's rows bytes.

    Size: one short section per type family, chosen once per column by _pick; they share the
    reference fallback and _patch, which a module per family would have to import back.
    """

    def __init__(self, col: ColumnDesc) -> None:
        self.col = col
        self.typ = arrow_type(col)
        self.conv = converter(col, self.typ)
        layout = column_layout(col)
        self.layout = layout
        self._dec1: Callable | None = None
        self._set_tables: list | None = None
        self.build = self._pick()

    # the reference, value by value (distinct bytes decoded once) --------------------------
    def reference(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray, valid: np.ndarray) -> pa.Array:
        """The reference path's array: the column's compiled decoder on each value's bytes,
        :func:`converter`, :func:`safe_array`."""
        if self._dec1 is None:
            from binlogwriter.read.rowdecode import table_decoder

            self._dec1 = table_decoder((self.col,)).image((True,))
        dec, conv = self._dec1, self.conv
        fixed, lb = self.layout  # type: ignore[misc]

        def one(key: bytes) -> Any:
            got, _, end = dec(b"\0" + key, 0)
            if end != len(key) + 1:
                raise Fallback
            v = got[0]
            return conv(v) if v is not None and conv is not None else v

        rows = np.flatnonzero(valid)
        if fixed:  # distinct values decoded once, then taken
            if not len(rows):
                return pa.nulls(len(start), type=self.typ)
            m = np.ascontiguousarray(_gather(buf, start[rows], lb))
            uniq, inv = np.unique(m.view(f"V{lb}").reshape(-1), return_inverse=True)
            arr = safe_array([one(u.tobytes()) for u in uniq], self.typ)
            idx = np.zeros(len(start), dtype=np.int64)
            idx[rows] = inv.reshape(-1)
            return take(arr, idx, valid)
        memo: dict[bytes, Any] = {}
        vals: list[Any] = [None] * len(start)
        for j in rows.tolist():
            key = raw[int(start[j]) - lb:int(start[j]) + int(size[j])]
            v = memo.get(key, memo)
            if v is memo:
                v = one(key)
                if len(memo) < 4096:
                    memo[key] = v
            vals[j] = v
        return safe_array(vals, self.typ)

    def _pick(self) -> Callable[..., pa.Array]:
        col, t = self.col, self.col.type_code
        if self.layout is None:
            return self._decline
        if t in _INT:
            return self._integer
        if t in (4, 5) and len(col.meta) == 1:
            return self._floating
        if t == 246 and col.meta[0] <= 18 and pa.types.is_decimal(self.typ):
            return self._decimal
        if t == 10:
            return self._date
        if t in (17, 18) and len(col.meta) == 1 and 0 <= col.meta[0] <= 6:
            return self._datetime if t == 18 else self._timestamp
        if t in (15, 252, 253, 254) and not self.layout[0]:
            plain = plain_string_layout(col)
            if plain is not None and plain[0] == self.layout[1]:
                codec = plain[1]
                if codec == "utf_8" and pa.types.is_string(self.typ):
                    return self._char
                if codec is None and pa.types.is_binary(self.typ):
                    return self._char
            if _ascii_text(col, self.typ) and (t in (15, 252) or string_real_type(col) == 254):
                return self._ascii
        if t == 255 and pa.types.is_binary(self.typ):
            return self._geometry
        if self.layout[0] and t in (253, 254) and string_real_type(col) == 248 and pa.types.is_string(self.typ) \
                and col.set_values is not None and len(set(col.set_values)) == len(col.set_values) \
                and self.layout[1] <= 8:
            return self._set
        return self._generic

    def _generic(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
                 valid: np.ndarray) -> pa.Array:
        """bit, year, time, enum_set, json, geometry, inet_uuid, other charsets, wide
        DECIMAL: every value through the reference (by distinct bytes)."""
        return self.reference(buf, raw, start, size, valid)

    def _decline(self, *_: Any) -> pa.Array:
        raise Fallback

    def _patch(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray, valid: np.ndarray, data: np.ndarray,
               odd: np.ndarray, storage: pa.DataType) -> pa.Array:
        """The array of ``data`` (storage ints) where ``valid``, with the rows in ``odd``
        (valid but outside the plain case) decoded by the reference."""
        if odd.any():
            rows = np.flatnonzero(odd)
            ref = self.reference(buf, raw, start[rows], size[rows], np.ones(len(rows), dtype=bool))
            valid = valid.copy()
            valid[rows] = ref.is_valid().to_numpy(zero_copy_only=False)
            data = data.copy()
            data[rows] = ref.view(storage).fill_null(0).to_numpy(zero_copy_only=False)
        return pa.Array.from_buffers(self.typ, len(data), [bitmap(valid), pa.py_buffer(data)])

    # integer ---------------------------------------------------------------------------------
    def _integer(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
                 valid: np.ndarray) -> pa.Array:
        """TINYINT..BIGINT: little-endian two's complement or unsigned (values.md §2)."""
        w = self.layout[1]  # type: ignore[index]
        m = _gather(buf, start, w)
        if w == 3:  # MEDIUMINT
            v = m[:, 0].astype(np.int32) | m[:, 1].astype(np.int32) << 8 | m[:, 2].astype(np.int32) << 16
            if not self.col.unsigned:
                v = (v ^ 0x800000) - 0x800000
            data = v.astype(np.uint32 if self.col.unsigned else np.int32)
        else:
            data = m.view(f"<{'u' if self.col.unsigned else 'i'}{w}").reshape(-1)
        return pa.Array.from_buffers(self.typ, len(data), [bitmap(valid), pa.py_buffer(data)])

    # floating --------------------------------------------------------------------------------
    def _floating(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
                  valid: np.ndarray) -> pa.Array:
        """FLOAT / DOUBLE: IEEE 754 little-endian (values.md §2); NaN by the reference."""
        w = self.layout[1]  # type: ignore[index]
        if w not in (4, 8):
            return self.reference(buf, raw, start, size, valid)
        m = _gather(buf, start, w)
        odd = valid & np.isnan(m.view(f"<f{w}").reshape(-1))
        return self._patch(buf, raw, start, size, valid, m.view(f"<i{w}").reshape(-1), odd,
                           pa.int32() if w == 4 else pa.int64())

    # decimal ---------------------------------------------------------------------------------
    def _decimal(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
                 valid: np.ndarray) -> pa.Array:
        """DECIMAL(p ≤ 18, s): ``decimal2bin`` (values.md §3; values/decimal_binary.py's
        :func:`digit_groups` and :data:`SIGN_BIT`) to the unscaled integer, as decimal128 (low
        64 bits + sign extension)."""
        p, s = self.col.meta[0], self.col.meta[1]
        n = self.layout[1]  # type: ignore[index]
        m = _gather(buf, start, n).copy()
        neg = (m[:, 0] & SIGN_BIT) == 0
        m[:, 0] ^= SIGN_BIT
        m[neg] ^= 0xFF
        bad = np.zeros(len(m), dtype=bool)
        value = np.zeros(len(m), dtype=np.int64)
        for g in reversed(digit_groups(p, s)):  # most significant first
            d = _be(m, n - g.shift // 8 - g.size, g.size)
            bad |= d >= 10 ** g.digits
            value = value * 10 ** g.digits + d
        if (bad & valid).any():  # the codec refuses such bytes: the reference raises, located
            raise Fallback
        value = np.where(neg, -value, value)
        data = np.empty((len(m), 2), dtype=np.int64)
        data[:, 0] = value
        data[:, 1] = value >> 63
        return pa.Array.from_buffers(self.typ, len(m), [bitmap(valid), pa.py_buffer(data)])

    # date ------------------------------------------------------------------------------------
    def _date(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
              valid: np.ndarray) -> pa.Array:
        """DATE: 3 bytes little-endian, day | month << 5 | year << 9 (values.md §4) -> date32."""
        m = _gather(buf, start, 3).astype(np.int64)
        v = m[:, 0] | m[:, 1] << 8 | m[:, 2] << 16
        days, ok = _civil_days(v >> 9, (v >> 5) & 15, v & 31)
        return self._patch(buf, raw, start, size, valid, days.astype(np.int32), valid & ~ok, pa.int32())

    # datetime --------------------------------------------------------------------------------
    def _datetime(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
                  valid: np.ndarray) -> pa.Array:
        """DATETIME2: 5 bytes big-endian, ``datetime_int`` plus the sign bit (values/temporal_layout.py),
        then the fraction (values.md §4) -> microseconds."""
        fsp = self.col.meta[0]
        m = _gather(buf, start, self.layout[1])  # type: ignore[index]
        ip = _be(m, 0, DATETIME2_INT_BYTES) - DATETIME2_BIAS
        us, fok = _fraction(m, DATETIME2_INT_BYTES, fsp)
        y, mo, d, h, mi, sec = datetime_parts(ip)
        days, ok = _civil_days(y, mo, d)
        ok &= (ip >= 0) & fok & (h < 24) & (mi < 60) & (sec < 60)
        data = days * 86_400_000_000 + ((h * 60 + mi) * 60 + sec) * 1_000_000 + us
        return self._patch(buf, raw, start, size, valid, data, valid & ~ok, pa.int64())

    # timestamp -------------------------------------------------------------------------------
    def _timestamp(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
                   valid: np.ndarray) -> pa.Array:
        """TIMESTAMP2: 4 bytes big-endian seconds since the epoch, then the fraction
        (values.md §4) -> microseconds, UTC. 0 (the zero timestamp) by the reference."""
        fsp = self.col.meta[0]
        m = _gather(buf, start, self.layout[1])  # type: ignore[index]
        secs = _be(m, 0, TIMESTAMP2_SECONDS)
        us, fok = _fraction(m, TIMESTAMP2_SECONDS, fsp)
        ok = fok & (secs != 0)
        return self._patch(buf, raw, start, size, valid, secs * 1_000_000 + us, valid & ~ok, pa.int64())

    # enum_set --------------------------------------------------------------------------------
    def _set(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
             valid: np.ndarray) -> pa.Array:
        """SET with known, distinct members: the little-endian bitmask (values.md §5), bit i
        member i, written as the members comma-separated in their order; per distinct mask,
        from per-byte tables. A bit past the last member: the reference."""
        members = self.col.set_values or ()
        w = self.layout[1]  # type: ignore[index]
        rows = np.flatnonzero(valid)
        if not len(rows):
            return pa.nulls(len(start), type=self.typ)
        m = np.ascontiguousarray(_gather(buf, start[rows], w))
        uniq, inv = np.unique(m.view(f"V{w}").reshape(-1), return_inverse=True)
        tables = self._set_tables
        if tables is None:
            tables = self._set_tables = [
                tuple(tuple(members[8 * k + i] for i in range(8) if b >> i & 1 and 8 * k + i < len(members))
                      for b in range(256)) for k in range(w)]
        limit = 1 << len(members)
        out = []
        for u in uniq:
            key = u.tobytes()
            if int.from_bytes(key, "little") >= limit:
                return self._generic(buf, raw, start, size, valid)
            names: tuple = ()
            for k, b in enumerate(key):
                if b:
                    names += tables[k][b]
            out.append(",".join(names))
        idx = np.zeros(len(start), dtype=np.int64)
        idx[rows] = inv.reshape(-1)
        return take(strings(out), idx, valid)

    # char / blob / geometry --------------------------------------------------------------------
    def _ascii(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
               valid: np.ndarray) -> pa.Array:
        """Text in a charset whose ASCII range is ASCII (latin1, gbk, …): when every byte is
        below 0x80 the text is those bytes (values.md §5); else the reference."""
        return self._char(buf, raw, start, size, valid, ascii_only=True)

    def _geometry(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
                  valid: np.ndarray) -> pa.Array:
        """GEOMETRY: the 4-byte SRID and the WKB as logged (values.md §8), as binary; a
        value too short for its SRID: the reference's error."""
        if (valid & (size < 4)).any():
            raise Fallback
        return self._char(buf, raw, start, size, valid)

    def _char(self, buf: np.ndarray, raw: bytes, start: np.ndarray, size: np.ndarray,
              valid: np.ndarray, ascii_only: bool = False) -> pa.Array:
        """CHAR / VARCHAR / TEXT in UTF-8 (utf8mb3, utf8mb4) and binary strings: the logged
        bytes as they are (values.md §5, §6) -> offsets + data. A CHAR ending with its pad
        (never logged by a server) falls back; text that is not valid UTF-8 goes to the
        reference (which keeps it as bytes, and Arrow then holds null)."""
        n = len(start)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(size, out=offsets[1:])
        total = int(offsets[-1])
        if total >= 1 << 31:
            raise Fallback
        if total:  # the values' bytes joined (cheaper than a byte index, and than an Arrow view
            # array's cast, which imports pyarrow.compute: tests/read/test_export_no_pandas.py)
            rows = np.flatnonzero(size)
            data = span_bytes(buf, raw, start[rows], size[rows])
        else:
            data = np.zeros(0, dtype=np.uint8)
        wide = ascii_only and total and int(data.max()) >= 0x80
        table = _single_byte_table(self.col) if wide else None
        if wide and (table is None or not table[2][data].all()):
            return self.reference(buf, raw, start, size, valid)
        pad = char_pad(self.col)
        if pad:
            ends = offsets[1:] - 1
            hit = (size > 0) & (data[np.maximum(ends, 0)] == pad[-1]) if total else np.zeros(n, dtype=bool)
            if hit.any() and (len(pad) == 1 or any(
                    raw[int(start[j] + size[j]) - len(pad):int(start[j] + size[j])] == pad
                    for j in np.flatnonzero(hit).tolist())):
                raise Fallback
        if wide:  # a one-byte charset: each byte's character as UTF-8, from a 256-entry table
            lens, utf8, _ = table  # type: ignore[misc]
            per = lens[data]
            cum = np.zeros(len(data) + 1, dtype=np.int64)
            np.cumsum(per, out=cum[1:])
            offsets = cum[offsets]
            data = utf8[data][np.arange(3) < per[:, None]]
            if int(offsets[-1]) >= 1 << 31:
                raise Fallback
        off32 = offsets.astype(np.int32)
        arr = pa.Array.from_buffers(self.typ, n, [bitmap(valid), pa.py_buffer(off32), pa.py_buffer(data)])
        if pa.types.is_string(self.typ):
            try:
                arr.validate(full=True)
            except pa.ArrowInvalid:
                return self.reference(buf, raw, start, size, valid)
        return arr


def _ascii_text(col: ColumnDesc, typ: pa.DataType) -> bool:
    """A text column (str values) whose charset's codec decodes each ASCII byte to itself."""
    if not pa.types.is_string(typ) or col.json_text:
        return False
    coll = column_collation(col)
    if coll is None or coll.is_binary or coll.codec is None:
        return False
    try:
        return bytes(range(128)).decode(coll.codec) == _ASCII
    except (UnicodeDecodeError, LookupError):
        return False


_ASCII = "".join(map(chr, range(128)))
_TABLES: dict[tuple, Any] = {}


def _single_byte_table(col: ColumnDesc) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """For a one-byte charset (mbmaxlen 1: latin1, …; charsets.md): per byte value its
    character's UTF-8 length, bytes (padded to 3) and whether it decodes alone; None for a
    multi-byte charset. A text of such a charset decodes byte by byte."""
    coll = column_collation(col)
    if coll is None or coll.mbmaxlen != 1 or coll.codec is None:
        return None
    key = (coll.charset, coll.codec)
    got = _TABLES.get(key, _TABLES)
    if got is _TABLES:
        lens = np.zeros(256, dtype=np.int64)
        utf8 = np.zeros((256, 3), dtype=np.uint8)
        ok = np.zeros(256, dtype=bool)
        for b in range(256):
            try:
                ch = coll.decode(bytes((b,)))
            except (UnicodeDecodeError, ValueError):
                continue
            enc = ch.encode("utf-8")
            if len(ch) != 1 or len(enc) > 3:
                continue
            lens[b], ok[b] = len(enc), True
            utf8[b, :len(enc)] = np.frombuffer(enc, dtype=np.uint8)
        got = _TABLES[key] = (lens, utf8, ok)
    return got


# -- calendar helpers -------------------------------------------------------------------------

_DIM = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def _civil_days(year: np.ndarray, month: np.ndarray, day: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(days since 1970-01-01, is a date ``datetime.date`` takes: year 1..9999, a real day)."""
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    mon = np.clip(month, 0, 12)
    dim = _DIM[mon] + (leap & (mon == 2))
    ok = (year >= 1) & (year <= 9999) & (month >= 1) & (month <= 12) & (day >= 1) & (day <= dim)
    mo = np.where(ok, month, 1)
    y = np.where(ok, year, 2000) - (mo <= 2)
    era = y // 400
    yoe = y - era * 400
    mp = (mo + 9) % 12
    doy = (153 * mp + 2) // 5 + np.where(ok, day, 1) - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468, ok


def _fraction(m: np.ndarray, at: int, fsp: int) -> tuple[np.ndarray, np.ndarray]:
    """(microseconds, below one second) of the fraction bytes of ``fsp`` at ``at`` (values.md §4;
    values/temporal_layout.py FRACTIONS)."""
    n, mul, limit = FRACTIONS[fsp][:3]
    if n == 0:
        return np.zeros(len(m), dtype=np.int64), np.ones(len(m), dtype=bool)
    v = _be(m, at, n)
    return v * mul, v <= limit
