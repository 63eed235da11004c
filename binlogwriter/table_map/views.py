"""The derived per-column views of a decoded TABLE_MAP (part of binlogwriter/table_map/metadata.py):
signedness, charsets and collations, names, ENUM/SET strings, geometry types, primary key,
visibility from the optional metadata (format.md §12.1), and a
:class:`~binlogwriter.values.base.ColumnDesc` per column. Each view maps column index ->
value and is None when the TLV that carries it is absent (MINIMAL / NO_LOG / MySQL 5.7)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from binlogwriter.charsets import decode_in_charset, find_collation
from binlogwriter.errors import SchemaError
from binlogwriter.layouts.rows import OLD_TEMPORAL_CODES
from binlogwriter.schema import Table
from binlogwriter.table_map import tlv
from binlogwriter.values.base import ColumnDesc


class TableMapViews:
    """:class:`~binlogwriter.table_map.metadata.TableMap`'s derived views (read its fields and TLVs).

    Size: one short, independent cached view per optional-metadata field of the TABLE_MAP
    (format.md §12.1); all read the same TLVs.
    """

    @cached_property
    def real_types(self) -> tuple[int, ...]:
        return tuple(tlv.real_type(t, m) for t, m in zip(self.column_types, self.column_meta, strict=True))

    def _indexes(self, pred: Any) -> list[int]:
        return [i for i, rt in enumerate(self.real_types) if pred(rt, self.column_types[i])]

    @cached_property
    def numeric_columns(self) -> list[int]:
        return self._indexes(lambda rt, t: tlv.is_numeric_type(t))

    @cached_property
    def character_columns(self) -> list[int]:
        return self._indexes(lambda rt, t: tlv.is_character_type(rt, self.flavor))

    @cached_property
    def enum_set_columns(self) -> list[int]:
        return self._indexes(lambda rt, t: rt in (247, 248))

    # -- derived views -----------------------------------------------------------------
    @cached_property
    def signedness(self) -> dict[int, bool] | None:
        """Column index -> UNSIGNED for numeric columns (SIGNEDNESS, MSB-first)."""
        bits = self._parse_tlv(tlv.SIGNEDNESS)
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
        return self._charset_map(tlv.DEFAULT_CHARSET, tlv.COLUMN_CHARSET, self.character_columns)

    @cached_property
    def enum_set_charsets(self) -> dict[int, int] | None:
        """Column index -> collation id for ENUM/SET columns (types 10/11)."""
        return self._charset_map(tlv.ENUM_AND_SET_DEFAULT_CHARSET, tlv.ENUM_AND_SET_COLUMN_CHARSET,
                                 self.enum_set_columns)

    @cached_property
    def column_names(self) -> list[str] | None:
        v = self._parse_tlv(tlv.COLUMN_NAME)
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
        return self._str_values(tlv.ENUM_STR_VALUE, 247)

    @cached_property
    def set_str_values(self) -> dict[int, tuple[bytes, ...]] | None:
        """Column index -> SET member bytes (in the column's charset)."""
        return self._str_values(tlv.SET_STR_VALUE, 248)

    @cached_property
    def geometry_types(self) -> dict[int, int] | None:
        v = self._parse_tlv(tlv.GEOMETRY_TYPE)
        if v is None:
            return None
        cols = [i for i, t in enumerate(self.column_types) if t == 255]
        return {c: v[k] for k, c in enumerate(cols) if k < len(v)}

    @cached_property
    def primary_key(self) -> list[tuple[int, int]] | None:
        """[(column index, prefix in characters, 0 = whole column)] in key order."""
        v = self._parse_tlv(tlv.SIMPLE_PRIMARY_KEY)
        if v is not None:
            return [(int(i), 0) for i in v]
        v = self._parse_tlv(tlv.PRIMARY_KEY_WITH_PREFIX)
        if v is not None:
            return [(int(p.index), int(p.prefix)) for p in v]
        return None

    @cached_property
    def visibility(self) -> list[bool] | None:
        """Per column, True = visible (COLUMN_VISIBILITY, MySQL 8.0.23+ FULL)."""
        bits = self._parse_tlv(tlv.COLUMN_VISIBILITY)
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
                fsp=d.fsp if d.fsp is not None else (sc.fsp if rt in OLD_TEMPORAL_CODES else None),
                nullable=d.nullable, name=d.name if d.name is not None else sc.name,
                table=self.table, flavor=self.flavor, json_text=sc.json_text))
        return out
