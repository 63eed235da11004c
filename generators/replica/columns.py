"""Column facts the replica model needs: the type family, integer widths and ranges, octet
lengths, and the two type names of error 1677's message.

The source side is what the binlog says of a column (its Table_map type and metadata: no
signedness, strings by octet length, TEXT as the BLOB of its length size), as MariaDB's
``Field::rpl_conv_type_from`` / ``show_sql_type`` of the conversion field prints it:
``int``, ``decimal(8,3)``, ``varchar(20 octets)``, ``blob``. The target side is the replica
column's ``Field::sql_type``: ``int(11)``, ``smallint(5) unsigned``,
``varchar(80 octets) character set utf8mb4``, ``tinytext``. Every name here was read from a
MariaDB 10.11 replica's ``Last_SQL_Error`` (tests/generators/test_replica_rules.py).
"""

from __future__ import annotations

from binlogwriter.schema import Column

FLAVOR = "mariadb1011"

INT_BYTES = {"TINYINT": 1, "SMALLINT": 2, "MEDIUMINT": 3, "INT": 4, "BIGINT": 8}
# display widths of Field::sql_type (signed, unsigned)
_INT_WIDTH = {"TINYINT": (4, 3), "SMALLINT": (6, 5), "MEDIUMINT": (9, 8), "INT": (11, 10), "BIGINT": (20, 20)}
TEXT_BYTES = {"TINYTEXT": 1, "TEXT": 2, "MEDIUMTEXT": 3, "LONGTEXT": 4}
_BLOB_NAME = {1: "tinyblob", 2: "blob", 3: "mediumblob", 4: "longblob"}


def family(col: Column) -> str:
    """``int``, ``decimal``, ``float``, ``double``, ``char``, ``varchar``, ``text``, ``enum``,
    ``set`` — or ``other`` (every other type: replicated only between identical definitions)."""
    t = col.type
    if t in INT_BYTES:
        return "int"
    if t in ("DECIMAL", "FLOAT", "DOUBLE", "ENUM", "SET"):
        return t.lower()
    if t in ("CHAR", "VARCHAR") and col.collation_obj(FLAVOR) is not None \
            and col.collation_obj(FLAVOR).charset != "binary":
        return t.lower()
    if t in TEXT_BYTES and col.collation_obj(FLAVOR) is not None:
        return "text"
    return "other"


def int_range(col: Column) -> tuple[int, int]:
    bits = 8 * INT_BYTES[col.type]
    return (0, (1 << bits) - 1) if col.unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def octets(col: Column) -> int:
    """The octet length of a CHAR/VARCHAR (characters x the charset's mbmaxlen)."""
    n = col.byte_length(FLAVOR)
    assert n is not None
    return n


def chars(col: Column) -> int:
    return int(col.length or (1 if col.type == "CHAR" else 0))


def charset(col: Column) -> str:
    coll = col.collation_obj(FLAVOR)
    return "binary" if coll is None else coll.charset


def pack_length(col: Column) -> int:
    """ENUM: 1 or 2 bytes by member count; SET: 1, 2, 3, 4 or 8 by member count."""
    n = len(col.members)
    if col.type == "ENUM":
        return 1 if n < 256 else 2
    b = (n + 7) // 8
    return 8 if b > 4 else b


def source_name(col: Column) -> str:
    """The binlog side's type name in error 1677's message."""
    f = family(col)
    if f == "int":
        return col.type.lower()
    if f == "decimal":
        return f"decimal({col.precision},{col.scale})"
    if f in ("float", "double"):
        return f
    if f in ("char", "varchar"):
        return f"{f}({octets(col)} octets)"
    if f == "text":
        return _BLOB_NAME[TEXT_BYTES[col.type]]
    return col.type.lower()


def target_name(col: Column) -> str:
    """The replica column's ``Field::sql_type`` in error 1677's message."""
    f = family(col)
    if f == "int":
        width = col.length or _INT_WIDTH[col.type][col.unsigned]
        return f"{col.type.lower()}({width})" + (" unsigned" if col.unsigned else "")
    if f == "decimal":
        return f"decimal({col.precision},{col.scale})" + (" unsigned" if col.unsigned else "")
    if f in ("float", "double"):
        return f
    if f in ("char", "varchar"):
        return f"{f}({octets(col)} octets) character set {charset(col)}"
    return col.type.lower()
