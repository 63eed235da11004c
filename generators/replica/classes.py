"""Column mapping and the conversion class of each column pair (MariaDB 10.11).

Mapping (``table_def::compatible_with``, sql/rpl_utility.cc; ``unpack_row``,
sql/rpl_record.cc): the binlog's column *i* goes to the replica's column *i* — by position,
even when FULL row metadata carries the names. Binlog columns past the replica's last are
dropped; replica columns past the binlog's last are *extra* and take their defaults.

Class of a pair (``Field::rpl_conv_type_from``, sql/field.cc; verified on a 10.11 replica,
tests/generators/test_replica_rules.py):

- ``exact``: same integer type (whatever the signedness: the bits are re-read with the
  replica's), same DECIMAL(p,s), same float type, CHAR/VARCHAR of the same octet length
  (whatever the charsets), TEXT of the same length size, ENUM/SET of the same pack length,
  or an identical definition of any other type;
- ``subset`` (subset -> superset, needs ``ALL_NON_LOSSY``): a wider integer, a DECIMAL of
  greater precision or of the same precision and greater scale (whatever the integer digits:
  DECIMAL(5,0) -> DECIMAL(6,4) is "non-lossy", and 12345 becomes 99.9999), FLOAT -> DOUBLE,
  a longer CHAR/VARCHAR;
- ``superset`` (superset -> subset, needs ``ALL_LOSSY``): the reverse;
- ``impossible``: integer <-> CHAR/VARCHAR (never converted, whatever the setting).

A pair the model does not know raises :class:`UnsupportedConversion` naming the column; a
class the setting does not allow is error 1677 at the table's first rows event.
"""

from __future__ import annotations

from dataclasses import dataclass

from binlogwriter.schema import Column
from generators.errors import SpecError
from generators.replica.columns import (
    INT_BYTES,
    TEXT_BYTES,
    family,
    octets,
    pack_length,
    source_name,
    target_name,
)


class UnsupportedConversion(SpecError):
    """A column pair (or value) whose replica behaviour the model does not know."""


NEEDS = {"exact": None, "subset": "ALL_NON_LOSSY", "superset": "ALL_LOSSY"}


@dataclass(frozen=True)
class Pair:
    """Binlog column ``index`` (0-based) of ``table`` -> the replica's column of that position."""

    table: str
    index: int
    source: Column
    target: Column
    kind: str  # exact | subset | superset | impossible

    def allowed(self, conversions: tuple[str, ...]) -> bool:
        if self.kind == "impossible":
            return False
        need = NEEDS[self.kind]
        return need is None or need in conversions

    def error_1677(self) -> str:
        """Error 1677's text, as a MariaDB 10.11 replica's Last_SQL_Error prints it."""
        return (f"Column {self.index} of table '{self.table}' cannot be converted from type "
                f"'{source_name(self.source)}' to type '{target_name(self.target)}'")


def _order(a: int, b: int) -> str:
    return "exact" if a == b else "subset" if b > a else "superset"


def conversion_class(table: str, src: Column, dst: Column) -> str:
    fs, fd = family(src), family(dst)
    where = f"{table}.{dst.name}"
    if fs == fd == "int":
        return _order(INT_BYTES[src.type], INT_BYTES[dst.type])
    if fs == fd == "decimal":
        if src.unsigned or dst.unsigned:
            if (src.precision, src.scale, src.unsigned) == (dst.precision, dst.scale, dst.unsigned):
                return "exact"
            raise UnsupportedConversion(f"unsupported conversion: {where}: DECIMAL UNSIGNED", setting="replica")
        if (src.precision, src.scale) == (dst.precision, dst.scale):
            return "exact"
        # ordered by precision, then by scale: DECIMAL(5,3) -> DECIMAL(6,1) is "subset"
        a, b = (src.precision or 10, src.scale or 0), (dst.precision or 10, dst.scale or 0)
        return "subset" if b > a else "superset"
    if {fs, fd} <= {"float", "double"}:
        return _order(("float", "double").index(fs), ("float", "double").index(fd))
    if fs == fd and fs in ("char", "varchar"):
        return _order(octets(src), octets(dst))
    if fs == fd == "text":
        if TEXT_BYTES[src.type] == TEXT_BYTES[dst.type]:
            return "exact"
        raise UnsupportedConversion(f"unsupported conversion: {where}: {src.type} -> {dst.type}",
                                    setting="replica")
    if fs == fd and fs in ("enum", "set"):
        if pack_length(src) == pack_length(dst):
            return "exact"
        raise UnsupportedConversion(f"unsupported conversion: {where}: {fs.upper()} of another storage size",
                                    setting="replica")
    if {fs, fd} in ({"int", "varchar"}, {"int", "char"}):
        return "impossible"
    if fs == fd == "other" and same_definition(src, dst):
        return "exact"
    raise UnsupportedConversion(f"unsupported conversion: {where}: {_decl(src)} -> {_decl(dst)}",
                                setting="replica")


def same_definition(a: Column, b: Column) -> bool:
    keys = ("type", "length", "precision", "scale", "fsp", "unsigned", "members")
    return all(getattr(a, k) == getattr(b, k) for k in keys) and \
        (a.collation_obj("mariadb1011") == b.collation_obj("mariadb1011"))


def _decl(c: Column) -> str:
    return source_name(c) if family(c) != "other" else c.type


def map_columns(table: str, source: list[Column], replica: list[Column]) -> list[Pair]:
    """The pairs of ``table`` by position (docs/replica.md "Column mapping")."""
    return [Pair(table, i, s, d, conversion_class(table, s, d))
            for i, (s, d) in enumerate(zip(source, replica, strict=False))]
