"""The SQL type vocabulary of the schema model: canonical type names, their aliases, the
binlog type codes they map to (values.md §1), and the flavor / charset-name helpers.

One definition of the flavors: :data:`binlogwriter.format.FLAVORS`.
"""

from __future__ import annotations

from binlogwriter.errors import SchemaError
from binlogwriter.format import FLAVORS

__all__ = ["FLAVORS", "SERVER_DEFAULT_CHARSET", "GEOMETRY_TYPES", "KNOWN_TYPES", "ALIASES",
           "is_mariadb", "check_flavor", "norm_cs"]

SERVER_DEFAULT_CHARSET = "utf8mb4"
"""Server default charset of both MySQL 8 and the Debian MariaDB 10.11 package."""

# binlog type codes (values.md §1)
T_DECIMAL, T_TINY, T_SHORT, T_LONG, T_FLOAT, T_DOUBLE, T_NULL = 0, 1, 2, 3, 4, 5, 6
T_TIMESTAMP, T_LONGLONG, T_INT24, T_DATE, T_TIME, T_DATETIME, T_YEAR = 7, 8, 9, 10, 11, 12, 13
T_NEWDATE, T_VARCHAR, T_BIT, T_TIMESTAMP2, T_DATETIME2, T_TIME2 = 14, 15, 16, 17, 18, 19
T_VECTOR, T_JSON, T_NEWDECIMAL, T_ENUM, T_SET = 242, 245, 246, 247, 248
T_TINY_BLOB, T_MEDIUM_BLOB, T_LONG_BLOB, T_BLOB, T_VAR_STRING, T_STRING, T_GEOMETRY = (
    249, 250, 251, 252, 253, 254, 255)

GEOMETRY_TYPES = ("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
                  "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION")
"""Geometry subtypes in GEOMETRY_TYPE TLV order (format.md §12.1, type 7)."""

INT_TYPES = {"TINYINT": T_TINY, "SMALLINT": T_SHORT, "MEDIUMINT": T_INT24, "INT": T_LONG,
             "BIGINT": T_LONGLONG}
TEXT_TYPES = ("TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT")
BLOB_TYPES = ("TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")
TEMPORAL_FSP = {"TIME": T_TIME2, "DATETIME": T_DATETIME2, "TIMESTAMP": T_TIMESTAMP2}
MARIADB_ONLY = {"INET6": 16, "UUID": 16, "INET4": 4}
CHAR_TYPES = ("CHAR", "VARCHAR") + TEXT_TYPES
BYTE_TYPES = ("BINARY", "VARBINARY") + BLOB_TYPES
STRING_TYPES = CHAR_TYPES + BYTE_TYPES
KNOWN_TYPES = frozenset(
    list(INT_TYPES) + ["DECIMAL", "FLOAT", "DOUBLE", "BIT", "YEAR", "DATE", "TIME", "DATETIME",
                       "TIMESTAMP", "ENUM", "SET", "JSON"]
    + list(STRING_TYPES) + list(GEOMETRY_TYPES) + list(MARIADB_ONLY))

ALIASES = {
    "INTEGER": "INT", "INT1": "TINYINT", "INT2": "SMALLINT", "INT3": "MEDIUMINT",
    "INT4": "INT", "INT8": "BIGINT", "MIDDLEINT": "MEDIUMINT", "BOOL": "TINYINT",
    "BOOLEAN": "TINYINT", "NUMERIC": "DECIMAL", "DEC": "DECIMAL", "FIXED": "DECIMAL",
    "REAL": "DOUBLE", "FLOAT4": "FLOAT", "FLOAT8": "DOUBLE", "DOUBLE PRECISION": "DOUBLE",
    "CHARACTER": "CHAR", "CHARACTER VARYING": "VARCHAR", "CHAR VARYING": "VARCHAR",
    "VARCHARACTER": "VARCHAR", "GEOMCOLLECTION": "GEOMETRYCOLLECTION",
}

MAX_BLOB = {"TINY": 255, "": 65535, "MEDIUM": (1 << 24) - 1, "LONG": (1 << 32) - 1}


def is_mariadb(flavor: str) -> bool:
    return flavor.startswith("mariadb")


def check_flavor(flavor: str) -> str:
    if flavor not in FLAVORS:
        raise SchemaError(f"unknown flavor {flavor!r} (one of {', '.join(FLAVORS)})")
    return flavor


def norm_cs(name: str | None) -> str | None:
    if name is None:
        return None
    n = name.lower()
    return "utf8mb3" if n == "utf8" else n
