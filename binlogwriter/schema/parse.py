"""CREATE TABLE text -> :class:`~binlogwriter.schema.model.Table`: :func:`parse_tables` (a
script, following ``USE`` and ``CREATE DATABASE … CHARSET``, ``CREATE TABLE … LIKE``) and
:func:`table_from_sql` (one statement, :meth:`Table.from_sql`).

CREATE TABLE text is parsed with sqlglot's MySQL dialect (:mod:`~binlogwriter.schema.sqlglot_parse`);
where sqlglot fails or would lose information the statement is parsed by the fallback
(:mod:`~binlogwriter.schema.fallback`). Both produce the same spec, turned into a Table here.
Errors are :class:`~binlogwriter.errors.SchemaError` located at the script line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from binlogwriter.charsets import charset_mbmaxlen
from binlogwriter.errors import SchemaError
from binlogwriter.schema.fallback import _parse_create_database, _parse_create_fallback
from binlogwriter.schema.lexer import _split_statements, _sqlglot_lossy, _Tok, _tokenize
from binlogwriter.schema.model import Column, Key, KeyPart, Table
from binlogwriter.schema.spec import _ColSpec, _TableSpec
from binlogwriter.schema.sqlglot_parse import _parse_with_sqlglot
from binlogwriter.schema.types import (
    _INT_TYPES,
    _MAX_BLOB,
    _TEMPORAL_FSP,
    ALIASES,
    SERVER_DEFAULT_CHARSET,
    check_flavor,
    is_mariadb,
    norm_cs,
)

__all__ = ["parse_tables", "table_from_sql"]


def table_from_sql(sql: str, database: str = "test", flavor: str = "mysql80",
                   database_charset: str | None = None, database_collation: str | None = None) -> Table:
    """One CREATE TABLE statement -> Table (:meth:`Table.from_sql`)."""
    check_flavor(flavor)
    _check_text(sql)
    stmts: list[tuple[str, list[_Tok]]] = []
    try:
        stmts = _split_statements(sql)
        if len(stmts) > 1:
            raise SchemaError(f"Table.from_sql takes one CREATE TABLE statement, got {len(stmts)} "
                              "(parse_tables() reads a script)", pos=stmts[1][1][0].pos)
        _check_statement(stmts[0][1] if stmts else [])
        spec = _parse_create(sql)
        return _table_from_spec(spec, database, flavor, database_charset, database_collation)
    except SchemaError as e:
        raise _locate(e, sql, stmts[0][1] if len(stmts) == 1 else [], None) from None


_CONVERT_MEMBER = re.compile(r"\s+$")


def _type_from_spec(cs: _ColSpec) -> dict[str, Any]:
    """Turn type words/arguments into Column fields (aliases and special forms)."""
    w = " ".join(cs.words)
    args = cs.args
    out: dict[str, Any] = {}
    if cs.words and cs.words[0] not in ("ENUM", "SET"):
        bad = [a for a in args if not a.isdigit()]
        if bad:
            return {"_error": f"{w}({', '.join(args)}): {bad[0]!r} is not a whole number"}

    def num(i: int) -> int | None:
        return int(args[i]) if len(args) > i and args[i] != "" else None

    if w in ("NATIONAL CHAR", "NATIONAL CHARACTER", "NCHAR"):
        w, out["charset"] = "CHAR", "utf8mb3"
    elif w in ("NATIONAL VARCHAR", "NVARCHAR", "NCHAR VARCHAR", "NATIONAL CHAR VARYING",
               "NATIONAL CHARACTER VARYING", "NCHAR VARYING", "NATIONAL VARCHARACTER"):
        w, out["charset"] = "VARCHAR", "utf8mb3"
    elif w in ("LONG", "LONG VARCHAR", "LONG CHAR VARYING"):
        w = "MEDIUMTEXT"
    elif w == "LONG VARBINARY":
        w = "MEDIUMBLOB"
    elif w == "SERIAL":
        w = "BIGINT"
        out.update(unsigned=True, nullable=False, auto_increment=True, _serial=True)
    w = ALIASES.get(w, w)
    if cs.words and cs.words[0] in ("BOOL", "BOOLEAN"):
        w = "TINYINT"
    if w == "FLOAT" and len(args) == 1:
        p = num(0) or 0
        if p > 53:
            out["_error"] = f"FLOAT({p}) precision out of range 0..53"
        elif p > 24:
            w = "DOUBLE"
    elif w in ("FLOAT", "DOUBLE") and len(args) == 2:
        out["precision"], out["scale"] = num(0), num(1)
    elif w == "DECIMAL":
        out["precision"] = num(0) if args else 10
        out["scale"] = num(1) if len(args) > 1 else 0
    elif w in _TEMPORAL_FSP:
        out["fsp"] = num(0) if args else 0
    elif w in ("CHAR", "BINARY", "VARCHAR", "VARBINARY", "BIT"):
        out["length"] = num(0) if args else (None if w in ("VARCHAR", "VARBINARY") else 1)
    elif w in ("TEXT", "BLOB") and args:
        out["_blob_len"] = num(0)
    elif w in _INT_TYPES and args and (num(0) or 0) > 255:
        # the display width is not kept, but the server refuses one beyond 255
        # (ER_TOO_BIG_DISPLAYWIDTH)
        out["_error"] = f"{w}({args[0]}): display width out of range (max 255)"
    elif w in ("ENUM", "SET"):
        out["members"] = tuple(_CONVERT_MEMBER.sub("", m) for m in args)
    out["type"] = w
    return out


def _blob_type_for(base: str, n: int, mbmax: int) -> str:
    nb = n * mbmax
    for prefix, limit in _MAX_BLOB.items():
        if nb <= limit:
            return prefix + base
    return "LONG" + base


def _table_from_spec(spec: _TableSpec, database: str, flavor: str, db_cs: str | None,
                     db_coll: str | None) -> Table:
    cols: list[Column] = []
    keys: list[Key] = []
    inline_pk: list[str] = []
    tname = spec.name
    for cs in spec.columns:
        f = _type_from_spec(cs)
        if "_error" in f:
            raise SchemaError(f"{f['_error']} - at {database}.{tname}.{cs.name} "
                              f"(table {tname!r}, column {cs.name!r})", column=cs.name)
        serial = f.pop("_serial", False)
        blob_len = f.pop("_blob_len", None)
        charset = cs.charset if cs.charset is not None else f.pop("charset", None)
        f.pop("charset", None)
        collation = cs.collation
        if blob_len is not None:
            mb = charset_mbmaxlen(charset or spec.charset or db_cs or SERVER_DEFAULT_CHARSET) \
                if f["type"] == "TEXT" else 1
            f["type"] = _blob_type_for(f["type"], blob_len, mb)
        if cs.binary_attr and collation is None:
            base_cs = charset or spec.charset or db_cs or SERVER_DEFAULT_CHARSET
            collation = "binary" if norm_cs(base_cs) == "binary" else f"{norm_cs(base_cs)}_bin"
            if norm_cs(base_cs) == "utf8mb4" and not is_mariadb(flavor):
                collation = "utf8mb4_bin"
        nullable = f.pop("nullable", True)
        if cs.nullable is not None:
            nullable = cs.nullable
        col = Column(
            name=cs.name, type=f.pop("type"), unsigned=cs.unsigned or cs.zerofill or f.pop("unsigned", False),
            charset=charset, collation=collation, nullable=nullable, invisible=cs.invisible,
            default=cs.default, auto_increment=cs.auto_increment or f.pop("auto_increment", False),
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
    return Table(database=spec.database or database, name=tname, columns=tuple(cols),
                 keys=tuple(keys), charset=spec.charset, collation=spec.collation,
                 database_charset=db_cs, database_collation=db_coll, flavor=flavor)


def _parse_create(sql: str) -> _TableSpec:
    """sqlglot first; the own parser where sqlglot fails or would lose information."""
    toks = _tokenize(sql)
    if not _sqlglot_lossy(toks, sql):
        spec = _parse_with_sqlglot(sql)
        if spec is not None:
            return spec
    return _parse_create_fallback(toks)


_IDENT = r"(?:`(?:[^`]|``)+`|[\w$]+)"
_LIKE_RE = re.compile(
    rf"\s*CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{_IDENT}(?:\.{_IDENT})?)"
    rf"\s*\(?\s*LIKE\s+(?P<src>{_IDENT}(?:\.{_IDENT})?)\s*\)?\s*;?\s*$", re.I | re.S)


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
        if t.database.lower() == dbn.lower() and t.name.lower() == name.lower():
            return t
    return None


def parse_tables(sql_text: str, database: str = "test", flavor: str = "mysql80",
                 source: str | None = None) -> list[Table]:
    """Every CREATE TABLE of a script, following ``USE db`` and ``CREATE DATABASE … CHARSET``.

    Other statements are skipped. Raises SchemaError for an invalid table, located at the
    line of the script (``source:line: ...`` when ``source``, the file name, is given).
    """
    check_flavor(flavor)
    _check_text(sql_text)
    try:
        statements = _split_statements(sql_text)
    except SchemaError as e:
        raise _locate(e, sql_text, [], source, always=True) from None
    db = database
    db_defaults: dict[str, tuple[str | None, str | None]] = {}
    out: list[Table] = []
    for text, stmt in statements:
        try:
            _parse_statement(text, stmt, db, db_defaults, out, flavor)
        except SchemaError as e:
            raise _locate(e, sql_text, stmt, source, always=True) from None
        if stmt and stmt[0].upper == "USE" and len(stmt) > 1:
            db = stmt[1].text
    return out


def _parse_statement(text: str, stmt: list[_Tok], db: str, db_defaults: dict[str, tuple[str | None, str | None]],
                 out: list[Table], flavor: str) -> None:
    """One statement of a script (parse_tables): CREATE DATABASE / TABLE; others skipped."""
    head = [t.upper for t in stmt[:5]]
    if not head or not head[0]:
        return
    if head[0] == "CREATE" and "TABLE" in head[:5]:
        _check_statement(stmt)
    if head[0] == "USE":
        pass
    elif head[:2] in (["CREATE", "DATABASE"], ["CREATE", "SCHEMA"]):
        name, cs, coll = _parse_create_database(stmt)
        db_defaults[name.lower()] = (cs, coll)
    elif head[0] == "CREATE" and "TABLE" in head[:4] and (like := _LIKE_RE.match(text)):
        src = _find_table(out, like.group("src"), db)
        if src is None:
            raise SchemaError(f"CREATE TABLE … LIKE {like.group('src')}: no such table earlier in the "
                              f"script - at table {like.group('name')!r}")
        dbn, name = _split_name(like.group("name"), db)
        out.append(replace(src, database=dbn, name=name))
    elif head[0] == "CREATE" and "TABLE" in head[:4]:
        spec = None if _sqlglot_lossy(stmt, text) else _parse_with_sqlglot(text)
        if spec is None:
            spec = _parse_create_fallback(stmt)
        dbn = spec.database or db
        cs, coll = db_defaults.get(dbn.lower(), (None, None))
        out.append(_table_from_spec(spec, dbn, flavor, cs, coll))


def _check_text(sql: Any) -> None:
    if not isinstance(sql, str):
        raise SchemaError(f"expected the text of CREATE TABLE statements, got {type(sql).__name__}")


def _check_statement(stmt: Sequence[_Tok]) -> None:
    """What both parsers would accept silently but no server does: CREATE TEMPORARY TABLE
    (never written to a row-based binlog) and empty list elements (``(a INT,)``, ``,,``)."""
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


def _locate(e: SchemaError, sql: str, stmt: Sequence[_Tok], source: str | None,
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
