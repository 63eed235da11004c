"""Schema <-> TABLE_MAP column metadata and optional metadata (NO_LOG / MINIMAL / FULL).

:func:`build_table_map` chooses the fields exactly as each server does
(``docs/format.md`` §12, §12.1; ``mariadb.md`` "TABLE_MAP optional
metadata") and returns the object :func:`~binlogwriter.layouts.table_map.table_map_layout`
builds. :class:`TableMap` is the decoded view of a parsed TABLE_MAP: the raw fields
(TLVs kept raw, in order, so re-encoding is byte-exact) plus derived per-column views
(signedness, charsets, names, ENUM/SET strings, geometry types, primary key, visibility)
and :class:`~binlogwriter.values.base.ColumnDesc` per column.

Each optional-metadata TLV value type (1–13) has one construct declaration in
:data:`TLV_LAYOUTS`, used both to build (:func:`build_table_map`) and to parse
(:class:`TableMap`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import construct as cs
from construct import this

from binlogwriter.charsets import decode_in_charset, find_collation
from binlogwriter.errors import DecodeError, EncodeError, SchemaError
from binlogwriter.format import FLAVORS
from binlogwriter.layouts.primitives import BitmapValue, MsbBitmap, PackedBytes, PackedInt
from binlogwriter.layouts.table_map import table_map_layout
from binlogwriter.schema import Table
from binlogwriter.values.base import ColumnDesc

__all__ = [
    "SIGNEDNESS", "DEFAULT_CHARSET", "COLUMN_CHARSET", "COLUMN_NAME", "SET_STR_VALUE",
    "ENUM_STR_VALUE", "GEOMETRY_TYPE", "SIMPLE_PRIMARY_KEY", "PRIMARY_KEY_WITH_PREFIX",
    "ENUM_AND_SET_DEFAULT_CHARSET", "ENUM_AND_SET_COLUMN_CHARSET", "COLUMN_VISIBILITY",
    "VECTOR_DIMENSIONALITY", "TLV_NAMES", "TLV_LAYOUTS", "ROW_METADATA",
    "build_table_map", "encode_table_map", "TableMap",
    "is_numeric_type", "is_character_type", "real_type", "META_SIZE",
]

# Optional metadata field types (format.md §12.1)
SIGNEDNESS = 1
DEFAULT_CHARSET = 2
COLUMN_CHARSET = 3
COLUMN_NAME = 4
SET_STR_VALUE = 5
ENUM_STR_VALUE = 6
GEOMETRY_TYPE = 7
SIMPLE_PRIMARY_KEY = 8
PRIMARY_KEY_WITH_PREFIX = 9
ENUM_AND_SET_DEFAULT_CHARSET = 10
ENUM_AND_SET_COLUMN_CHARSET = 11
COLUMN_VISIBILITY = 12
VECTOR_DIMENSIONALITY = 13

TLV_NAMES = {
    1: "SIGNEDNESS", 2: "DEFAULT_CHARSET", 3: "COLUMN_CHARSET", 4: "COLUMN_NAME",
    5: "SET_STR_VALUE", 6: "ENUM_STR_VALUE", 7: "GEOMETRY_TYPE", 8: "SIMPLE_PRIMARY_KEY",
    9: "PRIMARY_KEY_WITH_PREFIX", 10: "ENUM_AND_SET_DEFAULT_CHARSET",
    11: "ENUM_AND_SET_COLUMN_CHARSET", 12: "COLUMN_VISIBILITY", 13: "VECTOR_DIMENSIONALITY",
}
ROW_METADATA = ("NO_LOG", "MINIMAL", "FULL")

# -- TLV value declarations (format.md §12.1 "value encoding") --------------------------
_Bits = MsbBitmap(this.count)
_PackedList = cs.GreedyRange(PackedInt)
_DefaultCharset = cs.Struct(
    "default" / PackedInt,
    "pairs" / cs.GreedyRange(cs.Struct("index" / PackedInt, "collation" / PackedInt)),
)
_StrValues = cs.GreedyRange(cs.PrefixedArray(PackedInt, PackedBytes))
_Names = cs.GreedyRange(cs.PascalString(PackedInt, "utf8"))
_PkWithPrefix = cs.GreedyRange(cs.Struct("index" / PackedInt, "prefix" / PackedInt))

TLV_LAYOUTS: dict[int, cs.Construct] = {
    SIGNEDNESS: _Bits,                      # MSB-first, 1 = UNSIGNED, per numeric column
    DEFAULT_CHARSET: _DefaultCharset,       # default id + (char-column index, id) pairs
    COLUMN_CHARSET: _PackedList,            # id per character column
    COLUMN_NAME: _Names,                    # packed length + utf8 name per column
    SET_STR_VALUE: _StrValues,              # per SET column: count, (len, bytes)…
    ENUM_STR_VALUE: _StrValues,
    GEOMETRY_TYPE: _PackedList,             # subtype per GEOMETRY column
    SIMPLE_PRIMARY_KEY: _PackedList,        # column index per PK part
    PRIMARY_KEY_WITH_PREFIX: _PkWithPrefix,  # (index, prefix chars) per PK part
    ENUM_AND_SET_DEFAULT_CHARSET: _DefaultCharset,
    ENUM_AND_SET_COLUMN_CHARSET: _PackedList,
    COLUMN_VISIBILITY: _Bits,               # MSB-first, 1 = visible, per column
    VECTOR_DIMENSIONALITY: _PackedList,
}
"""One construct per TLV type, used by both the builder and the decoder."""

# -- column classification (format.md §12.1 "Which columns count") ---------------------
_NUMERIC = frozenset({0, 1, 2, 3, 4, 5, 8, 9, 13, 246})
_CHARACTER = frozenset({254, 253, 15, 252})
META_SIZE = {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0,
             13: 0, 14: 0, 15: 2, 16: 2, 17: 1, 18: 1, 19: 1, 242: 1, 245: 1, 246: 2, 247: 2,
             248: 2, 249: 1, 250: 1, 251: 1, 252: 1, 253: 2, 254: 2, 255: 1}
"""Metadata bytes per binlog type (values.md §1 "Metadata byte order reminders")."""


def _mariadb(flavor: str) -> bool:
    return flavor.startswith("mariadb")


def real_type(type_code: int, meta: bytes) -> int:
    """ENUM (247) / SET (248) hide behind STRING (254) with their real type in meta[0]."""
    if type_code == 254 and len(meta) == 2 and meta[0] in (247, 248):
        return meta[0]
    return type_code


def is_numeric_type(type_code: int) -> bool:
    """Gets a SIGNEDNESS bit (``has_signedess_information_type``, YEAR included)."""
    return type_code in _NUMERIC


def is_character_type(rtype: int, flavor: str) -> bool:
    """Counted in DEFAULT/COLUMN_CHARSET; MariaDB also counts GEOMETRY (mariadb.md)."""
    return rtype in _CHARACTER or (rtype == 255 and _mariadb(flavor))


def _build_tlv(t: int, value: Any, **ctx: Any) -> dict[str, Any]:
    return {"type": t, "value": TLV_LAYOUTS[t].build(value, **ctx)}


def _charset_tlvs(ids: Sequence[int], default_type: int, column_type: int) -> dict[str, Any]:
    """LE ``init_charset_field``: COLUMN_… if ``n < 1 + 2(n - m)`` else DEFAULT_… (§12.1).

    ``m`` = count of the most frequent id; ties pick the lowest id.
    """
    counts = Counter(ids)
    most, m = 0, 0
    for cid in sorted(counts):
        if counts[cid] > m:
            most, m = cid, counts[cid]
    n = len(ids)
    if n < 1 + 2 * (n - m):
        return _build_tlv(column_type, list(ids))
    pairs = [{"index": i, "collation": cid} for i, cid in enumerate(ids) if cid != most]
    return _build_tlv(default_type, {"default": most, "pairs": pairs})


def build_table_map(table: Table, table_id: int, flavor: str, row_metadata: str = "FULL",
                    flags: int = 1, server_version: tuple[int, int, int] | None = None
                    ) -> dict[str, Any]:
    """The TABLE_MAP object :func:`table_map_layout` builds, fields chosen as the server does.

    format.md §12: one type byte and 0–2 metadata bytes per column, null bits (padding 0).
    §12.1 optional metadata, in the writer's order: SIGNEDNESS (numeric columns incl.
    YEAR: bit 0 on MySQL, 1 on MariaDB), DEFAULT_CHARSET | COLUMN_CHARSET (character
    columns; MariaDB also GEOMETRY and JSON), GEOMETRY_TYPE — that is all of MINIMAL —
    then for FULL: COLUMN_NAME, ENUM_AND_SET_DEFAULT|COLUMN_CHARSET, SET_STR_VALUE,
    ENUM_STR_VALUE, SIMPLE_PRIMARY_KEY | PRIMARY_KEY_WITH_PREFIX (UNIQUE NOT NULL
    promotion), COLUMN_VISIBILITY (MySQL 8.0.23+ only). NO_LOG (MariaDB only) writes none.
    ``server_version`` (MySQL) below 8.0.23 omits COLUMN_VISIBILITY.
    """
    if flavor not in FLAVORS:
        raise EncodeError(f"unknown flavor {flavor!r}")
    rm = row_metadata.upper()
    if rm not in ROW_METADATA:
        raise EncodeError(f"binlog_row_metadata must be one of {ROW_METADATA}, got {row_metadata!r}")
    if rm == "NO_LOG" and not _mariadb(flavor):
        raise EncodeError("binlog_row_metadata=NO_LOG does not exist on MySQL "
                          "(MySQL accepts MINIMAL or FULL)")
    cols = table.columns
    tlvs: list[dict[str, Any]] = []
    if rm != "NO_LOG":
        numeric = [c for c in cols if c.is_numeric]
        if numeric:
            bits = [c.is_unsigned_in_binlog(flavor) for c in numeric]
            tlvs.append(_build_tlv(SIGNEDNESS, bits, count=len(bits)))
        ids = [c.collation_id(flavor) for c in cols if c.is_character(flavor)]
        if ids:
            tlvs.append(_charset_tlvs(ids, DEFAULT_CHARSET, COLUMN_CHARSET))  # type: ignore[arg-type]
        geo = [c.geometry_type for c in cols if c.geometry_type is not None]
        if geo:
            tlvs.append(_build_tlv(GEOMETRY_TYPE, geo))
    if rm == "FULL":
        tlvs.append(_build_tlv(COLUMN_NAME, [c.name for c in cols]))
        es = [c for c in cols if c.is_enum_or_set]
        if es:
            tlvs.append(_charset_tlvs([c.collation_id(flavor) for c in es],  # type: ignore[misc]
                                      ENUM_AND_SET_DEFAULT_CHARSET, ENUM_AND_SET_COLUMN_CHARSET))
        sets = [list(c.member_bytes(flavor)) for c in cols if c.type == "SET"]
        if sets:
            tlvs.append(_build_tlv(SET_STR_VALUE, sets))
        enums = [list(c.member_bytes(flavor)) for c in cols if c.type == "ENUM"]
        if enums:
            tlvs.append(_build_tlv(ENUM_STR_VALUE, enums))
        pk = table.effective_primary_key()
        if pk:
            if any(prefix for _, prefix in pk):
                tlvs.append(_build_tlv(PRIMARY_KEY_WITH_PREFIX,
                                       [{"index": i, "prefix": p} for i, p in pk]))
            else:
                tlvs.append(_build_tlv(SIMPLE_PRIMARY_KEY, [i for i, _ in pk]))
        if not _mariadb(flavor) and (server_version is None or tuple(server_version) >= (8, 0, 23)):
            vis = [not c.invisible for c in cols]
            tlvs.append(_build_tlv(COLUMN_VISIBILITY, vis, count=len(vis)))
    return {
        "table_id": table_id,
        "flags": flags,
        "schema": table.database,
        "table": table.name,
        "column_types": [c.binlog_type(flavor) for c in cols],
        "metadata": b"".join(c.binlog_meta(flavor) for c in cols),
        "null_bits": [c.nullable for c in cols],
        "optional_metadata": tlvs,
    }


def encode_table_map(obj: dict[str, Any], table_id_size: int = 6) -> bytes:
    """Post-header + body bytes of a TABLE_MAP object (format.md §12)."""
    try:
        return table_map_layout(table_id_size).build(obj)
    except cs.ConstructError as exc:
        raise EncodeError(f"cannot encode TABLE_MAP: {exc}") from exc


def _split_meta(types: Sequence[int], meta: bytes) -> tuple[tuple[bytes, ...], bool]:
    """Per-column metadata slices; second item False when an unknown type made it a guess."""
    out: list[bytes] = []
    pos, known = 0, True
    for t in types:
        n = META_SIZE.get(t)
        if n is None:
            known, n = False, 0
        out.append(bytes(meta[pos:pos + n]))
        pos += n
    if known and pos != len(meta):
        raise DecodeError(f"TABLE_MAP metadata is {len(meta)} bytes, column types need {pos}",
                          event_type="TABLE_MAP_EVENT", path="metadata")
    return tuple(out), known


@dataclass(frozen=True)
class TableMap:
    """Decoded view of a TABLE_MAP (format.md §12, §12.1), raw fields plus derived views.

    ``raw`` is the object the layout parsed (or :func:`build_table_map` made) and
    re-encodes byte-exactly. Derived views map column index -> value and are None when
    the TLV that carries them is absent (MINIMAL / NO_LOG / MySQL 5.7).
    """

    flavor: str
    table_id: int
    flags: int
    schema: str
    table: str
    column_types: tuple[int, ...]
    column_meta: tuple[bytes, ...]
    nullable: tuple[bool, ...]
    optional_metadata: tuple[tuple[int, bytes], ...]
    raw: Any = field(compare=False, repr=False)

    # -- construction ------------------------------------------------------------------
    @classmethod
    def decode(cls, parsed: Any, flavor: str) -> TableMap:
        """From a parsed layout container (or a :func:`build_table_map` dict)."""
        if flavor not in FLAVORS:
            raise DecodeError(f"unknown flavor {flavor!r}")
        types = tuple(int(t) for t in parsed["column_types"])
        metas, _known = _split_meta(types, parsed["metadata"])
        nb = parsed["null_bits"]
        nullable = tuple(bool(b) for b in nb)
        tlvs = tuple((int(f["type"]), bytes(f["value"])) for f in parsed["optional_metadata"])
        tm = cls(flavor, int(parsed["table_id"]), int(parsed["flags"]), str(parsed["schema"]),
                 str(parsed["table"]), types, metas, nullable, tlvs, parsed)
        tm._check_tlvs()
        return tm

    @classmethod
    def from_bytes(cls, body: bytes, flavor: str, table_id_size: int = 6) -> TableMap:
        """Decode post-header + body bytes (no common header, no CRC)."""
        try:
            parsed = table_map_layout(table_id_size).parse(body)
        except cs.ConstructError as exc:
            raise DecodeError(f"bad TABLE_MAP body: {exc}", event_type="TABLE_MAP_EVENT",
                              path=getattr(exc, "path", None)) from exc
        return cls.decode(parsed, flavor)

    @classmethod
    def from_table(cls, table: Table, table_id: int, flavor: str, row_metadata: str = "FULL",
                   flags: int = 1) -> TableMap:
        return cls.decode(build_table_map(table, table_id, flavor, row_metadata, flags), flavor)

    def encode(self, table_id_size: int = 6) -> bytes:
        """The post-header + body bytes (byte-exact for a parsed event)."""
        return encode_table_map(self.raw, table_id_size)

    # -- TLV access --------------------------------------------------------------------
    @property
    def column_count(self) -> int:
        return len(self.column_types)

    def tlv(self, t: int) -> bytes | None:
        """Raw value of the first TLV of type ``t`` (None if absent)."""
        for ft, v in self.optional_metadata:
            if ft == t:
                return v
        return None

    def _parse_tlv(self, t: int) -> Any:
        raw = self.tlv(t)
        if raw is None:
            return None
        lay = TLV_LAYOUTS[t]
        try:
            ctx = {"count": len(raw) * 8} if t in (SIGNEDNESS, COLUMN_VISIBILITY) else {}
            val = lay.parse(raw, **ctx)
            if lay.build(val, **ctx) != raw:
                raise cs.ConstructError("value does not consume its bytes exactly")
        except (cs.ConstructError, UnicodeDecodeError) as exc:
            why = " ".join(str(exc).replace("Error in path (parsing)", "").split())  # one line
            raise DecodeError(f"bad {TLV_NAMES[t]} optional metadata: {why}",
                              event_type="TABLE_MAP_EVENT",
                              path=f"optional_metadata[{TLV_NAMES[t]}]") from exc
        return val

    def _check_tlvs(self) -> None:
        for t, _ in self.optional_metadata:
            if t in TLV_LAYOUTS:
                self._parse_tlv(t)

    @cached_property
    def real_types(self) -> tuple[int, ...]:
        return tuple(real_type(t, m) for t, m in zip(self.column_types, self.column_meta, strict=True))

    def _indexes(self, pred: Any) -> list[int]:
        return [i for i, rt in enumerate(self.real_types) if pred(rt, self.column_types[i])]

    @cached_property
    def numeric_columns(self) -> list[int]:
        return self._indexes(lambda rt, t: is_numeric_type(t))

    @cached_property
    def character_columns(self) -> list[int]:
        return self._indexes(lambda rt, t: is_character_type(rt, self.flavor))

    @cached_property
    def enum_set_columns(self) -> list[int]:
        return self._indexes(lambda rt, t: rt in (247, 248))

    # -- derived views -----------------------------------------------------------------
    @cached_property
    def signedness(self) -> dict[int, bool] | None:
        """Column index -> UNSIGNED for numeric columns (SIGNEDNESS, MSB-first)."""
        bits = self._parse_tlv(SIGNEDNESS)
        if bits is None:
            return None
        return {c: bool(bits[k]) if k < len(bits) else False
                for k, c in enumerate(self.numeric_columns)}

    def _charset_map(self, default_t: int, column_t: int, cols: list[int]) -> dict[int, int] | None:
        d = self._parse_tlv(default_t)
        if d is not None:
            exc = {p.index: p.collation for p in d.pairs}
            return {c: exc.get(k, d.default) for k, c in enumerate(cols)}
        ids = self._parse_tlv(column_t)
        if ids is None:
            return None
        return {c: ids[k] for k, c in enumerate(cols) if k < len(ids)}

    @cached_property
    def charsets(self) -> dict[int, int] | None:
        """Column index -> collation id for character columns (DEFAULT/COLUMN_CHARSET)."""
        return self._charset_map(DEFAULT_CHARSET, COLUMN_CHARSET, self.character_columns)

    @cached_property
    def enum_set_charsets(self) -> dict[int, int] | None:
        """Column index -> collation id for ENUM/SET columns (types 10/11)."""
        return self._charset_map(ENUM_AND_SET_DEFAULT_CHARSET, ENUM_AND_SET_COLUMN_CHARSET,
                                 self.enum_set_columns)

    @cached_property
    def column_names(self) -> list[str] | None:
        v = self._parse_tlv(COLUMN_NAME)
        return None if v is None else list(v)

    def _str_values(self, t: int, rtype: int) -> dict[int, tuple[bytes, ...]] | None:
        v = self._parse_tlv(t)
        if v is None:
            return None
        cols = [i for i, rt in enumerate(self.real_types) if rt == rtype]
        return {c: tuple(bytes(x) for x in v[k]) for k, c in enumerate(cols) if k < len(v)}

    @cached_property
    def enum_str_values(self) -> dict[int, tuple[bytes, ...]] | None:
        """Column index -> ENUM member bytes (in the column's charset)."""
        return self._str_values(ENUM_STR_VALUE, 247)

    @cached_property
    def set_str_values(self) -> dict[int, tuple[bytes, ...]] | None:
        """Column index -> SET member bytes (in the column's charset)."""
        return self._str_values(SET_STR_VALUE, 248)

    @cached_property
    def geometry_types(self) -> dict[int, int] | None:
        v = self._parse_tlv(GEOMETRY_TYPE)
        if v is None:
            return None
        cols = [i for i, t in enumerate(self.column_types) if t == 255]
        return {c: v[k] for k, c in enumerate(cols) if k < len(v)}

    @cached_property
    def primary_key(self) -> list[tuple[int, int]] | None:
        """[(column index, prefix in characters, 0 = whole column)] in key order."""
        v = self._parse_tlv(SIMPLE_PRIMARY_KEY)
        if v is not None:
            return [(int(i), 0) for i in v]
        v = self._parse_tlv(PRIMARY_KEY_WITH_PREFIX)
        if v is not None:
            return [(int(p.index), int(p.prefix)) for p in v]
        return None

    @cached_property
    def visibility(self) -> list[bool] | None:
        """Per column, True = visible (COLUMN_VISIBILITY, MySQL 8.0.23+ FULL)."""
        bits = self._parse_tlv(COLUMN_VISIBILITY)
        if bits is None:
            return None
        return [bool(bits[i]) if i < len(bits) else True for i in range(self.column_count)]

    def collation_of(self, i: int) -> int | None:
        cs_map = self.enum_set_charsets if self.real_types[i] in (247, 248) else self.charsets
        return None if cs_map is None else cs_map.get(i)

    def _strings(self, i: int, values: dict[int, tuple[bytes, ...]] | None) -> tuple[str, ...] | None:
        if values is None or i not in values:
            return None
        coll = self.collation_of(i)
        c = find_collation(coll, self.flavor) if coll is not None else None
        return tuple(decode_in_charset(b, c) for b in values[i])

    @cached_property
    def columns(self) -> list[ColumnDesc]:
        """One :class:`ColumnDesc` per column from the TABLE_MAP alone."""
        names = self.column_names
        sign = self.signedness or {}
        out = []
        for i, (t, m) in enumerate(zip(self.column_types, self.column_meta, strict=True)):
            rt = self.real_types[i]
            out.append(ColumnDesc(
                type_code=t, meta=m, unsigned=sign.get(i, False), collation=self.collation_of(i),
                enum_values=self._strings(i, self.enum_str_values) if rt == 247 else None,
                set_values=self._strings(i, self.set_str_values) if rt == 248 else None,
                fsp=m[0] if t in (17, 18, 19) and m else None,
                nullable=self.nullable[i],
                name=names[i] if names is not None and i < len(names) else None,
                table=self.table, flavor=self.flavor))
        return out

    def column_descs(self, schema: Table | None = None) -> list[ColumnDesc]:
        """:attr:`columns`, with what the TLVs do not carry taken from ``schema``.

        With MINIMAL / NO_LOG metadata the names, ENUM/SET strings (and, for NO_LOG,
        signedness and collations) come from the schema; MariaDB old temporals get
        their fsp from it (values.md §4.1). The schema must describe the same columns.
        """
        cols = self.columns
        if schema is None:
            return cols
        if len(schema.columns) != self.column_count:
            raise SchemaError(f"schema {schema.name!r} has {len(schema.columns)} columns, "
                              f"TABLE_MAP {self.table!r} has {self.column_count}")
        out = []
        for i, (d, sc) in enumerate(zip(cols, schema.column_descs(self.flavor), strict=True)):
            if sc.type_code != d.type_code:
                raise SchemaError(f"column {i} ({sc.name!r}) of table {schema.name!r}: schema type "
                                  f"{sc.type_code} but TABLE_MAP type {d.type_code}")
            rt = self.real_types[i]
            out.append(ColumnDesc(
                type_code=d.type_code, meta=d.meta,
                unsigned=d.unsigned if self.signedness is not None else sc.unsigned,
                collation=d.collation if d.collation is not None else sc.collation,
                enum_values=d.enum_values if d.enum_values is not None else sc.enum_values,
                set_values=d.set_values if d.set_values is not None else sc.set_values,
                fsp=d.fsp if d.fsp is not None else (sc.fsp if rt in (7, 11, 12) else None),
                nullable=d.nullable, name=d.name if d.name is not None else sc.name,
                table=self.table, flavor=self.flavor, json_text=sc.json_text))
        return out


def null_bits_value(tm: TableMap) -> BitmapValue:
    """The null bitmap as parsed (keeps its padding bits)."""
    nb = tm.raw["null_bits"]
    return nb if isinstance(nb, BitmapValue) else BitmapValue(list(nb), 0)


__all__ += ["null_bits_value", "PackedBytes"]
