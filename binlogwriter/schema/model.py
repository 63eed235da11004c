"""The schema model: :class:`Column`, :class:`Key`, :class:`KeyPart`, :class:`Table`.

The model is what the server knows about a table when it writes a TABLE_MAP
(``docs/format.md`` §12, §12.1) and what value codecs need per column
(``values.md`` §1, §5, §6). Everything is a frozen dataclass; a :class:`Table`
normalises its columns on construction (type aliases, ``CHARACTER SET binary`` ->
BINARY types, inherited charsets, implicit NOT NULL of primary-key columns, SERIAL)
and validates them (:mod:`binlogwriter.schema.validate`), raising
:class:`~binlogwriter.errors.SchemaError` messages that name the table and the column.

Collation resolution (charsets.md): column COLLATE > column CHARACTER SET's default >
table COLLATE / CHARACTER SET > database default > server default (utf8mb4; its
default collation is 255 on MySQL, 45 on MariaDB). The charset part is flavor
independent and stored on the column; a collation that was never named stays ``None``
and resolves to the flavor's default for the charset in :meth:`Column.collation_id`.
The type -> binlog mapping is :mod:`binlogwriter.schema.binlog`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from binlogwriter.charsets import (
    Collation,
    charset_mbmaxlen,
    collation_by_name,
    default_collation,
    encode_in_charset,
)
from binlogwriter.errors import SchemaError
from binlogwriter.schema import binlog
from binlogwriter.schema.keys import Check, Key, KeyPart
from binlogwriter.schema.lexer import Tok, split_statements
from binlogwriter.schema.spec import TableSpec, blob_type_for, type_from_spec
from binlogwriter.schema.statements import check_statement, check_text, locate, parse_create
from binlogwriter.schema.types import (
    ALIASES,
    BLOB_TYPES,
    BYTE_TYPES,
    CHAR_TYPES,
    GEOMETRY_TYPES,
    INT_TYPES,
    MARIADB_ONLY,
    SERVER_DEFAULT_CHARSET,
    STRING_TYPES,
    TEXT_TYPES,
    check_flavor,
    is_mariadb,
    norm_cs,
)
from binlogwriter.schema.validate import normalise_and_validate
from binlogwriter.values.base import ColumnDesc

__all__ = ["Column", "Check", "Key", "KeyPart", "Table", "table_from_sql"]


@dataclass(frozen=True)
class Column:
    """One column as declared (format.md §12; values.md §1 for its binlog type).

    ``type`` is the canonical SQL type name (aliases are normalised: INTEGER -> INT,
    BOOL -> TINYINT, REAL -> DOUBLE, NUMERIC -> DECIMAL, GEOMCOLLECTION ->
    GEOMETRYCOLLECTION, …). ``length`` is the declared length: characters for
    CHAR/VARCHAR, bytes for BINARY/VARBINARY, bits for BIT, the TEXT(n)/BLOB(n)
    argument. ``members`` holds ENUM/SET values. ``charset``/``collation`` are names;
    after :class:`Table` normalisation ``charset`` is the effective charset of every
    string/ENUM/SET column and ``collation`` is set only if some level named one.
    """

    name: str
    type: str
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    fsp: int | None = None
    unsigned: bool = False
    charset: str | None = None
    collation: str | None = None
    nullable: bool = True
    members: tuple[str, ...] = ()
    invisible: bool = False
    default: str | None = None
    auto_increment: bool = False
    generated: bool = False
    on_update: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not isinstance(self.type, str):
            raise SchemaError(f"column name and type must be text, got {self.name!r} {self.type!r}",
                              column=str(self.name))
        for attr in ("length", "precision", "scale", "fsp"):
            v = getattr(self, attr)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise SchemaError(f"{attr} of column {self.name!r} must be a whole number, got {v!r}",
                                  column=self.name)
        t = " ".join(self.type.upper().split())
        t = ALIASES.get(t, t)
        object.__setattr__(self, "type", t)
        object.__setattr__(self, "members", tuple(self.members))
        object.__setattr__(self, "charset", norm_cs(self.charset))
        if self.collation is not None:
            object.__setattr__(self, "collation", self.collation.lower())

    # -- classification -------------------------------------------------------------
    @property
    def geometry_type(self) -> int | None:
        """GEOMETRY_TYPE subtype code (0 GEOMETRY … 7 GEOMETRYCOLLECTION) or None."""
        return GEOMETRY_TYPES.index(self.type) if self.type in GEOMETRY_TYPES else None

    @property
    def is_numeric(self) -> bool:
        """Gets a SIGNEDNESS bit (``has_signedess_information_type``, format.md §12.1)."""
        return self.type in INT_TYPES or self.type in ("DECIMAL", "FLOAT", "DOUBLE", "YEAR")

    @property
    def is_integer(self) -> bool:
        """TINYINT … BIGINT (any width, signedness or ZEROFILL)."""
        return self.type in INT_TYPES

    @property
    def is_enum_or_set(self) -> bool:
        return self.type in ("ENUM", "SET")

    @property
    def is_string(self) -> bool:
        """CHAR/VARCHAR/BINARY/VARBINARY/TEXT/BLOB (and MariaDB INET/UUID)."""
        return self.type in STRING_TYPES or self.type in MARIADB_ONLY

    def is_character(self, flavor: str = "mysql80") -> bool:
        """Counted in DEFAULT/COLUMN_CHARSET (format.md §12.1, mariadb.md TABLE_MAP)."""
        if self.is_string:
            return True
        return is_mariadb(flavor) and (self.type == "JSON" or self.geometry_type is not None)

    # -- charset ----------------------------------------------------------------------
    def collation_obj(self, flavor: str = "mysql80") -> Collation | None:
        """Effective collation of a string/ENUM/SET column (MariaDB: also JSON/GEOMETRY)."""
        if self.type in MARIADB_ONLY or self.type in BYTE_TYPES:
            return collation_by_name("binary", flavor)
        if self.type == "JSON":
            return collation_by_name("utf8mb4_bin", flavor) if is_mariadb(flavor) else None
        if self.geometry_type is not None:
            return collation_by_name("binary", flavor) if is_mariadb(flavor) else None
        if not (self.type in CHAR_TYPES or self.is_enum_or_set):
            return None
        if self.collation is not None:
            return collation_by_name(self.collation, flavor)
        return default_collation(self.charset or SERVER_DEFAULT_CHARSET, flavor)

    def collation_id(self, flavor: str = "mysql80") -> int | None:
        c = self.collation_obj(flavor)
        return None if c is None else c.id

    def mbmaxlen(self, flavor: str = "mysql80") -> int:
        c = self.collation_obj(flavor)
        return 1 if c is None else c.mbmaxlen

    def char_length(self) -> int | None:
        """Declared length in characters (bytes for binary types), None if not a string."""
        if self.type in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
            return self.length if self.length is not None else 1
        if self.type in MARIADB_ONLY:
            return MARIADB_ONLY[self.type]
        return None

    def byte_length(self, flavor: str = "mysql80") -> int | None:
        """Maximum bytes of CHAR/VARCHAR/BINARY/VARBINARY (chars × mbmaxlen, values.md §5-6)."""
        n = self.char_length()
        return None if n is None else n * self.mbmaxlen(flavor)
    # -- binlog type and metadata (values.md §1, §5, §6): schema/binlog.py -------------
    def binlog_type(self, flavor: str = "mysql80") -> int:
        """The TABLE_MAP column type byte (values.md §1)."""
        return binlog.binlog_type(self, flavor)

    def blob_length_bytes(self, flavor: str = "mysql80") -> int:
        """Length-prefix width of a TEXT/BLOB/JSON/GEOMETRY value (values.md §6)."""
        return binlog.blob_length_bytes(self, flavor)

    def binlog_meta(self, flavor: str = "mysql80") -> bytes:
        """The column's metadata bytes in TABLE_MAP (values.md §1 master table, §5, §6)."""
        return binlog.binlog_meta(self, flavor)

    def is_unsigned_in_binlog(self, flavor: str = "mysql80") -> bool:
        """SIGNEDNESS bit: UNSIGNED flag; YEAR is 0 on MySQL, 1 on MariaDB (mariadb.md)."""
        return binlog.is_unsigned_in_binlog(self, flavor)

    def member_bytes(self, flavor: str = "mysql80") -> tuple[bytes, ...]:
        """ENUM/SET member names encoded in the column's charset (format.md §12.1)."""
        return tuple(encode_in_charset(m, self.collation_obj(flavor)) for m in self.members)

    def column_desc(self, flavor: str = "mysql80", table: str | None = None) -> ColumnDesc:
        """The value codecs' view of this column (values/base.py)."""
        return binlog.column_desc(self, flavor, table)


@dataclass(frozen=True)
class Table:
    """A table as the server sees it when it writes a TABLE_MAP (format.md §12).

    ``keys`` holds every key in definition order; :attr:`primary_key` is the declared
    PRIMARY KEY, :meth:`effective_primary_key` adds MySQL/MariaDB's promotion of the
    first UNIQUE key whose parts are all NOT NULL whole columns (format.md §12.1).
    ``flavor`` decides which names and types are valid and is the default for methods
    that take one.
    """

    database: str
    name: str
    columns: tuple[Column, ...]
    keys: tuple[Key, ...] = ()
    charset: str | None = None
    collation: str | None = None
    database_charset: str | None = None
    database_collation: str | None = None
    flavor: str = "mysql80"
    checks: tuple[Check, ...] = ()

    def __post_init__(self) -> None:
        check_flavor(self.flavor)
        object.__setattr__(self, "checks", tuple(self.checks))
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "keys", tuple(self.keys))
        object.__setattr__(self, "charset", norm_cs(self.charset))
        object.__setattr__(self, "database_charset", norm_cs(self.database_charset))
        if self.collation:
            object.__setattr__(self, "collation", self.collation.lower())
        if self.database_collation:
            object.__setattr__(self, "database_collation", self.database_collation.lower())
        normalise_and_validate(self)

    # -- lookups ----------------------------------------------------------------------
    def err(self, column: str | None, msg: str) -> SchemaError:
        where = f"{self.database}.{self.name}" + (f".{column}" if column else "")
        return SchemaError(f"{msg} - at {where} (table {self.name!r}"
                           + (f", column {column!r})" if column else ")"), column=column)

    @cached_property
    def _positions(self) -> dict[str, int]:
        # column names are case-insensitive; built once per table (index_of is on the row path)
        return {c.name.lower(): i for i, c in reversed(list(enumerate(self.columns)))}

    def index_of(self, column: str) -> int:
        i = self._positions.get(column.lower())
        if i is None:
            raise self.err(column, f"unknown column {column!r}")
        return i

    def column(self, name: str) -> Column:
        return self.columns[self.index_of(name)]

    @property
    def primary_key(self) -> Key | None:
        for k in self.keys:
            if k.kind == "PRIMARY":
                return k
        return None

    @property
    def unique_keys(self) -> tuple[Key, ...]:
        return tuple(k for k in self.keys if k.kind == "UNIQUE")

    @property
    def other_keys(self) -> tuple[Key, ...]:
        return tuple(k for k in self.keys if k.kind == "INDEX")

    def _is_prefix(self, part: KeyPart) -> bool:
        col = self.column(part.column)
        if col.type in TEXT_TYPES or col.type in BLOB_TYPES:
            return True
        return part.prefix is not None and part.prefix != col.char_length()

    def effective_primary_key(self) -> list[tuple[int, int]]:
        """[(column index, prefix in characters or 0)] in key order, or [] (format.md §12.1).

        The declared PRIMARY KEY, else the first UNIQUE key whose columns are all NOT
        NULL and whole (no prefix), which the server promotes to primary key.
        """
        pk = self.primary_key
        if pk is None:
            for k in self.unique_keys:
                if all(not self.column(p.column).nullable and not self._is_prefix(p) for p in k.parts):
                    pk = k
                    break
        if pk is None:
            return []
        return [(self.index_of(p.column), (p.prefix or 0) if self._is_prefix(p) else 0)
                for p in pk.parts]

    def column_descs(self, flavor: str | None = None) -> list[ColumnDesc]:
        """Per-column :class:`ColumnDesc` in table order (values/base.py contract)."""
        fl = check_flavor(flavor or self.flavor)
        return [c.column_desc(fl, self.name) for c in self.columns]

    def null_bits(self) -> list[bool]:
        """TABLE_MAP null bitmap: True = nullable (format.md §12)."""
        return [c.nullable for c in self.columns]

    # -- construction from SQL --------------------------------------------------------
    @classmethod
    def from_sql(cls, sql: str, database: str = "test", flavor: str = "mysql80",
                 database_charset: str | None = None,
                 database_collation: str | None = None) -> Table:
        """Parse one CREATE TABLE statement (MySQL dialect; sqlglot, own tokenizer fallback).

        Raises :class:`SchemaError` for anything a server would refuse or that is not one
        CREATE TABLE with a column list (several statements: use :func:`parse_tables`).
        """
        return table_from_sql(sql, database, flavor, database_charset, database_collation)


def _named_charset(*levels: str | None) -> str:
    """The first charset of ``levels`` (column, table, database) that names one: ``CHARACTER
    SET DEFAULT`` names none (the next level's; validate.py ``_table_level``)."""
    return next((cs for cs in levels if cs and cs.lower() != "default"), SERVER_DEFAULT_CHARSET)


def table_from_spec(spec: TableSpec, database: str, flavor: str, db_cs: str | None,
                    db_coll: str | None) -> Table:
    cols: list[Column] = []
    keys: list[Key] = []
    inline_pk: list[str] = []
    tname = spec.name
    for cs in spec.columns:
        if cs.compressed:
            raise SchemaError(f"COMPRESSED columns (MariaDB; binlog types 140/141) are not modelled - at "
                              f"{database}.{tname}.{cs.name} (table {tname!r}, column {cs.name!r})", column=cs.name)
        f = type_from_spec(cs)
        if "_error" in f:
            raise SchemaError(f"{f['_error']} - at {database}.{tname}.{cs.name} "
                              f"(table {tname!r}, column {cs.name!r})", column=cs.name)
        serial = f.pop("_serial", False)
        blob_len = f.pop("_blob_len", None)
        charset = cs.charset if cs.charset is not None else f.pop("charset", None)
        f.pop("charset", None)
        collation = cs.collation
        base_cs = _named_charset(charset, spec.charset, db_cs)
        if blob_len is not None:
            mb = charset_mbmaxlen(base_cs) if f["type"] == "TEXT" else 1
            f["type"] = blob_type_for(f["type"], blob_len, mb)
        if cs.binary_attr and collation is None:
            collation = "binary" if norm_cs(base_cs) == "binary" else f"{norm_cs(base_cs)}_bin"
            if norm_cs(base_cs) == "utf8mb4" and not is_mariadb(flavor):
                collation = "utf8mb4_bin"
        nullable = f.pop("nullable", True)
        if cs.nullable is not None:
            nullable = cs.nullable
        col = Column(
            name=cs.name, type=f.pop("type"), unsigned=cs.unsigned or cs.zerofill or f.pop("unsigned", False),
            charset=charset, collation=collation, nullable=nullable, invisible=cs.invisible,
            default=cs.default, on_update=cs.on_update, auto_increment=cs.auto_increment or f.pop("auto_increment", False),
            generated=cs.generated, **{k: v for k, v in f.items() if k not in ("unsigned", "auto_increment")})
        cols.append(col)
        if cs.primary:
            inline_pk.append(cs.name)
        if cs.unique or serial:
            keys.append(Key("UNIQUE", (KeyPart(cs.name),), cs.name))
    if inline_pk:
        if len(inline_pk) > 1 or any(k.kind == "PRIMARY" for k in spec.keys):
            raise SchemaError(f"multiple primary keys defined - at {database}.{tname} "
                              f"(table {tname!r}, column {inline_pk[-1]!r})", column=inline_pk[-1])
        keys.insert(0, Key("PRIMARY", (KeyPart(inline_pk[0]),), "PRIMARY"))
    keys.extend(spec.keys)
    checks = [c for cs in spec.columns for c in cs.checks] + spec.checks
    return Table(database=spec.database or database, name=tname, columns=tuple(cols),
                 keys=tuple(keys), charset=spec.charset, collation=spec.collation,
                 database_charset=db_cs, database_collation=db_coll, flavor=flavor, checks=tuple(checks))


def table_from_sql(sql: str, database: str = "test", flavor: str = "mysql80",
                   database_charset: str | None = None, database_collation: str | None = None) -> Table:
    """One CREATE TABLE statement -> Table (:meth:`Table.from_sql`)."""
    check_flavor(flavor)
    check_text(sql)
    stmts: list[tuple[str, list[Tok]]] = []
    try:
        stmts = split_statements(sql)
        if len(stmts) > 1:
            raise SchemaError(f"Table.from_sql takes one CREATE TABLE statement, got {len(stmts)} "
                              "(parse_tables() reads a script)", pos=stmts[1][1][0].pos)
        check_statement(stmts[0][1] if stmts else [])
        spec = parse_create(sql)
        return table_from_spec(spec, database, flavor, database_charset, database_collation)
    except SchemaError as e:
        raise locate(e, sql, stmts[0][1] if len(stmts) == 1 else [], None) from None
