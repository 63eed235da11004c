"""The CREATE TABLE / CREATE DATABASE parser for what sqlglot cannot read: the one place.

Size (about 590 lines): one grammar, MySQL / MariaDB CREATE TABLE, read token by token; its
parts (elements, columns, DEFAULT values, CHECK expressions, table options) share the cursor.

**Why it exists.** :func:`~binlogwriter.schema.parse.parse_tables` (and ``statements._parse_create``)
try sqlglot's MySQL dialect first (:mod:`~binlogwriter.schema.sqlglot_parse`). A CREATE TABLE
comes here instead when

1. it holds a word of :data:`~binlogwriter.schema.lexer.LOSSY`, which sqlglot reads *silently
   wrong*: ``LONG`` (MySQL: MEDIUMTEXT) and ``INT8`` (MySQL: BIGINT);
2. it holds an executable comment ``/*! … */`` / ``/*M! … */`` (SQL the server runs; sqlglot
   drops it as a comment);
3. sqlglot fails on it, or its tree holds something the mapping does not know and
   ``_parse_with_sqlglot`` returns None: REAL, FLOAT(p), FLOAT(M,D) UNSIGNED, FLOAT4/8, INT3,
   MIDDLEINT, BOOL, YEAR(4), DOUBLE PRECISION, LONG VARBINARY, POINT SRID n, GEOMCOLLECTION,
   NATIONAL CHAR, NVARCHAR, VARCHARACTER, CHAR … BYTE / BINARY, SERIAL, VISIBLE, INET6, UUID,
   generated columns, CHECK, FOREIGN KEY, ``… IGNORE SELECT`` (each case is a test in
   tests/schema/test_schema_sqlglot_gaps.py, which also checks that both paths agree, errors
   included, on what both read).

CREATE DATABASE / SCHEMA is always read here (:func:`_parse_create_database`: its name and
default charset / collation). ``CREATE TABLE … LIKE`` never comes here (parse.py copies the
earlier table).

**What it reads** (MySQL 8 / MariaDB 10.11 ``CREATE TABLE``), tokens from
:mod:`~binlogwriter.schema.lexer`:

* ``CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] [db.]name ( element, … ) options``;
  no column list (``AS SELECT``) is an error;
* elements: a column, or ``[CONSTRAINT [name]]`` ``PRIMARY KEY`` / ``UNIQUE [INDEX|KEY]`` /
  ``INDEX|KEY`` / ``FULLTEXT|SPATIAL [INDEX|KEY]`` with an optional name, ``USING …`` and key
  parts ``name[(prefix)] [ASC|DESC]`` (a functional part ``(expr)`` is a hidden column, never
  logged, and skipped), the last one maybe MariaDB's ``period WITHOUT OVERLAPS``; ``FOREIGN
  KEY`` elements are skipped; ``[CONSTRAINT [name]] CHECK (expr)`` elements are kept as
  :class:`~binlogwriter.schema.keys.Check` (``NOT ENFORCED`` ones dropped); ``PERIOD FOR
  name (start, end)`` (MariaDB) as the CHECK ``start < end``;
* a column: its type words, multi-word ones joined (``DOUBLE PRECISION``, ``NATIONAL CHAR``,
  ``CHAR VARYING``, ``NCHAR VARCHAR``, ``LONG VARBINARY``, … :data:`_TYPE_CONT`), the
  parenthesised arguments (lengths, ENUM/SET members: a charset introducer ``_utf8mb4'x'`` is
  dropped, adjacent literals concatenate, a hex or bit literal is its bytes,
  :func:`literal_bytes`), then attributes: ``[UN]SIGNED``, ``ZEROFILL``,
  ``[NOT] NULL``, ``DEFAULT`` (literal — string, signed number, hex or bit value, after a
  charset introducer —, word, function call, ``(expr)`` or ``NEXT|PREVIOUS VALUE FOR s``,
  kept as SQL text: :func:`_parse_default`), ``AUTO_INCREMENT``, ``SERIAL DEFAULT VALUE``, ``UNIQUE [KEY]``, ``[PRIMARY] KEY``,
  ``COMMENT``, ``COLLATE``, ``CHARACTER SET`` / ``CHARSET`` / ``CHAR SET`` and the shorthands
  ``ASCII`` (latin1), ``UNICODE`` (ucs2), ``BYTE`` (binary), ``BINARY``, ``[IN]VISIBLE``,
  ``COLUMN_FORMAT`` / ``STORAGE`` / ``SRID`` / ``[SECONDARY_]ENGINE_ATTRIBUTE`` with their
  value, ``ON UPDATE`` expression (kept as SQL text, as ``DEFAULT``), ``[GENERATED ALWAYS] AS (expr) [VIRTUAL|STORED|PERSISTENT]``,
  inline ``[CONSTRAINT [name]] CHECK (…) [NOT] ENFORCED`` (kept, as the table-level ones) and
  ``REFERENCES …``; any other word
  is an error;
* table options: only ``[DEFAULT] CHARACTER SET|CHARSET|CHAR SET [=]`` and ``COLLATE [=]`` are
  kept, the others (:data:`_TABLE_OPTIONS` and a few of several words) read and skipped, any
  other word refused; reading stops at ``PARTITION`` or a query (``AS``/``SELECT``, ``IGNORE``,
  ``REPLACE``, …), where a word beginning another statement says a ``;`` is missing
  (:func:`check_table_options` does the same whichever parser reads the statement).

It only collects words: the result is the same :class:`~binlogwriter.schema.spec.TableSpec`
sqlglot's path makes; the type words are resolved (aliases, :mod:`~binlogwriter.schema.types`)
and checked by the shared code after both (``model._table_from_spec``). Errors are
:class:`~binlogwriter.errors.SchemaError` naming the table, the column and the token's position.
"""

from __future__ import annotations

from collections.abc import Sequence

from binlogwriter.errors import SchemaError
from binlogwriter.schema.keys import Check, Key, KeyPart
from binlogwriter.schema.lexer import Tok
from binlogwriter.schema.spec import ColSpec, TableSpec, sql_literal

__all__ = ["parse_create_fallback", "parse_create_database", "expression_sql", "literal_bytes",
           "check_table_options"]


class _P:
    """A cursor over tokens for the fallback parser."""

    def __init__(self, toks: Sequence[Tok], table: str = "?") -> None:
        self.t = list(toks)
        self.i = 0
        self.table = table
        self.column: str | None = None

    def err(self, msg: str) -> SchemaError:
        at = self.t[self.i].text if self.i < len(self.t) else "end of statement"
        where = f"table {self.table!r}" + (f", column {self.column!r}" if self.column else "")
        pos = self.t[self.i].pos if self.i < len(self.t) else (self.t[-1].end if self.t else None)
        return SchemaError(f"cannot parse CREATE TABLE: {msg} near {at!r} - at {where}", pos=pos)

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def up(self, k: int = 0) -> str:
        t = self.peek(k)
        return t.upper if t else ""

    def is_punct(self, ch: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == "punct" and t.text == ch

    def next(self) -> Tok:
        t = self.peek()
        if t is None:
            raise self.err("unexpected end")
        self.i += 1
        return t

    def accept(self, *words: str) -> bool:
        if all(self.up(k) == w for k, w in enumerate(words)):
            self.i += len(words)
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise self.err(f"expected {' '.join(words)}")

    def expect_punct(self, ch: str) -> None:
        if not self.is_punct(ch):
            raise self.err(f"expected {ch!r}")
        self.i += 1

    def ident(self) -> str:
        t = self.next()
        if t.kind in ("word", "qident", "string"):
            return t.text
        raise self.err("expected a name")

    def skip_balanced(self) -> str:
        """Skip one token or one parenthesised group; return its source text."""
        t = self.next()
        if t.kind == "punct" and t.text == "(":
            depth = 1
            while depth:
                u = self.next()
                if u.kind == "punct":
                    depth += {"(": 1, ")": -1}.get(u.text, 0)
        return t.text

    def skip_to_element_end(self) -> None:
        while not (self.is_punct(",") or self.is_punct(")")):
            self.skip_balanced()

    def maybe_eq(self) -> None:
        if self.is_punct("="):
            self.i += 1


def _parse_key_parts(p: _P) -> tuple[list[KeyPart], str | None]:
    """A key's parts, and the period of its last part ``period WITHOUT OVERLAPS`` (MariaDB
    10.5+ "Application-Time Periods"), or None."""
    p.expect_punct("(")
    parts: list[KeyPart] = []
    while True:
        if p.peek(1) is not None and p.up(1) == "WITHOUT" and p.up(2) == "OVERLAPS":
            period = p.ident()
            p.expect("WITHOUT", "OVERLAPS")
            p.expect_punct(")")
            return parts, period
        if p.is_punct("("):
            p.skip_balanced()          # functional key part: a hidden column, not logged
        else:
            name = p.ident()
            prefix = None
            if p.is_punct("("):
                p.next()
                if p.peek() is None or p.peek().kind != "number" or not p.peek().text.isdigit():
                    raise p.err("key part length must be a whole number")
                prefix = int(p.next().text)
                p.expect_punct(")")
            parts.append(KeyPart(name, prefix))
        p.accept("ASC") or p.accept("DESC")
        if p.is_punct(","):
            p.next()
            continue
        p.expect_punct(")")
        return parts, None


def _parse_key(p: _P, kind: str) -> Key:
    name = None
    if not p.is_punct("(") and p.up() not in ("USING",):
        name = p.ident()
    if p.accept("USING"):
        p.next()
    parts, period = _parse_key_parts(p)
    p.skip_to_element_end()
    return Key(kind, tuple(parts), name, period)


def _period_parts(spec: TableSpec, periods: dict[str, tuple[str, str]]) -> None:
    """A ``WITHOUT OVERLAPS`` key indexes its other parts, then the period's end and start
    columns (MariaDB 10.11 SHOW INDEX of ``PRIMARY KEY (id, p WITHOUT OVERLAPS)``: id, e, s)."""
    for i, k in enumerate(spec.keys):
        if k.period is None:
            continue
        found = periods.get(k.period.lower())
        if found is None:
            raise SchemaError(f"cannot parse CREATE TABLE: {k.kind} KEY … {k.period} WITHOUT OVERLAPS names no "
                              f"PERIOD FOR of the table - at table {spec.name!r}")
        spec.keys[i] = Key(k.kind, (*k.parts, KeyPart(found[1]), KeyPart(found[0])), k.name, k.period)


_TYPE_CONT = {
    "DOUBLE": ("PRECISION",), "NATIONAL": ("CHAR", "CHARACTER", "VARCHAR", "VARCHARACTER"),
    "CHAR": ("VARYING",), "CHARACTER": ("VARYING",), "NCHAR": ("VARCHAR", "VARYING"),
    "LONG": ("VARCHAR", "VARBINARY", "CHAR"),
}


# Column attributes that only set fields of the column (the words, then (field, value) pairs).
_ATTRIBUTES: dict[tuple[str, ...], tuple[tuple[str, object], ...]] = {
    ("UNSIGNED",): (("unsigned", True),), ("SIGNED",): (), ("ZEROFILL",): (("zerofill", True),),
    ("NOT", "NULL"): (("nullable", False),), ("NULL",): (("nullable", True),),
    ("AUTO_INCREMENT",): (("auto_increment", True),),
    ("SERIAL", "DEFAULT", "VALUE"): (("nullable", False), ("auto_increment", True), ("unique", True)),
    ("ASCII",): (("charset", "latin1"),), ("UNICODE",): (("charset", "ucs2"),),
    ("BYTE",): (("charset", "binary"),), ("BINARY",): (("binary_attr", True),),
    ("INVISIBLE",): (("invisible", True),), ("VISIBLE",): (("invisible", False),),
    ("VIRTUAL",): (), ("STORED",): (), ("PERSISTENT",): (),   # of a generated column
}


def _token_sql(toks: Sequence[Tok]) -> str:
    """Tokens back to SQL text: strings quoted, words upper-case, a space only between two
    words or numbers."""
    out: list[str] = []
    prev = None
    for t in toks:
        if prev is not None and prev.kind in ("word", "number") and t.kind in ("word", "number"):
            out.append(" ")
        out.append(sql_literal(t.text) if t.kind == "string" else t.text.upper() if t.kind == "word" else t.text)
        prev = t
    return "".join(out)


_SEQUENCE_VALUE = {("NEXT", "VALUE", "FOR"): "NEXTVAL", ("PREVIOUS", "VALUE", "FOR"): "LASTVAL"}
"""MariaDB's SQL-standard sequence expressions and the function each is (MariaDB "NEXT VALUE
for sequence_name": ``NEXTVAL(s)``, "PREVIOUS VALUE FOR": ``LASTVAL(s)``; SHOW CREATE TABLE
prints a ``DEFAULT NEXT VALUE FOR s`` as ``DEFAULT nextval(`db`.`s`)``)."""


def _parse_default(p: _P) -> str:
    """The value of a column's ``DEFAULT`` as SQL text: a literal (string, number, hex or bit
    value, signed, after a charset introducer such as ``_binary``), a word (``NULL``,
    ``CURRENT_TIMESTAMP``), a function call (``CURRENT_TIMESTAMP(3)``, ``nextval(s)``), an
    expression in parentheses (MySQL 8.0.13+ / MariaDB 10.2+ ``DEFAULT (expr)``) or ``NEXT
    VALUE FOR [db.]s`` / ``PREVIOUS VALUE FOR [db.]s``, as the function call it is
    (:data:`_SEQUENCE_VALUE`)."""
    for words, function in _SEQUENCE_VALUE.items():
        if p.accept(*words):
            start = p.i
            p.ident()
            if p.is_punct("."):
                p.next()
                p.ident()
            return f"{function}({_token_sql(p.t[start:p.i])})"
    start = p.i
    while p.is_punct("-") or p.is_punct("+"):
        p.next()
    t = p.peek()
    if t is not None and t.kind == "word" and t.text.startswith("_") and p.peek(1) is not None \
            and p.peek(1).kind in ("string", "number"):
        p.next()  # a charset introducer: _binary 0x1F, _utf8mb4'x'
    p.skip_balanced()
    if p.t[p.i - 1].kind == "word" and p.is_punct("("):
        p.skip_balanced()  # a function call
    return _token_sql(p.t[start:p.i])


_OPERATOR_CHARS = frozenset("<>=!|&")


def expression_sql(toks: Sequence[Tok]) -> str:
    """Tokens of an expression back to SQL text sqlglot reads: names in backticks, strings
    quoted, operators of several characters (``>=``, ``<>``, ``!=``) kept together."""
    out: list[str] = []
    prev = None
    for t in toks:
        if prev is not None and not (prev.kind == t.kind == "punct" and prev.text in _OPERATOR_CHARS
                                     and t.text in _OPERATOR_CHARS):
            out.append(" ")
        if t.kind == "string":
            out.append(sql_literal(t.text))
        elif t.kind == "qident":
            out.append("`" + t.text.replace("`", "``") + "`")
        else:
            out.append(t.text)
        prev = t
    return "".join(out)


def _parse_check(p: _P, checks: list[Check], name: str | None, column: str | None) -> None:
    """``CHECK (expr) [[NOT] ENFORCED]`` after its ``CHECK``: kept unless NOT ENFORCED
    (MySQL 8.0 reference, "CHECK Constraints")."""
    if not p.is_punct("("):
        raise p.err("expected '(' after CHECK")
    start = p.i
    p.skip_balanced()
    sql = expression_sql(p.t[start + 1:p.i - 1])
    enforced = not p.accept("NOT", "ENFORCED")
    p.accept("ENFORCED")
    if enforced:
        checks.append(Check(name, sql, column))


def _parse_period(p: _P, spec: TableSpec) -> tuple[str, str, str]:
    """MariaDB ``PERIOD FOR name (start, end)``: an application-time period, whose rows must
    have start < end (MariaDB "Application-Time Periods"; kept as that CHECK), or ``PERIOD FOR
    SYSTEM_TIME (…)`` of a system-versioned table (its columns say ``GENERATED ALWAYS AS ROW``)."""
    p.expect("PERIOD", "FOR")
    name = p.ident()
    p.expect_punct("(")
    start = p.ident()
    p.expect_punct(",")
    end = p.ident()
    p.expect_punct(")")
    if name.upper() != "SYSTEM_TIME":
        spec.checks.append(Check(f"PERIOD FOR {name}", f"`{start}` < `{end}`"))
    return name, start, end


def literal_bytes(text: str) -> bytes:
    """The bytes a hexadecimal or bit-value literal spells, as the lexer spells it (``X'61'``,
    ``B'1100001'``): MySQL 8.0 reference, "Hexadecimal Literals" (an odd number of ``0x``
    digits has a leading 0: ``0xABC`` is ``0x0ABC``) and "Bit-Value Literals" (``b'1'`` is one
    byte 0x01, the bits right-aligned in whole bytes; ``b''`` no byte); MariaDB the same. An
    ENUM / SET member so written is these bytes read in the column's charset
    (binlogwriter/schema/validate.py ``_decode_members``)."""
    digits = text[2:-1]
    if text[0] == "X":
        return bytes.fromhex(digits.rjust(len(digits) + len(digits) % 2, "0"))
    return int(digits, 2).to_bytes((len(digits) + 7) // 8, "big") if digits else b""


def _parse_column(p: _P) -> ColSpec:
    name = p.ident()
    p.column = name
    w = p.next()
    if w.kind != "word":
        raise p.err("expected a column type")
    words = [w.upper]
    while words[-1] in _TYPE_CONT and p.up() in _TYPE_CONT[words[-1]]:
        words.append(p.next().upper)
    cs = ColSpec(name=name, words=words)
    if p.is_punct("("):
        p.next()
        while not p.is_punct(")"):
            t = p.next()
            if t.kind == "punct" and t.text == ",":
                continue
            if t.kind == "word" and t.text.startswith("_") and p.peek() and p.peek().kind == "string":
                continue                     # charset introducer before a member literal
            if t.kind == "string" and cs.args and p.peek(-2) is not None and p.peek(-2).kind == "string":
                cs.args[-1] += t.text       # adjacent literals concatenate
                continue
            cs.args.append(literal_bytes(t.text) if t.kind == "number" and t.text[:2] in ("X'", "B'") else t.text)
        p.next()
    while not (p.is_punct(",") or p.is_punct(")")):
        u = p.up()
        words = next((w for w in _ATTRIBUTES if p.accept(*w)), None)
        if words is not None:
            for attr, value in _ATTRIBUTES[words]:
                setattr(cs, attr, value)
        elif p.accept("DEFAULT"):
            cs.default = _parse_default(p)
        elif p.accept("UNIQUE"):
            cs.unique = True
            p.accept("KEY")
        elif p.accept("PRIMARY", "KEY") or p.accept("KEY"):
            cs.primary = True
        elif p.accept("COMMENT"):
            p.next()
        elif p.accept("COLLATE"):
            cs.collation = p.ident()
        elif p.accept("CHARACTER", "SET") or p.accept("CHARSET") or p.accept("CHAR", "SET"):
            cs.charset = p.ident()
        elif u in ("COLUMN_FORMAT", "STORAGE", "SRID", "ENGINE_ATTRIBUTE",
                   "SECONDARY_ENGINE_ATTRIBUTE"):
            p.next()
            p.maybe_eq()
            p.next()
        elif p.accept("ON", "UPDATE"):
            cs.on_update = _parse_default(p)
        elif p.accept("GENERATED", "ALWAYS") or u == "AS":
            p.expect("AS")
            if not (p.accept("ROW", "START") or p.accept("ROW", "END")):  # MariaDB: a system-time column
                p.skip_balanced()
            cs.generated = True
        elif p.accept("COMPRESSED"):
            cs.compressed = True
            if p.is_punct("="):
                p.next()
                p.next()
        elif p.accept("WITHOUT", "SYSTEM", "VERSIONING") or p.accept("WITH", "SYSTEM", "VERSIONING"):
            pass  # MariaDB: whether the column is versioned; its value and binlog type do not change
        elif p.accept("CONSTRAINT"):
            cons = None if p.up() == "CHECK" else p.ident()
            p.expect("CHECK")
            _parse_check(p, cs.checks, cons, name)
        elif p.accept("CHECK"):
            _parse_check(p, cs.checks, None, name)
        elif p.accept("REFERENCES"):
            p.skip_to_element_end()
        else:
            raise p.err("unknown column attribute")
    p.column = None
    return cs


_TABLE_OPTIONS = frozenset({
    "ENGINE", "TYPE", "AUTO_INCREMENT", "AVG_ROW_LENGTH", "CHECKSUM", "TABLE_CHECKSUM", "COMMENT",
    "COMPRESSION", "CONNECTION", "DELAY_KEY_WRITE", "ENCRYPTION", "ENCRYPTED", "ENCRYPTION_KEY_ID",
    "ENGINE_ATTRIBUTE", "SECONDARY_ENGINE", "SECONDARY_ENGINE_ATTRIBUTE", "INSERT_METHOD",
    "KEY_BLOCK_SIZE", "MAX_ROWS", "MIN_ROWS", "PACK_KEYS", "PAGE_CHECKSUM", "PAGE_COMPRESSED",
    "PAGE_COMPRESSION_LEVEL", "PASSWORD", "ROW_FORMAT", "SEQUENCE", "STATS_AUTO_RECALC",
    "STATS_PERSISTENT", "STATS_SAMPLE_PAGES", "TABLESPACE", "TRANSACTIONAL", "UNION",
    "AUTOEXTEND_SIZE", "IETF_QUOTES",
})
"""Table options taking a value (``name [=] value``) of MySQL 8.0 / 8.4 (reference, "CREATE
TABLE Statement", ``table_option``) and MariaDB 10.11 ("CREATE TABLE", "Table Options", and the
options InnoDB, Aria and CSV define: ``PAGE_COMPRESSED``, ``ENCRYPTED``, ``TRANSACTIONAL``,
``IETF_QUOTES``, …). The others, read by :func:`_table_option`: ``[DEFAULT] CHARACTER SET`` /
``CHARSET`` / ``COLLATE``, ``{DATA|INDEX} DIRECTORY``, ``START TRANSACTION``, ``STORAGE
{DISK|MEMORY}`` (MySQL), ``STORAGE ENGINE`` (MariaDB), ``WITH SYSTEM VERSIONING`` (MariaDB)."""

_QUERY_START = frozenset({"PARTITION", "AS", "SELECT", "IGNORE", "REPLACE", "WITH", "TABLE", "VALUES"})
"""Where the options end: the partitioning, or ``[IGNORE|REPLACE] [AS] query`` (MySQL 8.0
``CREATE TABLE … SELECT``: ``SELECT``, ``WITH``, ``TABLE``, ``VALUES`` or ``(``)."""

_STATEMENTS = frozenset({"CREATE", "ALTER", "DROP", "INSERT", "TRUNCATE", "RENAME", "GRANT", "DELIMITER"})
"""Words that begin another statement and never a part of this one outside parentheses (an
``INSERT(…)`` is a function): a ``;`` is missing before them."""


def _table_option(p: _P, spec: TableSpec, strict: bool) -> bool:
    """Read one table option (its words and value), or return False where the options end
    (:data:`_QUERY_START`). ``strict``: any other word is an error naming it — both servers
    refuse it (ERROR 1064; MariaDB's ``name = value`` engine options, ERROR 1911 "Unknown
    option"), and a word left unread would be copied into snapshot.sql."""
    if p.is_punct(";"):  # the statement's own end (Table.from_sql of "CREATE TABLE … ;")
        return False
    if p.is_punct(","):  # table_option [[,] table_option] …
        p.next()
    elif p.accept("DEFAULT"):
        pass
    elif p.accept("CHARACTER", "SET") or p.accept("CHARSET") or p.accept("CHAR", "SET"):
        p.maybe_eq()
        spec.charset = p.ident()
    elif p.accept("COLLATE"):
        p.maybe_eq()
        spec.collation = p.ident()
    elif p.accept("WITH", "SYSTEM", "VERSIONING") or p.accept("START", "TRANSACTION") \
            or p.accept("STORAGE", "DISK") or p.accept("STORAGE", "MEMORY"):
        pass
    elif p.is_punct("(") or p.up() in _QUERY_START and not (p.up() == "REPLACE" and p.up(1) == "INTO"):
        return False
    elif not strict:
        p.skip_balanced()
    elif p.up() in _STATEMENTS or p.up() == "REPLACE":
        raise p.err(f"a ';' is missing before {p.up()} (another statement begins)")
    elif p.accept("DATA", "DIRECTORY") or p.accept("INDEX", "DIRECTORY"):
        p.maybe_eq()
        p.next()
    else:
        _valued_option(p)
    return True


def _valued_option(p: _P) -> None:
    """One option of :data:`_TABLE_OPTIONS`: ``[STORAGE] name [=] value``, the value a token
    or a parenthesised list (``UNION = (t1, t2)``); ``TABLESPACE name [STORAGE {DISK|MEMORY}]``.
    One string only: MariaDB 10.11 refuses ``COMMENT 'a' 'b'`` (ERROR 1064)."""
    if p.up() == "STORAGE" and p.up(1) == "ENGINE":
        p.next()  # MariaDB: [STORAGE] ENGINE
    t = p.peek()
    if t is None or t.kind != "word" or t.upper not in _TABLE_OPTIONS:
        raise p.err("not a table option of MySQL 8.0 / 8.4 or MariaDB 10.11")
    p.next()
    p.maybe_eq()
    p.skip_balanced()
    if t.upper == "TABLESPACE" and not p.accept("STORAGE", "DISK"):
        p.accept("STORAGE", "MEMORY")


def _parse_table_options(p: _P, spec: TableSpec, strict: bool = True) -> None:
    while p.peek() is not None and _table_option(p, spec, strict):
        pass
    depth, start = 0, p.i
    for j in range(start, len(p.t) if strict else start):  # the partitioning / query
        t = p.t[j]
        if t.kind == "punct" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif depth == 0 and t.upper in _STATEMENTS and not p.is_punct("(", j + 1 - start):
            p.i = j
            raise p.err(f"a ';' is missing before {t.upper} (another statement begins)")


def check_table_options(toks: Sequence[Tok]) -> None:
    """The table options of a ``CREATE TABLE … ( … ) options`` whichever parser reads it
    (binlogwriter/schema/statements.py ``check_statement``): a word that is no table option
    is an error (:func:`_table_option`), so is a following statement without its ``;``.
    Other forms (``LIKE``, no column list, text the parsers refuse) are left to the parsers."""
    p = _P(toks)
    try:
        p.table = _table_head(p)[1]
        if not p.is_punct("(") or p.up(1) == "LIKE":
            return
        p.skip_balanced()
    except SchemaError:
        return
    _parse_table_options(p, TableSpec(None, p.table, [], []))


def _table_head(p: _P) -> tuple[str | None, str]:
    """``CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] [db.]name``: (db, name)."""
    p.expect("CREATE")
    p.accept("OR", "REPLACE")
    p.accept("TEMPORARY")
    p.expect("TABLE")
    p.accept("IF", "NOT", "EXISTS")
    db, name = None, p.ident()
    if p.is_punct("."):
        p.next()
        db, name = name, p.ident()
    return db, name


def parse_create_fallback(toks: Sequence[Tok]) -> TableSpec:
    p = _P(toks)
    db, name = _table_head(p)
    p.table = name
    if not p.is_punct("("):
        raise p.err("only CREATE TABLE with a column list is supported (not LIKE / AS SELECT)")
    p.next()
    spec = TableSpec(db, name, [], [])
    periods: dict[str, tuple[str, str]] = {}
    while True:
        u = p.up()
        cons = None
        if p.accept("CONSTRAINT"):
            if p.up() not in ("PRIMARY", "UNIQUE", "FOREIGN", "CHECK"):
                cons = p.ident()
            u = p.up()
        if p.accept("PRIMARY", "KEY"):
            spec.keys.append(_parse_key(p, "PRIMARY"))
        elif p.accept("UNIQUE"):
            p.accept("INDEX") or p.accept("KEY")
            spec.keys.append(_parse_key(p, "UNIQUE"))
        elif u in ("INDEX", "KEY") and p.peek() is not None and p.peek().kind == "word":
            p.next()
            spec.keys.append(_parse_key(p, "INDEX"))
        elif u in ("FULLTEXT", "SPATIAL") and p.peek().kind == "word":
            p.next()
            p.accept("INDEX") or p.accept("KEY")
            spec.keys.append(_parse_key(p, u))
        elif u == "PERIOD" and p.up(1) == "FOR":
            period, start, end = _parse_period(p, spec)
            periods[period.lower()] = (start, end)
        elif u == "CHECK" and p.is_punct("(", 1):
            p.next()
            _parse_check(p, spec.checks, cons, None)
        elif u == "FOREIGN" and p.peek().kind == "word":
            p.skip_to_element_end()
        else:
            spec.columns.append(_parse_column(p))
        if p.is_punct(","):
            p.next()
            continue
        p.expect_punct(")")
        break
    _period_parts(spec, periods)
    _parse_table_options(p, spec)
    return spec


def parse_create_database(toks: Sequence[Tok]) -> tuple[str, str | None, str | None]:
    p = _P(toks)
    p.expect("CREATE")
    p.next()
    p.accept("IF", "NOT", "EXISTS")
    name = p.ident()
    spec = TableSpec(None, name, [], [])
    _parse_table_options(p, spec, strict=False)
    return name, spec.charset, spec.collation
