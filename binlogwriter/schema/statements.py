"""CREATE TABLE text -> :class:`~binlogwriter.schema.spec.TableSpec` (part of
binlogwriter/schema/parse.py): sqlglot first (:mod:`~binlogwriter.schema.sqlglot_parse`), the
fallback (:mod:`~binlogwriter.schema.fallback`) for what sqlglot cannot read, the checks on the
statement text, and errors located at their line. Nothing here builds a Table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from binlogwriter.errors import SchemaError
from binlogwriter.schema.fallback import check_table_options, parse_create_fallback
from binlogwriter.schema.lexer import Tok, sqlglot_lossy, tokenize
from binlogwriter.schema.spec import TableSpec
from binlogwriter.schema.sqlglot_parse import parse_with_sqlglot

__all__: list[str] = []


def parse_create(sql: str) -> TableSpec:
    """sqlglot first; the own parser where sqlglot fails or would lose information."""
    toks = tokenize(sql)
    if not sqlglot_lossy(toks, sql):
        spec = parse_with_sqlglot(sql)
        if spec is not None:
            return spec
    return parse_create_fallback(toks)


def check_text(sql: Any) -> None:
    if not isinstance(sql, str):
        raise SchemaError(f"expected the text of CREATE TABLE statements, got {type(sql).__name__}")


def check_statement(stmt: Sequence[Tok]) -> None:
    """What both parsers would accept silently but no server does: CREATE TEMPORARY TABLE
    (never written to a row-based binlog), empty list elements (``(a INT,)``, ``,,``) and
    words after the column list that are no table option (``… ENGINE=InnoDB FOO``, a next
    ``CREATE`` without its ``;``: :func:`~binlogwriter.schema.fallback.check_table_options`)."""
    up = [t.upper for t in stmt[:4]]
    name = "?"
    words = [t for t in stmt[:8] if t.kind in ("word", "qident")]
    for j, t in enumerate(words):
        if t.upper == "TABLE" and t.kind == "word":
            rest = [w for w in words[j + 1:] if w.upper not in ("IF", "NOT", "EXISTS") or w.kind == "qident"]
            name = rest[0].text if rest else "?"
            break
    if up[:2] == ["CREATE", "TEMPORARY"] or up[:4] == ["CREATE", "OR", "REPLACE", "TEMPORARY"]:
        t = stmt[1] if up[1] == "TEMPORARY" else stmt[3]
        raise SchemaError(f"CREATE TEMPORARY TABLE is not supported: a temporary table's changes are not "
                          f"written to a row-based binlog; use CREATE TABLE - at table {name!r}", pos=t.pos)
    for i, t in enumerate(stmt):
        if t.kind != "punct" or t.text != ",":
            continue
        prev = stmt[i - 1] if i else None
        nxt = stmt[i + 1] if i + 1 < len(stmt) else None
        if nxt is not None and nxt.kind == "punct" and nxt.text == ")":
            raise SchemaError(f"cannot parse CREATE TABLE: trailing ',' before ')' - at table {name!r}", pos=t.pos)
        if prev is not None and prev.kind == "punct" and prev.text in "(,":
            what = "empty list element" if prev.text == "," else "',' right after '('"
            raise SchemaError(f"cannot parse CREATE TABLE: {what} - at table {name!r}", pos=t.pos)
    if up[:1] == ["CREATE"]:
        _check_names(stmt)
        check_table_options(stmt)


def _check_names(stmt: Sequence[Tok]) -> None:
    """A quoted string where the table's name or a column's begins (``CREATE TABLE "t" ("a"
    INT)``): both servers read ``"t"`` as a string, so refuse the statement (ERROR 1064),
    unless sql_mode has ANSI_QUOTES (MySQL 8.0 reference, "Schema Object Names"; MariaDB
    "Identifier Names") — which snapshot.sql and the binlog's DDL do not carry, so such a
    script is refused whatever SET sql_mode it holds. The places checked: the table's
    ``[db.]name``, and the first word of each element of the column list."""
    at: list[Tok] = []
    words = [j for j, t in enumerate(stmt[:8]) if t.upper == "TABLE"]
    if words:
        j = words[0] + 1
        while j < len(stmt) and stmt[j].upper in ("IF", "NOT", "EXISTS"):
            j += 1
        at += stmt[j:j + 1] + (stmt[j + 2:j + 3] if j + 1 < len(stmt) and stmt[j + 1].text == "." else [])
    depth = 0
    for j, t in enumerate(stmt):  # the column list: the first parenthesis
        if t.kind == "punct" and t.text in "(),":
            depth += {"(": 1, ")": -1}.get(t.text, 0)
            if depth == 0:
                break
            if depth == 1 and t.text in "(," and j + 1 < len(stmt):
                at.append(stmt[j + 1])
    bad = next((t for t in at if t.kind == "string"), None)
    if bad is None:
        return
    what = "double-quoted identifier" if bad.quote == '"' else "a string where a name belongs:"
    raise SchemaError(f"cannot parse CREATE TABLE: {what} {bad.quote}{bad.text}{bad.quote}: the servers read it as "
                      "a string unless sql_mode has ANSI_QUOTES (not carried into snapshot.sql or the binlog); use "
                      "backquotes", pos=bad.pos)


def locate(e: SchemaError, sql: str, stmt: Sequence[Tok], source: str | None,
           always: bool = False) -> SchemaError:
    """``e`` with the line of the SQL text it is about: its own position, else the (last)
    definition of the column it names, else the statement's first line."""
    if e.line is not None:
        return e.located(file=source)
    pos = e.pos
    if pos is None and e.column and stmt:
        depth = 0
        for j, t in enumerate(stmt):
            if t.kind == "punct":
                depth += {"(": 1, ")": -1}.get(t.text, 0)
            elif depth == 1 and t.text.lower() == e.column.lower() and j and stmt[j - 1].kind == "punct" \
                    and stmt[j - 1].text in "(,":
                pos = t.pos  # the last definition: a duplicate is the second one
    if pos is None and stmt:
        pos = stmt[0].pos
    if pos is None or not (always or source is not None or "\n" in sql.strip()):
        return e.located(file=source)
    return e.located(file=source, line=sql.count("\n", 0, pos) + 1)
