"""Is a consumer's value the truth's value? Value normalisation through column types, under
named consumer profiles (issue #31 §2; docs/testing.md "Consumer profiles").

The truth holds values in the canonical form of docs/output.md "Canonical row form" (ints,
floats, DECIMAL and temporal values as the server prints them, ``"0x…"`` hex for binary
strings, SET members in declaration order joined by ``,``, JSON as MySQL prints it). A CDC
consumer hands the same value in its own representation: bytes where we have text, a bit
string for BIT, epoch days for a DATE, a dict with bytes keys for JSON, … A **profile** is
a declared, explicit table of which of those representations (*forms*) are accepted for
whom: ``"exact"`` accepts only the canonical form and the Python values binlogwriter's own
reader decodes (what :func:`binlogwriter.values.families.family_of_type`'s
``truth_renderer`` takes); every other profile adds the forms its consumer is documented to
produce (see :data:`PROFILES`).

:func:`normalise` turns a value into canonical form; :func:`compare_value` says whether a
decoded value is the truth's value and, when not, why (:class:`ValueDiff`). Neither raises
on a value: what cannot be converted is a difference ``"cannot compare: <why>"``.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import json
import math
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation
from typing import Any

from binlogwriter.schema.model import Column

__all__ = ["Profile", "PROFILES", "FORMS", "ValueDiff", "Uncomparable", "get_profile", "column_of",
           "normalise", "compare_value", "short", "as_change", "diff_streams", "StreamDiff"]


# ------------------------------------------------------------------------------------
# profiles
# ------------------------------------------------------------------------------------

FORMS: dict[str, str] = {
    "bool_int": "an integer or BIT(1) column given as a bool",
    "int_text": "an integer (or BIT, SET mask) given as decimal text or Decimal",
    "int_float": "an integer given as a float (a JavaScript number): exact below 2^53, else by tolerance",
    "unsigned_as_signed": "an UNSIGNED integer or BIT(64) given as its two's-complement signed value",
    "year_1900": "YEAR 0000 given as 1900 (the decoder adds 1900 to the stored byte)",
    "bit_string": "BIT as text of '0'/'1', most significant first",
    "bit_bytes": "BIT as big-endian bytes",
    "bit_bytes_le": "BIT as little-endian bytes (Debezium's io.debezium.data.Bits)",
    "bit_bool": "BIT(1) as a bool",
    "decimal_text": "DECIMAL as text (any number of fraction digits)",
    "decimal_float": "DECIMAL as a float, compared by relative tolerance 1e-12",
    "float_int": "FLOAT/DOUBLE given as an int (a JSON number without a fraction)",
    "date_text": "DATE as text YYYY-MM-DD (ISO time part 00:00 allowed)",
    "date_epoch_days": "DATE as days since 1970-01-01",
    "date_as_datetime": "DATE as a datetime at midnight",
    "time_text": "TIME as text [-]H:MM:SS[.f]",
    "time_micros": "TIME as microseconds",
    "time_object": "TIME as datetime.time",
    "datetime_text": "DATETIME as text, ' ' or 'T' separated, optional 'Z'",
    "datetime_epoch": "DATETIME as epoch milliseconds (fsp <= 3) or microseconds (fsp > 3), wall clock as UTC",
    "datetime_aware": "DATETIME as an aware datetime (its wall clock in UTC)",
    "timestamp_naive_utc": "TIMESTAMP as a naive datetime holding UTC",
    "timestamp_text": "TIMESTAMP as text: server form in UTC or ISO-8601 with 'Z' / an offset",
    "timestamp_epoch": "TIMESTAMP as epoch seconds (int, float, Decimal or numeric text)",
    "timestamp_epoch_millis": "TIMESTAMP as epoch milliseconds",
    "zero_date_null": "a zero DATE/DATETIME/TIMESTAMP (or one with zero parts) given as None",
    "text_bytes": "a character column given as bytes in its charset",
    "text_surrogateescape": "a character column given as its bytes decoded as UTF-8 with surrogateescape",
    "binary_text": "a binary column given as str (its bytes as UTF-8 with surrogateescape)",
    "binary_hex": "a binary column as hex text without 0x",
    "binary_base64": "a binary column as base64 text",
    "enum_index": "ENUM as its 1-based index (0: the invalid-value '')",
    "set_text": "SET as comma-separated text, members in any order",
    "set_mask": "SET as its bitmask",
    "empty_set_null": "the empty SET given as None",
    "json_text": "JSON as text (str or bytes), compared as a document",
    "json_bytes": "JSON parsed with bytes keys / bytes strings, compared as a document",
    "json_parsed": "JSON parsed into dict/list/str/number/bool/None, compared as a document",
    "json_binary": "MySQL JSON as its binary form (bytes), decoded with binlogwriter's decoder",
    "geometry_no_srid": "GEOMETRY as WKB without the 4-byte SRID prefix (the SRID is not compared)",
    "geometry_struct": "GEOMETRY as {'wkb': bytes or base64, 'srid': int}",
}
"""Every form a profile may accept, with what it means (the table docs/testing.md lists)."""


@dataclass(frozen=True)
class Profile:
    """A consumer profile: ``forms`` (names from :data:`FORMS`) the consumer is documented to
    produce, on top of the canonical form and binlogwriter's own Python values."""

    name: str
    forms: frozenset[str]
    about: str

    def __post_init__(self) -> None:
        unknown = sorted(self.forms - FORMS.keys())
        if unknown:
            raise ValueError(f"profile {self.name!r}: unknown forms {unknown}")


def _p(name: str, about: str, *forms: str) -> Profile:
    return Profile(name, frozenset(forms), about)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    _p("exact", "canonical form, or the Python values binlogwriter's reader decodes; nothing else"),
    _p("python-mysql-replication",
       "pymysqlreplication 1.0: BIT as '0'/'1' text, naive UTC TIMESTAMP (zero -> 1970-01-01), zero "
       "DATE/DATETIME and the empty SET as None, YEAR 0000 as 1900, JSON with bytes keys and strings, "
       "SET as a set, an empty binary value as ''",
       "year_1900", "bit_string", "timestamp_naive_utc", "zero_date_null", "empty_set_null",
       "json_bytes", "json_parsed", "json_text", "binary_text"),
    _p("debezium",
       "Debezium MySQL connector (JSON converter): DATE as epoch days or ISO text, TIME as µs, DATETIME "
       "as epoch ms/µs or ISO text, TIMESTAMP as ISO-8601 with Z, DECIMAL as text or double, binary as "
       "base64/hex, BIT as bytes (little-endian) or bool, ENUM text, SET comma text, JSON text, "
       "GEOMETRY as {wkb, srid} (or its wkb alone), BIGINT UNSIGNED as long, a BOOLEAN (TINYINT(1)) "
       "column as a bool (a value other than 0/1 becomes true: still a difference), YEAR 0000 as 1900 "
       "(mysql-binlog-connector-java's deserializeYear, osheroff/mysql-binlog-connector-java#183)",
       "unsigned_as_signed", "int_text", "bool_int", "year_1900", "bit_bytes_le", "bit_bool",
       "decimal_text", "decimal_float",
       "float_int", "date_epoch_days", "date_text", "time_micros", "time_text", "datetime_epoch",
       "datetime_text", "timestamp_text", "zero_date_null", "binary_base64", "binary_hex", "set_text",
       "json_text", "geometry_struct", "geometry_no_srid"),
    _p("go-mysql",
       "go-mysql replication: DECIMAL as text or float64, temporal types as text, TEXT/BLOB as []byte, "
       "JSON as []byte text, ENUM/SET as index/mask unless names are known, BIT as int64, integers "
       "signed unless the metadata gives signedness",
       "unsigned_as_signed", "decimal_text", "decimal_float", "date_text", "time_text",
       "datetime_text", "timestamp_text", "text_bytes", "enum_index", "set_mask", "json_text",
       "json_parsed"),
    _p("zongji",
       "ZongJi (Node.js): JavaScript numbers (BIGINT beyond 2^53 as text), DECIMAL as text or "
       "number, BIT as a Buffer, temporal values as Date (aware, UTC) or date strings, YEAR 0000 as "
       "1900, ENUM text, SET comma text, JSON parsed or text",
       "int_float", "int_text", "year_1900", "bit_bytes", "decimal_text", "decimal_float", "float_int",
       "date_as_datetime", "date_text", "time_text", "datetime_aware", "datetime_text",
       "timestamp_text", "timestamp_epoch_millis", "zero_date_null", "set_text", "json_parsed",
       "json_text"),
    _p("mysql-event-stream",
       "mysql-event-stream 1.8 (CdcEngine): ENUM index, SET mask, BIGINT UNSIGNED/BIT/SET above "
       "INT64_MAX as decimal text, DECIMAL/DATE/TIME/DATETIME as server text, TIMESTAMP as epoch "
       "seconds text, character columns as UTF-8 with surrogateescape, MySQL JSON as binary bytes",
       "int_text", "enum_index", "set_mask", "decimal_text", "date_text", "time_text", "datetime_text",
       "timestamp_epoch", "text_surrogateescape", "binary_text", "json_binary", "json_text"),
)}
"""The named consumer profiles (docs/testing.md "Consumer profiles")."""


def get_profile(profile: str | Profile) -> Profile:
    """A profile by name (or itself); ValueError naming the known profiles."""
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except (KeyError, TypeError):
        raise ValueError(f"unknown consumer profile {profile!r}; known: {', '.join(PROFILES)}") from None


# ------------------------------------------------------------------------------------
# results
# ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Uncomparable:
    """What :func:`normalise` returns for a value it cannot bring to canonical form."""

    why: str

    def __repr__(self) -> str:
        return f"<cannot compare: {self.why}>"


@dataclass(frozen=True)
class ValueDiff:
    """Why a decoded value is not the truth's: ``kind`` is ``"column value"`` (both in
    canonical form, different), ``"type"`` (a representation the profile does not accept for
    the column) or ``"cannot compare"``; ``why`` one short sentence."""

    kind: str
    why: str = ""


class _Reject(Exception):
    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind, self.why = kind, why


def _type(v: Any, col: Column) -> _Reject:
    return _Reject("type", f"{type(v).__name__} is not a form of {col.type} under this profile")


def _cannot(why: str) -> _Reject:
    return _Reject("cannot compare", why)


@dataclass(frozen=True)
class _Approx:
    """A float standing for an exact value (DECIMAL or big integer given as a float)."""

    value: float


@dataclass(frozen=True)
class _JsonDoc:
    """A JSON document in comparable form (see :func:`_json_key`)."""

    doc: Any


@dataclass(frozen=True)
class _WkbOnly:
    """A geometry without its SRID: ``0x`` hex of the WKB."""

    hex: str


# ------------------------------------------------------------------------------------
# columns
# ------------------------------------------------------------------------------------

def column_of(column: Any) -> Column | None:
    """A :class:`~binlogwriter.schema.model.Column` from a Column, a column description
    mapping (manifest ``column_types``, the truth Parquet ``binlogwriter.columns`` metadata) or
    None (type unknown)."""
    if column is None or isinstance(column, Column):
        return column
    if isinstance(column, Mapping):
        from binlogwriter.schema.tables import column_from_info

        return column_from_info(column)
    raise TypeError(f"not a column description: {type(column).__name__}")


_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}
_TEXTY = ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT")
_BINARY = ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
_HEX = re.compile(r"0x[0-9a-f]*\Z")


_FAMILY_OF: dict[str, str] = {}


def _family(col: Column) -> str:
    got = _FAMILY_OF.get(col.type)
    if got is None:
        from binlogwriter.values.families import family_of_type

        fam = family_of_type(col.type)
        got = _FAMILY_OF[col.type] = fam.FAMILY if fam is not None else "?"
    return got


# ------------------------------------------------------------------------------------
# per family: value -> canonical candidates
# ------------------------------------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_from(v: Any, col: Column, F: frozenset[str], bits: int | None) -> list[Any]:
    """Integer candidates of ``v`` (shared by integer, YEAR, BIT, SET-mask forms)."""
    if isinstance(v, bool):
        if "bool_int" in F or ("bit_bool" in F and col.type == "BIT"):
            return [int(v)]
        raise _type(v, col)
    if _is_int(v):
        out = [v]
    elif isinstance(v, str | Decimal) and "int_text" in F:
        try:
            d = Decimal(v.strip()) if isinstance(v, str) else v
            if not d.is_finite() or d != d.to_integral_value():
                raise _cannot(f"{short(v)} is not a whole number")
            out = [int(d)]
        except InvalidOperation:
            raise _cannot(f"{short(v)} is not a number") from None
    elif isinstance(v, float) and "int_float" in F:
        if not math.isfinite(v):
            raise _cannot(f"{v!r} is not a whole number")
        out = [int(v)] if v.is_integer() and abs(v) < 2 ** 53 else [_Approx(v)]
    else:
        raise _type(v, col)
    if bits and "unsigned_as_signed" in F and _is_int(out[0]) and out[0] < 0:
        out.append(out[0] + (1 << bits))
    return out


def _n_integer(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if col.type == "YEAR":
        got = _int_from(v, col, F, None)
        return [0 if x == 1900 and "year_1900" in F else x for x in got]
    return _int_from(v, col, F, _INT_BITS.get(col.type) if col.unsigned else None)


def _n_bit(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if isinstance(v, bytes | bytearray | memoryview):
        b = bytes(v)
        out = [int.from_bytes(b, "big")] if "bit_bytes" in F else []
        if "bit_bytes_le" in F:
            out.append(int.from_bytes(b, "little"))
        if not out:
            raise _type(v, col)
        return out
    if isinstance(v, str) and "bit_string" in F and v and set(v) <= {"0", "1"}:
        return [int(v, 2)]
    return _int_from(v, col, F, 64)


_DEC_CTX = Context(prec=100)


def _n_decimal(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    scale = col.scale or 0
    q = Decimal(1).scaleb(-scale)

    def text(d: Decimal) -> str:
        if not d.is_finite():
            raise _cannot(f"{d} is not a DECIMAL value")
        d = d.quantize(q, context=_DEC_CTX)
        return format(abs(d) if d == 0 else d, "f")

    if isinstance(v, Decimal):
        return [text(v)]
    if isinstance(v, bytes | bytearray) and "decimal_text" in F:
        v = bytes(v).decode("ascii", "replace")
    if isinstance(v, str):
        if "decimal_text" not in F:
            return [v]  # the canonical form itself
        try:
            d = Decimal(v.strip())
        except InvalidOperation:
            raise _cannot(f"{short(v)} is not a decimal number") from None
        if d.as_tuple().exponent < -scale and d != d.quantize(q, context=_DEC_CTX):
            return [format(d, "f")]  # more fraction digits than the column has: shown as such
        return [text(d)]
    if isinstance(v, float | int) and not isinstance(v, bool) and "decimal_float" in F:
        return [_Approx(float(v))]
    raise _type(v, col)


def _n_floating(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if _is_int(v) and "float_int" in F:
        v = float(v)
    if not isinstance(v, float):
        raise _type(v, col)
    if col.type == "FLOAT" and math.isfinite(v):
        try:
            return [struct.unpack("<f", struct.pack("<f", v))[0]]
        except OverflowError:
            raise _cannot(f"{v!r} is outside FLOAT") from None
    return [v]


def _frac(us: int, fsp: int) -> str:
    """Fraction digits as the truth prints them; all six when ``us`` has digits beyond fsp
    (so a more precise value is never shown equal)."""
    if us % (10 ** (6 - fsp)):
        return "." + f"{us:06d}"
    return "" if not fsp else "." + f"{us:06d}"[:fsp]


def _us_of(frac: str | None) -> int:
    if not frac:
        return 0
    if len(frac) > 6 and set(frac[6:]) != {"0"}:
        raise _cannot(f"fraction .{frac} is finer than microseconds")
    return int(frac[:6].ljust(6, "0"))


def _dt_text(y: int, mo: int, d: int, h: int, mi: int, s: int, us: int, fsp: int) -> str:
    return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}" + _frac(us, fsp)


def _date_text(y: int, mo: int, d: int) -> str:
    return f"{y:04d}-{mo:02d}-{d:02d}"


_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?)?\Z")
_DT_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
                    r"(Z|[+-]\d{2}:?\d{2})?\Z")
_TIME_RE = re.compile(r"(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\Z")
_EPOCH = _dt.datetime(1970, 1, 1)


def _n_date(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlDate

    if isinstance(v, MysqlDate):
        return [str(v)]
    if isinstance(v, _dt.datetime):
        if "date_as_datetime" not in F:
            raise _type(v, col)
        if v.tzinfo is not None:
            v = v.astimezone(_dt.UTC)
        if (v.hour, v.minute, v.second, v.microsecond) != (0, 0, 0, 0):
            raise _cannot(f"datetime {v.isoformat()} is not at midnight")
        return [_date_text(v.year, v.month, v.day)]
    if isinstance(v, _dt.date):
        return [_date_text(v.year, v.month, v.day)]
    if isinstance(v, str):
        if "date_text" not in F:
            return [v]
        m = _DATE_RE.match(v.strip())
        if not m:
            raise _cannot(f"{short(v)} is not a date")
        return [_date_text(*map(int, m.groups()))]
    if _is_int(v) and "date_epoch_days" in F:
        try:
            d = _dt.date(1970, 1, 1) + _dt.timedelta(days=v)
        except OverflowError:
            raise _cannot(f"{v} days from 1970-01-01 is outside the calendar") from None
        return [_date_text(d.year, d.month, d.day)]
    raise _type(v, col)


def _n_time(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlTime

    fsp = col.fsp or 0
    if isinstance(v, MysqlTime):
        v = v.to_timedelta()
    if isinstance(v, _dt.time) and "time_object" in F:
        v = _dt.timedelta(hours=v.hour, minutes=v.minute, seconds=v.second, microseconds=v.microsecond)
    if _is_int(v) and "time_micros" in F:
        v = _dt.timedelta(microseconds=v)
    if isinstance(v, _dt.timedelta):
        us = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
    elif isinstance(v, str):
        if "time_text" not in F:
            return [v]
        m = _TIME_RE.match(v.strip())
        if not m:
            raise _cannot(f"{short(v)} is not a time")
        sign, h, mi, s, frac = m.groups()
        us = ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1_000_000 + _us_of(frac)
        us = -us if sign else us
    else:
        raise _type(v, col)
    sign = "-" if us < 0 else ""
    secs, frac_us = divmod(abs(us), 1_000_000)
    return [f"{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}" + _frac(frac_us, fsp)]


def _parse_dt_text(v: str) -> tuple[tuple[int, ...], str | None]:
    m = _DT_RE.match(v.strip())
    if not m:
        raise _cannot(f"{short(v)} is not a date and time")
    y, mo, d, h, mi, s, frac, zone = m.groups()
    return (int(y), int(mo), int(d), int(h), int(mi), int(s), _us_of(frac)), zone


def _n_datetime(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlDateTime

    fsp = col.fsp or 0
    if isinstance(v, MysqlDateTime):
        return [_dt_text(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, fsp)]
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None:
            if "datetime_aware" not in F:
                raise _Reject("type", "aware datetime for DATETIME (a wall clock without a zone)")
            v = v.astimezone(_dt.UTC)
        return [_dt_text(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, fsp)]
    if isinstance(v, str):
        if "datetime_text" not in F:
            return [v]
        parts, zone = _parse_dt_text(v)
        if zone not in (None, "Z", "+00:00", "+0000", "-00:00"):
            raise _cannot(f"{short(v)} has a zone offset; DATETIME has none")
        return [_dt_text(*parts, fsp)]
    if _is_int(v) and "datetime_epoch" in F:
        us = v * 1000 if fsp <= 3 else v
        try:
            d = _EPOCH + _dt.timedelta(microseconds=us)
        except OverflowError:
            raise _cannot(f"{v} from the epoch is outside the calendar") from None
        return [_dt_text(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, fsp)]
    raise _type(v, col)


def _ts_zero(fsp: int) -> str:
    return "0000-00-00 00:00:00" + ("." + "0" * fsp if fsp else "")


def _ts_from_us(us: int, fsp: int) -> str:
    """Epoch microseconds -> the truth's UTC text; epoch 0 is the zero TIMESTAMP (MySQL's
    TIMESTAMP range starts at 1970-01-01 00:00:01 UTC, 0 is reserved for the zero value)."""
    if us == 0:
        return _ts_zero(fsp)
    try:
        d = _EPOCH + _dt.timedelta(microseconds=us)
    except OverflowError:
        raise _cannot(f"{us} µs from the epoch is outside the calendar") from None
    return _dt_text(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, fsp)


def _n_timestamp(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import MysqlDateTime

    fsp = col.fsp or 0
    if isinstance(v, MysqlDateTime):
        return [_dt_text(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, fsp)]
    if isinstance(v, _dt.datetime):
        if v.tzinfo is None and "timestamp_naive_utc" not in F:
            raise _Reject("type", "naive datetime for TIMESTAMP (an instant: give it aware, in UTC)")
        v = v.replace(tzinfo=_dt.UTC) if v.tzinfo is None else v.astimezone(_dt.UTC)
        delta = v - _EPOCH.replace(tzinfo=_dt.UTC)
        return [_ts_from_us((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds, fsp)]
    if isinstance(v, str):
        s = v.strip()
        if "timestamp_epoch" in F and re.fullmatch(r"-?\d+(\.\d+)?", s):
            return _n_timestamp(Decimal(s), col, F, flavor)
        if "timestamp_text" not in F:
            return [v]
        parts, zone = _parse_dt_text(s)
        if parts[:3] == (0, 0, 0) or 0 in parts[1:3]:
            return [_dt_text(*parts, fsp)]  # the zero timestamp as text
        try:
            d = _dt.datetime(*parts[:6], parts[6], tzinfo=_dt.UTC)
        except ValueError as e:
            raise _cannot(f"{short(v)}: {e}") from None
        if zone not in (None, "Z"):
            sign = -1 if zone[0] == "-" else 1
            hh, mm = int(zone[1:3]), int(zone[-2:])
            d -= sign * _dt.timedelta(hours=hh, minutes=mm)
        return _n_timestamp(d, col, F | {"timestamp_naive_utc"}, flavor)
    if isinstance(v, int | float | Decimal) and not isinstance(v, bool):
        out = []
        if "timestamp_epoch" in F:
            if isinstance(v, float) and not math.isfinite(v):
                raise _cannot(f"{v!r} is not an instant")
            out.append(_ts_from_us(int((Decimal(v) * 1_000_000).to_integral_value()), fsp))
        if "timestamp_epoch_millis" in F and _is_int(v):
            out.append(_ts_from_us(v * 1000, fsp))
        if out:
            return out
    raise _type(v, col)


def _charset_coll(col: Column, flavor: str) -> Any:
    from binlogwriter.charsets import default_collation

    try:
        return default_collation(col.charset or "utf8mb4", flavor)
    except Exception:  # noqa: BLE001 - unknown charset: reported where it matters
        return None


def _decode_text(b: bytes, col: Column, flavor: str) -> str:
    coll = _charset_coll(col, flavor)
    if coll is None or coll.codec is None:
        raise _cannot(f"no Python codec for charset {col.charset}")
    try:
        return coll.decode(b)
    except UnicodeDecodeError as e:
        raise _cannot(f"bytes not valid {col.charset}: {e.reason} at {e.start}") from None


def _is_binary(col: Column) -> bool:
    return col.type in _BINARY or col.type not in _TEXTY and col.type.endswith("BLOB")


def _n_string(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if _is_binary(col):
        return _n_binary(v, col, F, flavor)
    strip = (lambda s: s.rstrip(" ")) if col.type == "CHAR" else (lambda s: s)
    if isinstance(v, str):
        out = [strip(v)]
        if "text_surrogateescape" in F:
            try:
                out.append(strip(_decode_text(v.encode("utf-8", "surrogateescape"), col, flavor)))
            except (_Reject, UnicodeEncodeError):
                pass
        return out
    if isinstance(v, bytes | bytearray | memoryview) and ("text_bytes" in F or "text_surrogateescape" in F):
        return [strip(_decode_text(bytes(v), col, flavor))]
    raise _type(v, col)


def _binary_hex(b: bytes, col: Column) -> str:
    if col.type == "BINARY":
        b = b.ljust(col.length or 1, b"\0")
    return "0x" + b.hex()


def _n_binary(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if isinstance(v, bytes | bytearray | memoryview):
        return [_binary_hex(bytes(v), col)]
    if isinstance(v, str):
        out = [v] if _HEX.match(v) else []  # the canonical form itself
        if "binary_text" in F:
            try:
                out.append(_binary_hex(v.encode("utf-8", "surrogateescape"), col))
            except UnicodeEncodeError:
                pass
        if "binary_hex" in F and re.fullmatch(r"(?:0x)?[0-9a-fA-F]*", v) and len(v) % 2 == 0:
            out.append(_binary_hex(bytes.fromhex(v[2:] if v.startswith("0x") else v), col))
        if "binary_base64" in F:
            try:
                out.append(_binary_hex(base64.b64decode(v, validate=True), col))
            except (binascii.Error, ValueError):
                pass
        if out:
            return out
        raise _Reject("type", f"str for {col.type} (binary) that no accepted form reads")
    raise _type(v, col)


def _n_enum_set(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    members = col.members
    if isinstance(v, bytes | bytearray) and "text_bytes" in F:
        v = _decode_text(bytes(v), col, flavor)
    if col.type == "ENUM":
        if isinstance(v, str):
            return [v]
        if _is_int(v) and "enum_index" in F:
            if v == 0:
                return [""]
            if 1 <= v <= len(members):
                return [members[v - 1]]
            raise _cannot(f"index {v} of an ENUM with {len(members)} members")
        raise _type(v, col)
    order = {m: i for i, m in enumerate(members)}

    def joined(names: Any) -> str:
        names = list(names)
        bad = [n for n in names if not isinstance(n, str) or n not in order]
        if bad:
            raise _cannot(f"{short(bad[0])} is not a member of the SET")
        return ",".join(sorted(set(names), key=order.__getitem__))

    if isinstance(v, set | frozenset | list | tuple):
        return [joined(v)]
    if isinstance(v, str):
        out = [v]
        if "set_text" in F:
            out.append(joined(v.split(",")) if v else "")
        if "set_mask" in F and "int_text" in F and v.isdigit():
            out += _n_enum_set(int(v), col, F, flavor)
        return out
    if _is_int(v) and "set_mask" in F:
        if v < 0 or v >> len(members):
            raise _cannot(f"mask {v} has bits beyond the SET's {len(members)} members")
        return [",".join(m for i, m in enumerate(members) if v >> i & 1)]
    raise _type(v, col)


def _json_key(v: Any, depth: int = 0) -> Any:
    """A JSON value in comparable form: bytes -> str (UTF-8), numbers -> Decimal, tuples ->
    lists, dict keys -> str; anything else -> its text (datetime, …) for printing."""
    if depth > 200:
        raise _cannot("JSON nested deeper than 200")
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, bytes | bytearray | memoryview):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise _cannot("JSON bytes not valid UTF-8") from None
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return Decimal(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise _cannot(f"{v!r} in JSON")
        return Decimal(repr(v))
    if isinstance(v, Decimal):
        return v
    if isinstance(v, Mapping):
        return {str(_json_key(k, depth + 1)): _json_key(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_json_key(x, depth + 1) for x in v]
    return str(v)


def _json_loads(text: str | bytes) -> Any:
    try:
        return json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except (ValueError, RecursionError) as e:
        raise _cannot(f"not JSON text: {str(e)[:60]}") from None


def _n_json(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values.json_text import mysql_json_text

    out: list[Any] = []
    if isinstance(v, str):
        out.append(v)  # canonical text (MariaDB: the stored text)
        if flavor.startswith("mysql"):
            out.append(mysql_json_text(v))  # a JSON string document, as binlogwriter's reader decodes it
        if "json_text" in F:
            try:
                out.append(_JsonDoc(_json_key(_json_loads(v))))
            except _Reject:
                pass
        if "json_parsed" in F:
            out.append(_JsonDoc(v))  # a parsed JSON string scalar
        return out
    if isinstance(v, bytes | bytearray | memoryview):
        b = bytes(v)
        errors: list[_Reject] = []
        if "json_binary" in F and flavor.startswith("mysql"):
            from binlogwriter.values import decode_json

            try:
                out.append(_JsonDoc(_json_key(decode_json(b))))
            except _Reject as r:
                errors.append(r)
            except Exception as e:  # noqa: BLE001 - a consumer's bytes: any decoder failure is a report
                errors.append(_cannot(f"not MySQL binary JSON: {str(e)[:60]}"))
        if "json_text" in F or "json_bytes" in F:
            try:
                out.append(_JsonDoc(_json_key(_json_loads(b))))
            except _Reject as r:
                errors.append(r)
        if out:
            return out
        raise errors[0] if errors else _type(v, col)
    if "json_bytes" in F or "json_parsed" in F:
        return [_JsonDoc(_json_key(v))]
    if isinstance(v, dict | list | int | float | bool) or v is None:
        try:
            return [mysql_json_text(v)]  # binlogwriter's own values (the exact profile)
        except (TypeError, ValueError, AttributeError, RecursionError) as e:
            raise _cannot(f"JSON value not printable as MySQL JSON: {type(e).__name__}: {str(e)[:60]}") from None
    raise _type(v, col)


def _n_geometry(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import Geometry

    if isinstance(v, Geometry):
        return ["0x" + v.to_bytes().hex()]
    if isinstance(v, Mapping) and "geometry_struct" in F and "wkb" in v:
        wkb = v["wkb"]
        if isinstance(wkb, str):
            try:
                wkb = base64.b64decode(wkb, validate=True)
            except (binascii.Error, ValueError):
                raise _cannot("geometry wkb is not base64") from None
        srid = v.get("srid") or 0
        if not isinstance(wkb, bytes | bytearray) or not _is_int(srid):
            raise _cannot("geometry struct without bytes wkb / int srid")
        return ["0x" + (srid & 0xFFFFFFFF).to_bytes(4, "little").hex() + bytes(wkb).hex()]
    if isinstance(v, bytes | bytearray | memoryview):
        b = bytes(v)
        out: list[Any] = ["0x" + b.hex()]
        if "geometry_no_srid" in F:
            out.append(_WkbOnly("0x" + b.hex()))
        return out
    if isinstance(v, str) and _HEX.match(v):
        return [v]
    raise _type(v, col)


def _n_raw_bytes(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if isinstance(v, bytes | bytearray | memoryview):
        return ["0x" + bytes(v).hex()]
    if isinstance(v, str) and _HEX.match(v):
        return [v]
    raise _type(v, col)


_BY_FAMILY: dict[str, Callable[[Any, Column, frozenset[str], str], list[Any]]] = {
    "integer": _n_integer, "year": _n_integer, "bit": _n_bit, "decimal": _n_decimal,
    "floating": _n_floating, "date": _n_date, "time": _n_time, "datetime": _n_datetime,
    "timestamp": _n_timestamp, "char": _n_string, "blob": _n_string, "enum_set": _n_enum_set,
    "json": _n_json, "geometry": _n_geometry, "inet_uuid": _n_raw_bytes,
}


def _candidates(value: Any, col: Column | None, profile: Profile, flavor: str) -> list[Any]:
    """Every canonical form ``value`` may stand for under ``profile`` (first: the preferred);
    raises _Reject. Unknown column type: the value itself."""
    if value is None or col is None:
        return [value]
    fn = _BY_FAMILY.get(_family(col))
    if fn is None:
        return [value]
    try:
        got = fn(value, col, profile.forms, flavor)
    except _Reject:
        raise
    except Exception as e:  # noqa: BLE001 - never raise on a consumer's value: report it
        raise _cannot(f"{type(e).__name__}: {str(e)[:80]}") from None
    if not got:
        raise _type(value, col)
    return got


def normalise(value: Any, column: Any, profile: str | Profile = "exact", *, flavor: str = "mysql80") -> Any:
    """``value`` (a consumer's representation of a value of ``column``) in canonical form
    (docs/output.md), reading it through the forms ``profile`` accepts; an
    :class:`Uncomparable` (never an exception) when no accepted form reads it. ``column``: a
    Column, a column description mapping, or None (type unknown: the value is returned as
    is). A value standing only approximately for the canonical one (DECIMAL as a float) is
    returned as that float; a JSON document read from a non-canonical form as MySQL would
    print it."""
    from binlogwriter.values.json_text import mysql_json_text

    try:
        col = column_of(column)
        first = _candidates(value, col, get_profile(profile), flavor)[0]
    except _Reject as r:
        return Uncomparable(r.why)
    except (TypeError, ValueError) as e:
        return Uncomparable(str(e))
    if isinstance(first, _Approx):
        return first.value
    if isinstance(first, _WkbOnly):
        return first.hex
    if isinstance(first, _JsonDoc):
        try:
            return mysql_json_text(_plain(first.doc))
        except (TypeError, ValueError, RecursionError) as e:
            return Uncomparable(f"JSON document not printable: {e}")
    return first


def _plain(doc: Any) -> Any:
    if isinstance(doc, Decimal):
        return int(doc) if doc == doc.to_integral_value() and "." not in str(doc) else float(doc)
    if isinstance(doc, dict):
        return {k: _plain(x) for k, x in doc.items()}
    if isinstance(doc, list):
        return [_plain(x) for x in doc]
    return doc


# ------------------------------------------------------------------------------------
# comparison
# ------------------------------------------------------------------------------------

def _is_zero_temporal(t: Any) -> bool:
    """A canonical DATE/DATETIME/TIMESTAMP text that is no calendar value: the zero date or
    one with a zero year, month or day (docs/output.md)."""
    if not isinstance(t, str) or len(t) < 10:
        return False
    y, mo, d = t[0:4], t[5:7], t[8:10]
    return y == "0000" or mo == "00" or d == "00"


def _same(a: Any, b: Any) -> bool:
    """Canonical values equal: types kept apart for str/bytes/bool, NaN equal to NaN."""
    if isinstance(a, str | bytes) or isinstance(b, str | bytes):
        return type(a) is type(b) and a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a foreign object's __eq__
        return False


def _matches(cand: Any, truth: Any, col: Column | None) -> bool:
    if isinstance(cand, _Approx):
        try:
            t = float(Decimal(truth)) if isinstance(truth, str) else float(truth)
        except (InvalidOperation, TypeError, ValueError):
            return False
        return math.isclose(cand.value, t, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(cand, _JsonDoc):
        if not isinstance(truth, str):
            return False
        try:
            return bool(_json_key(_json_loads(truth)) == cand.doc)
        except _Reject:
            return False
    if isinstance(cand, _WkbOnly):
        return isinstance(truth, str) and truth.startswith("0x") and truth[10:] == cand.hex[2:]
    return _same(cand, truth)


_PLAIN = (int, str, float)


def compare_value(decoded: Any, truth: Any, column: Any = None, profile: str | Profile = "exact", *,
                  flavor: str = "mysql80") -> ValueDiff | None:
    """None when ``decoded`` (a consumer's value) is ``truth`` (canonical form, or a value
    binlogwriter's reader decodes) for ``column`` under ``profile``; else a
    :class:`ValueDiff`. Never raises on the values (a bad ``profile`` name is a ValueError)."""
    prof = get_profile(profile)
    tt = type(truth)
    if tt is type(decoded) and tt in _PLAIN and decoded == truth:
        return None  # the same plain value: every profile reads it as the exact profile does
    try:
        col = column_of(column)
    except (TypeError, ValueError) as e:
        return ValueDiff("cannot compare", str(e))
    exact = PROFILES["exact"]
    try:
        want = _candidates(truth, col, exact, flavor)[0]
    except _Reject as r:
        return ValueDiff("cannot compare", f"truth value: {r.why}")
    if decoded is None or want is None:
        if decoded is None and want is None:
            return None
        fam = _family(col) if col is not None else "?"
        if decoded is None and "zero_date_null" in prof.forms and fam in ("date", "datetime", "timestamp") \
                and _is_zero_temporal(want):
            return None
        if decoded is None and "empty_set_null" in prof.forms and col is not None and col.type == "SET" \
                and want == "":
            return None
        return ValueDiff("column value", "NULL on one side only")
    try:
        cands = _candidates(decoded, col, prof, flavor)
    except _Reject as r:
        return ValueDiff(r.kind, r.why)
    if any(_matches(c, want, col) for c in cands):
        return None
    return ValueDiff("column value", "")


def short(v: Any, width: int = 80) -> str:
    """``repr(v)`` cut to about ``width`` characters (never the whole of a 500 KB value):
    the head, ``…``, the tail and the full length."""
    try:
        r = repr(v) if not isinstance(v, bytes | bytearray | str) or len(v) <= 4 * width \
            else repr(v[:width]) + repr(v[-width:])
    except Exception as e:  # noqa: BLE001 - a foreign object's __repr__
        r = f"<{type(v).__name__}: repr failed: {type(e).__name__}>"
    if len(r) <= width:
        return r
    n = len(v) if isinstance(v, bytes | bytearray | str) else len(r)
    keep = max(8, (width - 20) // 2)
    return f"{r[:keep]}…{r[-keep:]} ({n} {'bytes' if isinstance(v, bytes | bytearray) else 'chars'})"


# ------------------------------------------------------------------------------------
# change streams (the reports of binlogwriter.testing.assert_matches_truth /
# assert_changes_equal)
# ------------------------------------------------------------------------------------

_FIELDS = ("seq", "op", "database", "table", "gtid", "xid", "file", "position", "row",
           "transaction_position", "timestamp", "before", "after", "before_row", "after_row")
_MISSING = object()
_LINE_MAX = 400


def as_change(change: Any) -> dict[str, Any]:
    """One change in the change model (issue #31 §1) from any of the shapes consumers hand:
    a mapping, an object with attributes (:class:`binlogwriter.read.changes.Change`,
    :class:`binlogwriter.testing.DecodedChange`) or a tuple ``(op, table, before, after)``.
    ``table`` becomes ``db.name`` (from ``database`` + ``table`` when both are given);
    ``file`` its basename; images stay dicts or sequences (positional) as given. A field
    the change does not have is left out."""
    import os

    if isinstance(change, Mapping):
        d = dict(change)
    elif isinstance(change, tuple) and not hasattr(change, "_fields") and len(change) == 4:
        d = dict(zip(("op", "table", "before", "after"), change, strict=True))
    else:
        d = {}
        for k in _FIELDS:
            v = getattr(change, k, _MISSING)
            if v is not _MISSING:
                d[k] = v
        if not d:
            d = {"op": None, "table": f"<{type(change).__name__}: not a change>"}
    db = d.pop("database", None)
    if db is not None and d.get("table") is not None:
        d["table"] = f"{db}.{d['table']}"
    if isinstance(d.get("file"), str | os.PathLike):
        d["file"] = os.path.basename(os.fspath(d["file"]))
    return d


def _named(img: Any, names: list[str] | None) -> tuple[dict[str, Any] | None, str | None]:
    """An image as {name: value} (ABSENT values left out), or (None, why) when it cannot be."""
    from binlogwriter.values import ABSENT

    if img is None:
        return None, None
    if isinstance(img, Mapping):
        return {str(k): v for k, v in img.items() if v is not ABSENT}, None
    if isinstance(img, str | bytes) or not hasattr(img, "__len__"):
        return None, f"image is a {type(img).__name__}, not a mapping or a sequence"
    vals = list(img)
    if names is None:
        names = [f"#{i}" for i in range(len(vals))]
    elif len(vals) != len(names):
        return None, f"{len(vals)} positional values for the {len(names)} columns {short(names, 60)}"
    return {n: v for n, v in zip(names, vals, strict=True) if v is not ABSENT}, None


class StreamDiff:
    """Differences of a decoded change stream from the truth, counted by kind, the first
    ``max_differences`` kept as one line each: :meth:`report` is bounded in size."""

    def __init__(self, max_differences: int = 20) -> None:
        self.max = max_differences
        self.counts: dict[str, int] = {}
        self.lines: list[str] = []

    def add(self, kind: str, where: str, text: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if len(self.lines) < self.max:
            line = f"{where}: {text}" if text else where
            self.lines.append(line if len(line) <= _LINE_MAX else line[:_LINE_MAX - 1] + "…")

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def report(self, title: str) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        out = [f"{title}: {self.total} difference{'s' * (self.total != 1)}", f"  by kind: {kinds}"]
        out += ["  " + ln for ln in self.lines]
        if self.total > len(self.lines):
            out.append(f"  … {self.total - len(self.lines)} more not shown (max_differences={self.max})")
        return "\n".join(out)


def _val(v: Any) -> str:
    return f"{short(v)} [{type(v).__name__}]"


def _where(k: int | None, c: Mapping[str, Any], label: str = "change") -> str:
    parts = [f"{label} #{k}" if k is not None else label]
    if c.get("seq") is not None:
        parts.append(f"seq {c['seq']}")
    parts.append(str(c.get("table")))
    if c.get("row") is not None:
        parts.append(f"row {c['row']}")
    return " ".join(parts)


def _summary(c: Mapping[str, Any]) -> str:
    side = "after" if c.get("after") is not None else "before"
    return f"{c.get('op')} {side} {short(c.get(side), 100)}"


def _compare_change(out: StreamDiff, k: int, got: Mapping[str, Any], want: Mapping[str, Any],
                    fields: tuple[str, ...], columns: Mapping[str, Any] | None,
                    names: Mapping[str, list[str]] | None, prof: Profile, flavor: str,
                    tl: str = "truth") -> None:
    where = _where(k, want)
    for f in fields:
        if f in ("before", "after"):
            continue
        gv, wv = got.get(f, _MISSING), want.get(f, _MISSING)
        if wv is _MISSING and gv is _MISSING:
            continue
        if gv is _MISSING:
            out.add("field", where, f"field {f}: not in the decoded change, {tl} {_val(wv)}")
        elif not _same(gv, wv):
            kind = f if f in ("op", "table") else "field"
            out.add(kind, where, f"field {f}: decoded {_val(gv)}, {tl} {_val(wv)}")
            if f in ("op", "table"):
                return  # the images of another op/table say nothing more
    table = want.get("table")
    cols = (columns or {}).get(table) or {}
    for side in ("before", "after"):
        if side not in fields:
            continue
        row_names = (names or {}).get(table)
        full = want.get(side + "_row")
        if isinstance(full, Mapping):
            row_names = [str(n) for n in full]
        w, why_w = _named(want.get(side), row_names)
        gimg = got.get(side)
        if row_names is None and w is not None and not isinstance(gimg, Mapping | None) \
                and len(w) == len(gimg):
            row_names = list(w)  # positional decoded, named truth of the same width
        g, why_g = _named(gimg, row_names)
        if why_w or why_g:
            out.add("cannot compare", where, f"{side} image: {why_g or tl + ' ' + why_w}")
            continue
        if g is None or w is None:
            if g is not w:
                out.add("image", where, f"{side} image: decoded {short(g, 60)}, {tl} {short(w, 60)}")
            continue
        for name in list(w) + [n for n in g if n not in w]:
            cw = f"{where} {side} column {name}"
            if name not in g:
                out.add("absent column", cw, f"not in the decoded image, {tl} {_val(w[name])}")
            elif name not in w:
                out.add("extra column", cw, f"decoded {_val(g[name])}, not in the {tl}'s image")
            else:
                d = compare_value(g[name], w[name], cols.get(name), prof, flavor=flavor)
                if d is not None:
                    text = f"decoded {_val(g[name])}, {tl} {_val(w[name])}"
                    if d.kind != "column value" and d.why:
                        text += f" ({d.kind}: {d.why})"
                    out.add(d.kind, cw, text)


def _align_key(c: Mapping[str, Any], cols: Mapping[str, Any], names: list[str] | None, prof: Profile,
               flavor: str) -> Any:
    """op, table and the first 16 image values in canonical form (for aligning streams)."""
    def img(v: Any) -> Any:
        named, _why = _named(v, names)
        if named is None:
            return short(v, 40)
        return tuple((k, short(normalise(x, cols.get(k), prof, flavor=flavor), 40))
                     for k, x in list(named.items())[:16])
    return (c.get("op"), c.get("table"), img(c.get("before")), img(c.get("after")))


def _pairs(got: list[dict[str, Any]], want: list[dict[str, Any]], columns: Mapping[str, Any] | None,
           names: Mapping[str, list[str]] | None, prof: Profile, flavor: str
           ) -> list[tuple[int | None, int | None]]:
    """(decoded index, truth index) pairs, None on the side a change is missing from: by
    (seq, row) when every decoded change has both, else by order (with a sequence alignment
    on op, table and image when the counts differ, up to 50,000 changes a side)."""
    import difflib

    if got and all(g.get("seq") is not None and g.get("row") is not None for g in got):
        index: dict[Any, int] = {}
        for i, w in enumerate(want):
            index.setdefault((w.get("seq"), w.get("row")), i)
        used: set[int] = set()
        pairs: list[tuple[int | None, int | None]] = []
        for j, g in enumerate(got):
            i = index.get((g["seq"], g["row"]))
            if i is None or i in used:
                pairs.append((j, None))
            else:
                used.add(i)
                pairs.append((j, i))
        pairs += [(None, i) for i in range(len(want)) if i not in used]
        return pairs
    if len(got) == len(want) or max(len(got), len(want)) > 50_000:
        n = min(len(got), len(want))
        return ([(i, i) for i in range(n)] + [(i, None) for i in range(n, len(got))]
                + [(None, i) for i in range(n, len(want))])
    width: dict[str, list[str]] = dict(names or {})
    for w in want:
        full = w.get("after_row") or w.get("before_row")
        if isinstance(full, Mapping) and w.get("table") not in width:
            width[w["table"]] = [str(n) for n in full]
    exact = PROFILES["exact"]

    def keys(cs: list[dict[str, Any]], p: Profile) -> list[Any]:
        return [_align_key(c, (columns or {}).get(c.get("table")) or {}, width.get(c.get("table")), p, flavor)
                for c in cs]

    sm = difflib.SequenceMatcher(None, keys(got, prof), keys(want, exact), autojunk=False)
    pairs = []
    for tag, a0, a1, b0, b1 in sm.get_opcodes():
        if tag == "equal" or tag == "replace":
            n = min(a1 - a0, b1 - b0)
            pairs += [(a0 + i, b0 + i) for i in range(n)]
            pairs += [(a0 + i, None) for i in range(n, a1 - a0)]
            pairs += [(None, b0 + i) for i in range(n, b1 - b0)]
        elif tag == "delete":
            pairs += [(a0 + i, None) for i in range(a1 - a0)]
        else:
            pairs += [(None, b0 + i) for i in range(b1 - b0)]
    return pairs


def diff_streams(decoded: Any, truth: Any, *, profile: str | Profile = "exact", flavor: str = "mysql80",
                 fields: tuple[str, ...] = ("op", "table", "before", "after"),
                 columns: Mapping[str, Mapping[str, Any]] | None = None,
                 names: Mapping[str, list[str]] | None = None, only_tables: Any = None,
                 max_differences: int = 20, truth_label: str = "truth") -> tuple[StreamDiff, int]:
    """Compare two change streams (any shapes :func:`as_change` reads) -> the differences
    and the number of truth changes. ``columns``: ``db.table`` -> {column name: Column or
    description} for typed comparison; ``names``: ``db.table`` -> column names in order, for
    positional images; ``only_tables``: only these tables (``db.table`` names) are compared.
    ``truth_label`` names the second stream in the lines. Never raises on the changes'
    contents."""
    prof = get_profile(profile)
    typed: dict[str, dict[str, Any]] = {}
    for table, cols in (columns or {}).items():
        typed[table] = {}
        for name, info in cols.items():
            try:
                typed[table][name] = column_of(info)
            except (TypeError, ValueError):
                typed[table][name] = info  # reported by compare_value, value by value
    columns = typed
    got = [as_change(c) for c in decoded]
    want = [as_change(c) for c in truth]
    if only_tables is not None:
        keep = {str(t) for t in only_tables}
        got = [g for g in got if g.get("table") in keep]
        want = [w for w in want if w.get("table") in keep]
    out = StreamDiff(max_differences)
    for j, i in _pairs(got, want, columns, names, prof, flavor):
        if i is None:
            assert j is not None
            out.add("extra change", _where(j, got[j], "decoded change"), f"not in the {truth_label}: {_summary(got[j])}")
        elif j is None:
            out.add("missing change", _where(i, want[i]), f"not decoded: {_summary(want[i])}")
        else:
            try:
                _compare_change(out, i, got[j], want[i], fields, columns, names, prof, flavor, truth_label)
            except Exception as e:  # noqa: BLE001 - a comparison reports, it never crashes
                out.add("cannot compare", _where(i, want[i]), f"{type(e).__name__}: {short(str(e), 120)}")
    return out, len(want)
