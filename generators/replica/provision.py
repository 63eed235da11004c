"""The replica's starting rows: the run's ``truth/snapshot.sql`` loaded into the replica's
tables before it replicates (docs/replica.md "Initial rows").

A tester provisions the replica the way the run's own snapshot is meant to be loaded: the
replica's CREATE TABLE statements, then snapshot.sql's statements with its CREATE TABLEs left
out — ``truth/replica/provision.sql`` is exactly that file (:func:`write_provision_sql`).
snapshot.sql's INSERTs name their columns (``INSERT INTO `d`.`t` (`id`, `a`) VALUES ...``,
generators/run_snapshot.py), at most 100 rows a statement, under the session settings it sets
first: ``SET NAMES utf8mb4`` and ``sql_mode = 'NO_AUTO_VALUE_ON_ZERO'`` — *not* strict, so
the server stores what does not fit with a warning rather than failing. What a MariaDB 10.11
server stores (``Field::store`` of a literal, sql/field.cc; each rule read from a real 10.11
server, tests/generators/test_replica_provision.py):

- columns are matched **by name** (unlike replication, which maps by position); a replica
  column the INSERT does not name takes its DEFAULT (``Field::set_default``; a NOT NULL column
  without one its implicit default, warning 1364; a ``CURRENT_TIMESTAMP`` default would be
  the load time, which the model refuses to guess);
- integers and DECIMAL clamped to the column's range (warning 1264), DECIMAL rounded half away
  from zero to its scale; FLOAT clamped to ±3.40282e38 and rounded to float32;
- text is *converted* from utf8mb4 to the column's charset (a character it lacks becomes
  ``?``, warning 1366), then cut to the column's length in characters (CHAR / VARCHAR) or in
  octets at a character boundary (TEXT types);
- ENUM by member name (case and trailing spaces ignored under a ``_ci`` collation), else a
  number of under 6 digits as the index, else ``''`` (index 0, warning 1265); SET the members
  it names (unknown ones dropped), or a number as the bitmask when none is named;
- NULL into a NOT NULL column: the implicit default (warning 1048) in a statement of several
  rows, **error 1048** in a single-row statement (``Field::set_null`` →
  ``set_field_to_null``: ``count_cuted_fields`` is set only for multi-row inserts).

What stops the load (the ``mariadb`` client stops at its first error), reported by
``generate`` as one line naming ``truth/snapshot.sql``'s line, ``table.column`` and the row:
error 1054 (a column the INSERT names is missing on the replica), 1048 (above), 1062 (a
converted key repeats another row's: ``handler::ha_write_row``).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Column
from binlogwriter.schema.lexer import Tok, split_statements
from generators.errors import SpecError
from generators.replica.classes import UnsupportedConversion, same_definition
from generators.replica.columns import FLAVOR, TEXT_BYTES, chars, family, int_range
from generators.replica.convert import decimal_store, default_value, implicit_default, text_value
from generators.replica.lookup import Duplicate, ReplicaTable

_FLT_MAX = 3.4028234663852886e38
_CURRENT = re.compile(r"^(CURRENT_TIMESTAMP|NOW|LOCALTIME|LOCALTIMESTAMP)\b", re.I)


class ProvisioningError(SpecError):
    """snapshot.sql cannot be loaded into the replica's tables: the server's error, one line."""


@dataclass(frozen=True)
class Lit:
    """One literal of an INSERT: ``kind`` null | number | string | hex; ``text`` its value."""

    kind: str
    text: str


@dataclass
class Insert:
    """One INSERT of snapshot.sql: ``table`` (``db.name``), the columns it names, its rows,
    the line it starts on."""

    table: str
    columns: list[str]
    rows: list[list[Lit]]
    line: int


def _statements(path: Path) -> Iterator[tuple[int, str, list[Tok]]]:
    """(line, text, tokens) of each statement of ``path``, read a line at a time (a snapshot's
    literals never hold a raw newline, so a line ending in ``;`` usually ends a statement;
    one that does not tokenize yet — a quoted newline in a CREATE — takes the next line)."""
    buf: list[str] = []
    start = line_no = 1
    with open(path, encoding="utf-8", newline="\n") as f:
        for line_no, line in enumerate(f, 1):
            if not buf:
                start = line_no
            buf.append(line)
            if not line.rstrip().endswith(";"):
                continue
            try:
                stmts = split_statements("".join(buf))
            except SchemaError:
                continue
            for text, toks in stmts:
                yield start, text, toks
            buf = []
    if buf and "".join(buf).strip():
        for text, toks in split_statements("".join(buf)):
            yield start, text, toks


def _literal(toks: list[Tok], i: int) -> tuple[Lit, int]:
    t = toks[i]
    if t.kind == "punct" and t.text == "-" and toks[i + 1].kind == "number":
        return Lit("number", "-" + toks[i + 1].text), i + 2
    if t.kind == "number" and t.text.startswith("X'"):
        return Lit("hex", t.text[2:-1].lower()), i + 1
    if t.kind == "number":
        return Lit("number", t.text), i + 1
    if t.kind == "string":
        return Lit("string", t.text), i + 1
    if t.upper == "NULL":
        return Lit("null", ""), i + 1
    if t.upper == "ST_GEOMFROMWKB" and toks[i + 1].text == "(":  # ST_GeomFromWKB(X'wkb', srid)
        wkb, j = _literal(toks, i + 2)
        srid = 0
        if toks[j].text == ",":
            s, j = _literal(toks, j + 1)
            srid = int(s.text)
        if wkb.kind == "hex" and toks[j].text == ")":
            return Lit("hex", srid.to_bytes(4, "little").hex() + wkb.text), j + 1
    raise SchemaError(f"unexpected {t.text!r} in an INSERT of snapshot.sql", pos=t.pos)


def parse_insert(toks: list[Tok], line: int, default_db: str) -> Insert | None:
    """An ``INSERT INTO [db.]t (cols) VALUES (...), ...`` of snapshot.sql, else None."""
    if len(toks) < 2 or toks[0].upper != "INSERT" or toks[1].upper != "INTO":
        return None
    i = 2
    names = [toks[i].text]
    while toks[i + 1].text == "." and toks[i + 1].kind == "punct":
        names.append(toks[i + 2].text)
        i += 2
    i += 1
    table = f"{default_db}.{names[0]}" if len(names) == 1 else f"{names[0]}.{names[1]}"
    cols: list[str] = []
    if toks[i].text == "(":
        i += 1
        while toks[i].text != ")":
            if toks[i].kind in ("qident", "word"):
                cols.append(toks[i].text)
            i += 1
        i += 1
    if toks[i].upper not in ("VALUES", "VALUE"):
        raise SchemaError(f"snapshot.sql line {line}: expected VALUES", pos=toks[i].pos)
    i += 1
    rows: list[list[Lit]] = []
    while i < len(toks):
        if toks[i].text == ",":
            i += 1
            continue
        assert toks[i].text == "(", toks[i]
        i += 1
        row: list[Lit] = []
        while toks[i].text != ")":
            if toks[i].text == ",":
                i += 1
                continue
            lit, i = _literal(toks, i)
            row.append(lit)
        rows.append(row)
        i += 1
    return Insert(table, cols, rows, line)


def _encode(col: Column, text: str) -> bytes:
    """``text`` (utf8mb4, the session's SET NAMES) in ``col``'s charset; a character the
    charset lacks becomes ``?`` (``String_copier``, warning 1366)."""
    coll = col.collation_obj(FLAVOR)
    assert coll is not None
    try:
        return coll.encode(text)
    except (UnicodeEncodeError, LookupError, ValueError):
        out = bytearray()
        for ch in text:
            try:
                out += coll.encode(ch)
            except (UnicodeEncodeError, LookupError, ValueError):
                out += b"?"
        return bytes(out)


def _cut(col: Column, data: bytes) -> bytes:
    """At most the column's length: characters (CHAR / VARCHAR) or octets (TEXT types), at a
    character boundary (``Well_formed_prefix``)."""
    coll = col.collation_obj(FLAVOR)
    assert coll is not None
    text = coll.decode(data)
    if col.type in TEXT_BYTES:
        limit, size, keep = (1 << (8 * TEXT_BYTES[col.type])) - 1, 0, []
        for ch in text:
            size += len(coll.encode(ch))
            if size > limit:
                break
            keep.append(ch)
        return coll.encode("".join(keep))
    return coll.encode(text[:chars(col)])


def _member_key(col: Column, s: str) -> str:
    coll = col.collation_obj(FLAVOR)
    s = s.rstrip(" ")
    return s.casefold() if coll is None or not coll.name.endswith("_bin") else s


def _enum(col: Column, s: str) -> str:
    keys = [_member_key(col, m) for m in col.members]
    k = _member_key(col, s)
    if k in keys:
        return col.members[keys.index(k)]
    if s.isdigit() and len(s) < 6 and 0 < int(s) <= len(col.members):
        return col.members[int(s) - 1]
    return ""


def _set(col: Column, s: str) -> str:
    keys = [_member_key(col, m) for m in col.members]
    bits = {keys.index(_member_key(col, p)) for p in s.split(",") if _member_key(col, p) in keys} if s else set()
    if not bits and s.isdigit() and len(s) < 22 and int(s) < 1 << len(col.members):
        bits = {i for i in range(len(col.members)) if int(s) >> i & 1}
    return ",".join(m for i, m in enumerate(col.members) if i in bits)


def _float32(v: float) -> float:
    v = max(-_FLT_MAX, min(_FLT_MAX, v))
    return struct.unpack("<f", struct.pack("<f", v))[0]


def store(table: str, src: Column, dst: Column, lit: Lit) -> Any:
    """The canonical value ``dst`` holds after an INSERT stores ``lit`` (non-NULL) into it."""
    fs, fd = family(src), family(dst)
    where = f"{table}.{dst.name}"
    if fs != fd and {fs, fd} != {"float", "double"} and not {fs, fd} <= {"char", "varchar", "text"}:
        raise UnsupportedConversion(f"unsupported conversion: {where}: snapshot.sql's {src.type} value "
                                    f"into {dst.type}", setting="replica")
    try:
        if fd == "int" and lit.kind == "number":
            v = int(Decimal(lit.text).to_integral_value(ROUND_HALF_UP))
            lo, hi = int_range(dst)
            return max(lo, min(hi, v))
        if fd == "decimal" and lit.kind == "number":
            return decimal_store(dst, lit.text)
        if fd in ("float", "double") and lit.kind == "number" and dst.scale is None:
            return _float32(float(lit.text)) if fd == "float" else float(lit.text)
    except (InvalidOperation, ValueError):
        pass
    if fd in ("char", "varchar", "text") and lit.kind == "string":
        return text_value(dst, _cut(dst, _encode(dst, lit.text)))
    if fd == "enum" and lit.kind == "string":
        return _enum(dst, lit.text)
    if fd == "set" and lit.kind == "string":
        return _set(dst, lit.text)
    if fd == fs == "other" and same_definition(src, dst):
        binary = dst.type in ("BINARY", "VARBINARY") or dst.type.endswith("BLOB")
        if lit.kind == "string" and not binary:
            return lit.text
        if lit.kind in ("hex", "string"):  # a binary column: its bytes ('' is how snapshot.sql writes none)
            data = lit.text if lit.kind == "hex" else lit.text.encode("utf-8").hex()  # GEOMETRY: SRID + WKB
            if dst.type == "BINARY" and dst.length:  # padded with 0x00 to its length
                data = (data + "00" * dst.length)[:2 * dst.length]
            return "0x" + data
        if lit.kind == "number" and re.fullmatch(r"-?\d+", lit.text):
            return int(lit.text)
    raise UnsupportedConversion(f"unsupported conversion: {where}: snapshot.sql value {lit.text[:20]!r} "
                                f"into {dst.type}", setting="replica")


def _omitted(table: str, col: Column) -> Any:
    """A replica column snapshot.sql's INSERT does not name: its DEFAULT, evaluated now."""
    if col.default is not None and _CURRENT.match(col.default):
        raise UnsupportedConversion(
            f"unsupported conversion: {table}.{col.name}: DEFAULT {col.default} would hold the time snapshot.sql "
            "is loaded into the replica; give it a constant DEFAULT or generate with --initial-rows 0",
            setting="replica")
    return default_value(table, col)


def provision(snapshot: Path, database: str, tables: dict[str, ReplicaTable],
              primary: dict[str, list[Column]]) -> int:
    """Load ``snapshot``'s INSERTs into ``tables`` (replica rows, by ``db.table``); returns the
    number of rows. Raises :class:`ProvisioningError` where the server's load would stop."""
    if not snapshot.exists():
        return 0
    db, count, done = database, 0, {}
    for line, _text, toks in _statements(snapshot):
        if toks[0].upper == "USE":
            db = toks[1].text
            continue
        try:
            ins = parse_insert(toks, line, db)
        except SchemaError as e:
            raise UnsupportedConversion(f"unsupported conversion: truth/snapshot.sql:{line}: {e}",
                                        setting="replica") from None
        if ins is None:
            continue
        rt = tables.get(ins.table)
        where = f"truth/snapshot.sql:{line}: {ins.table}"
        if rt is None:
            raise ProvisioningError(f"replica provisioning: {where}: error 1146: Table '{ins.table}' doesn't exist",
                                    setting="replica")
        src = {c.name: c for c in primary.get(ins.table, [])}
        for name in ins.columns:
            if name not in rt.cols:
                raise ProvisioningError(f"replica provisioning: {where}.{name}: error 1054: Unknown column "
                                        f"'{name}' in 'INSERT INTO' (the replica has no column {name})",
                                        setting="replica")
        named = set(ins.columns)
        fixed = {c.name: _omitted(ins.table, c) for c in rt.table.columns if c.name not in named}
        for lits in ins.rows:
            done[ins.table] = done.get(ins.table, 0) + 1
            row = dict(fixed)
            for name, lit in zip(ins.columns, lits, strict=True):
                dst = rt.cols[name]
                if lit.kind != "null":
                    row[name] = store(ins.table, src.get(name, dst), dst, lit)
                elif dst.nullable:
                    row[name] = None
                elif len(ins.rows) > 1:
                    row[name] = implicit_default(ins.table, dst)
                else:
                    raise ProvisioningError(f"replica provisioning: {where}.{name} row {done[ins.table]}: "
                                            f"error 1048: Column '{name}' cannot be null", setting="replica")
            try:
                rt.insert({c.name: row[c.name] for c in rt.table.columns})
            except Duplicate as e:
                raise ProvisioningError(f"replica provisioning: {where} row {done[ins.table]}: error 1062: "
                                        f"Duplicate entry '{e.entry}' for key '{e.key}'", setting="replica") from None
            count += 1
    return count


def write_provision_sql(snapshot: Path, replica_sql: str, database: str, out: Path) -> None:
    """``truth/replica/provision.sql``: snapshot.sql with its CREATE TABLE statements replaced
    by the replica's (``USE`` the run's database, then ``replica_sql``) — what a tester loads
    into the replica (``mariadb < provision.sql``) before ``START SLAVE``."""
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write("-- binlogwriter generate: the replica's tables and the run's initial rows (truth/snapshot.sql with\n"
                "-- the replica's CREATE TABLE statements); load it into the replica before START SLAVE.\n")
        ddl = replica_sql.strip() + ("\n" if replica_sql.strip().endswith(";") else "\n;\n")
        created = False
        for _line, text, toks in _statements(snapshot) if snapshot.exists() else iter(()):
            is_create = toks[0].upper == "CREATE" and len(toks) > 1 and toks[1].upper == "TABLE"
            if toks[0].upper == "USE" or is_create:
                if is_create and not created:
                    f.write(f"USE `{database.replace('`', '``')}`;\n{ddl}")
                    created = True
                continue
            f.write(text + ";\n")
        if not created:  # --ddl-in-binlog: snapshot.sql has no CREATEs
            q = database.replace("`", "``")
            f.write(f"CREATE DATABASE IF NOT EXISTS `{q}`;\nUSE `{q}`;\n{ddl}")


__all__ = ["ProvisioningError", "provision", "write_provision_sql", "parse_insert", "store", "Insert", "Lit"]
