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
from typing import Any

import construct as cs

from binlogwriter.errors import DecodeError, EncodeError
from binlogwriter.format import FLAVORS
from binlogwriter.layouts.primitives import BitmapValue, PackedBytes
from binlogwriter.layouts.table_map import table_map_layout
from binlogwriter.schema import Table
from binlogwriter.table_map.tlv import (
    COLUMN_CHARSET,
    COLUMN_NAME,
    COLUMN_VISIBILITY,
    DEFAULT_CHARSET,
    ENUM_AND_SET_COLUMN_CHARSET,
    ENUM_AND_SET_DEFAULT_CHARSET,
    ENUM_STR_VALUE,
    GEOMETRY_TYPE,
    PRIMARY_KEY_WITH_PREFIX,
    ROW_METADATA,
    SET_STR_VALUE,
    SIGNEDNESS,
    SIMPLE_PRIMARY_KEY,
    TLV_LAYOUTS,
    TLV_NAMES,
    mariadb,
)
from binlogwriter.table_map.views import TableMapViews
from binlogwriter.values.families import META_SIZE

__all__ = ["build_table_map", "encode_table_map", "TableMap", "null_bits_value", "split_metadata"]




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
    if rm == "NO_LOG" and not mariadb(flavor):
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
        if not mariadb(flavor) and (server_version is None or tuple(server_version) >= (8, 0, 23)):
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


def split_metadata(types: Sequence[int], meta: bytes) -> list[bytes]:
    """Per-column slices of a TABLE_MAP's metadata, :data:`~binlogwriter.values.families.META_SIZE`
    bytes each (none for a type code no table knows; short at the end when ``meta`` is cut
    short) (format.md §12; values.md §1 sizes)."""
    out: list[bytes] = []
    pos = 0
    for t in types:
        n = META_SIZE.get(t, 0)
        out.append(bytes(meta[pos:pos + n]))
        pos += n
    return out


@dataclass(frozen=True)
class TableMap(TableMapViews):
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
        meta = parsed["metadata"]
        metas = tuple(split_metadata(types, meta))
        if all(t in META_SIZE for t in types) and (need := sum(META_SIZE[t] for t in types)) != len(meta):
            raise DecodeError(f"TABLE_MAP metadata is {len(meta)} bytes, column types need {need}",
                              event_type="TABLE_MAP_EVENT", path="metadata")
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



def null_bits_value(tm: TableMap) -> BitmapValue:
    """The null bitmap as parsed (keeps its padding bits)."""
    nb = tm.raw["null_bits"]
    return nb if isinstance(nb, BitmapValue) else BitmapValue(list(nb), 0)


__all__ += ["null_bits_value", "PackedBytes"]
