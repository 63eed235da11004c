"""CREATE TABLE text -> :class:`~binlogwriter.schema.model.Table`: :func:`parse_tables` (a
script, following ``USE`` and ``CREATE DATABASE … CHARSET``, ``CREATE TABLE … LIKE``) and
:func:`table_from_sql` (one statement, :meth:`Table.from_sql`).

CREATE TABLE text is parsed with sqlglot's MySQL dialect (:mod:`~binlogwriter.schema.sqlglot_parse`);
where sqlglot fails or would lose information the statement is parsed by the fallback
(:mod:`~binlogwriter.schema.fallback`), through :mod:`~binlogwriter.schema.statements`. Both
produce the same spec, turned into a Table by the model (``schema/model.py``
``_table_from_spec``; ``table_from_sql`` lives there too and is re-exported here).
Errors are :class:`~binlogwriter.errors.SchemaError` located at the script line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from binlogwriter.errors import SchemaError
from binlogwriter.schema.alter import fold_alters
from binlogwriter.schema.fallback import parse_create_database, parse_create_fallback
from binlogwriter.schema.lexer import Tok, split_statements, sqlglot_lossy
from binlogwriter.schema.model import Table, table_from_spec, table_from_sql
from binlogwriter.schema.spec import TableSpec, add_system_time_columns
from binlogwriter.schema.sqlglot_parse import parse_with_sqlglot
from binlogwriter.schema.statements import check_statement, check_text, locate
from binlogwriter.schema.types import (
    check_flavor,
)

__all__ = ["parse_tables", "table_from_sql"]


_IDENT = r"(?:`(?:[^`]|``)+`|[\w$]+)"
_LIKE_RE = re.compile(
    rf"\s*CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{_IDENT}(?:\.{_IDENT})?)"
    rf"\s*\(?\s*LIKE\s+(?P<src>{_IDENT}(?:\.{_IDENT})?)\s*\)?\s*;?\s*$", re.I | re.S)


_SEQUENCE_RE = re.compile(rf"\s*CREATE\s+(?:OR\s+REPLACE\s+)?SEQUENCE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                          rf"(?P<name>{_IDENT}(?:\.{_IDENT})?)", re.I)
_SEQUENCE_COLUMNS = ("next_not_cached_value BIGINT NOT NULL, minimum_value BIGINT NOT NULL, "
                     "maximum_value BIGINT NOT NULL, start_value BIGINT NOT NULL, "
                     "increment BIGINT NOT NULL, cache_size BIGINT UNSIGNED NOT NULL, "
                     "cycle_option TINYINT UNSIGNED NOT NULL, cycle_count BIGINT NOT NULL")
"""The columns of a MariaDB sequence's table, whose rows events a NEXTVAL that refills the
cache writes (a real 10.11 Table_map of a sequence has these names and types)."""


def _sequence_table(text: str, db: str, flavor: str) -> Table:
    """``CREATE SEQUENCE name …`` -> the Table its rows events are decoded with."""
    m = _SEQUENCE_RE.match(text)
    if m is None:
        raise SchemaError("cannot parse CREATE SEQUENCE: expected its name")
    dbn, name = _split_name(m.group("name"), db)
    quoted = "`" + name.replace("`", "``") + "`"
    return replace(table_from_sql(f"CREATE TABLE {quoted} ({_SEQUENCE_COLUMNS})", dbn, flavor), database=dbn)


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


def _split_name(qualified: str, db: str) -> tuple[str, str]:
    parts = re.findall(_IDENT, qualified)
    if len(parts) == 2:
        return _unquote(parts[0]), _unquote(parts[1])
    return db, _unquote(parts[0])


def _find_table(tables: list[Table], qualified: str, db: str) -> Table | None:
    dbn, name = _split_name(qualified, db)
    for t in reversed(tables):
        if t.database == dbn and t.name == name:  # case-sensitive (lower_case_table_names=0)
            return t
    return None


def _own_spec(stmt: list[Tok]) -> TableSpec | None:
    """The own parser's spec of a CREATE TABLE, or None where it refuses the statement (then
    sqlglot's path reads it, and gives the error it gives)."""
    try:
        return parse_create_fallback(stmt)
    except SchemaError:
        return None


def parse_tables(sql_text: str, database: str = "test", flavor: str = "mysql80",
                 source: str | None = None, *, binlog_columns: bool = False,
                 own_parser_first: bool = False) -> list[Table]:
    """Every CREATE TABLE of a script, following ``USE db`` and ``CREATE DATABASE … CHARSET``,
    with the script's ALTER TABLEs that add keys, constraints and columns folded in
    (:func:`~binlogwriter.schema.alter.fold_alters`).

    Other statements are skipped. Raises SchemaError for an invalid table, located at the
    line of the script (``source:line: ...`` when ``source``, the file name, is given).
    ``binlog_columns``: the tables as a server logs their rows, implicit columns included
    (MariaDB ``WITH SYSTEM VERSIONING``: ``row_start``, ``row_end``), and MariaDB's
    ``CREATE SEQUENCE`` as the table of its rows events, for reading binlogs.
    ``own_parser_first``: each CREATE TABLE is read by the own parser
    (:mod:`~binlogwriter.schema.fallback`) first and by sqlglot only when that one refuses
    it — the same tables (``tests/schema/test_schema_parser_order.py`` draws them), without
    importing sqlglot (about 0.1 CPU-s) for the usual scripts: the readers' order (issue 30).
    """
    check_flavor(flavor)
    check_text(sql_text)
    try:
        sql_text = fold_alters(sql_text, database)
        statements = split_statements(sql_text)
    except SchemaError as e:
        raise locate(e, sql_text, [], source, always=True) from None
    db = database
    db_defaults: dict[str, tuple[str | None, str | None]] = {}
    out: list[Table] = []
    for text, stmt in statements:
        try:
            _parse_statement(text, stmt, db, db_defaults, out, flavor, binlog_columns, own_parser_first)
        except SchemaError as e:
            raise locate(e, sql_text, stmt, source, always=True) from None
        if stmt and stmt[0].upper == "USE" and len(stmt) > 1:
            db = stmt[1].text
    return out


def _parse_statement(text: str, stmt: list[Tok], db: str, db_defaults: dict[str, tuple[str | None, str | None]],
                 out: list[Table], flavor: str, binlog_columns: bool = False,
                 own_parser_first: bool = False) -> None:
    """One statement of a script (parse_tables): CREATE DATABASE / TABLE; others skipped."""
    head = [t.upper for t in stmt[:5]]
    if not head or not head[0]:
        return
    if head[0] == "CREATE" and "TABLE" in head[:5]:
        check_statement(stmt)
    if head[0] == "USE":
        pass
    elif head[:2] in (["CREATE", "DATABASE"], ["CREATE", "SCHEMA"]):
        name, cs, coll = parse_create_database(stmt)
        db_defaults[name] = (cs, coll)
    elif binlog_columns and head[0] == "CREATE" and "SEQUENCE" in head[:4] and flavor.startswith("mariadb"):
        out.append(_sequence_table(text, db, flavor))
    elif head[0] == "CREATE" and "TABLE" in head[:4] and (like := _LIKE_RE.match(text)):
        src = _find_table(out, like.group("src"), db)
        if src is None:
            raise SchemaError(f"CREATE TABLE … LIKE {like.group('src')}: no such table earlier in the "
                              f"script - at table {like.group('name')!r}")
        dbn, name = _split_name(like.group("name"), db)
        out.append(replace(src, database=dbn, name=name))
    elif head[0] == "CREATE" and "TABLE" in head[:4]:
        spec = _own_spec(stmt) if own_parser_first else None
        if spec is None:
            spec = None if sqlglot_lossy(stmt, text) else parse_with_sqlglot(text)
        if spec is None:
            spec = parse_create_fallback(stmt)
        if binlog_columns:
            add_system_time_columns(spec, text, flavor)
        dbn = spec.database or db
        cs, coll = db_defaults.get(dbn, (None, None))
        out.append(table_from_spec(spec, dbn, flavor, cs, coll))
