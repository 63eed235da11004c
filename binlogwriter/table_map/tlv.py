"""The optional-metadata vocabulary of TABLE_MAP (format.md §12.1; mariadb.md "TABLE_MAP
optional metadata"; part of binlogwriter/table_map/metadata.py): the TLV type codes, one construct
declaration per TLV value type in :data:`TLV_LAYOUTS` (used to build and to parse), and which
real types count as numeric or character columns."""

from __future__ import annotations

import construct as cs
from construct import this

from binlogwriter.layouts.primitives import MsbBitmap, PackedBytes, PackedInt

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
_MARIADB_COMPRESSED = frozenset({140, 141})
"""MariaDB BLOB_COMPRESSED / VARCHAR_COMPRESSED: character columns in its charset lists (a real
10.11 Table_map of ``INT, VARCHAR COMPRESSED, BLOB COMPRESSED, TEXT COMPRESSED`` lists the
BLOB's binary collation as the second character column's)."""


def mariadb(flavor: str) -> bool:
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
    """Counted in DEFAULT/COLUMN_CHARSET; MariaDB also counts GEOMETRY (mariadb.md) and its
    compressed columns."""
    return rtype in _CHARACTER or ((rtype == 255 or rtype in _MARIADB_COMPRESSED) and mariadb(flavor))
