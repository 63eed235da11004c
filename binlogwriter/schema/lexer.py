"""MySQL lexical rules, for what sqlglot's parse tree does not give us: statement splitting
with source positions (errors name the script line), ``/*! … */`` executable comments, and the
words after which sqlglot's MySQL dialect fails or loses meaning (:data:`_LOSSY`, each case
shown in tests/schema/test_schema_sqlglot_gaps.py) so the statement goes to the fallback parser.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from binlogwriter.errors import SchemaError

__all__ = ["Tok", "tokenize", "split_statements", "statement_spans", "split_commas", "LOSSY", "sqlglot_lossy"]


@dataclass(frozen=True)
class Tok:
    kind: str   # word | qident | string | number | punct
    text: str
    pos: int
    end: int
    quote: str = ""  # of a string: ' or " (a double-quoted "name" is a string unless ANSI_QUOTES)

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""


_ESC = {"0": "\x00", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a",
        "%": "\\%", "_": "\\_"}
"""MySQL string escapes; ``\\%`` and ``\\_`` keep their backslash, others drop it."""
_NUM_RE = re.compile(r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+")
_WORD_RE = re.compile(r"[\w$]+")
_BITS_RE = re.compile(r"([xX])'([0-9a-fA-F]*)'|([bB])'([01]*)'|0x([0-9a-fA-F]+)(?![\w$])|0b([01]+)(?![\w$])")
"""Hexadecimal and bit-value literals (MySQL 8.0 reference, "Hexadecimal Literals" and
"Bit-Value Literals"; MariaDB the same): ``X'1F'``, ``x'1f'``, ``0x1F`` and ``B'101'``,
``b'101'``, ``0b101``. The ``0x`` / ``0b`` forms are case-sensitive (``0X1F`` is a name)."""


def _bits_token(m: re.Match) -> Tok:
    """A hex or bit literal as a ``number`` token spelled as sqlglot spells it (``X'1F'``,
    ``B'101'``), so both parsers keep the same DEFAULT text."""
    hexd = m.group(2) if m.group(1) else m.group(5)
    if hexd is not None:
        return Tok("number", f"X'{hexd.upper()}'", m.start(), m.end())
    return Tok("number", f"B'{m.group(4) if m.group(3) else m.group(6)}'", m.start(), m.end())


def tokenize(sql: str) -> list[Tok]:
    """MySQL lexer: quoted strings (\\-escapes and doubled quotes), `identifiers`,
    comments (``#``, ``-- ``, ``/* */``; ``/*! … */`` contents are SQL), numbers, words."""
    out: list[Tok] = []
    i, n, versioned = 0, len(sql), 0
    while i < n:
        ch = sql[i]
        if ch.isspace():
            i += 1
            continue
        if sql.startswith("/*!", i) or sql.startswith("/*M!", i):
            i += 3 if sql[i + 2] == "!" else 4
            while i < n and sql[i].isdigit():
                i += 1
            versioned += 1
            continue
        if versioned and sql.startswith("*/", i):
            versioned -= 1
            i += 2
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch == "#" or (sql.startswith("--", i) and (i + 2 >= n or sql[i + 2] in " \t\r\n")):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        m = _BITS_RE.match(sql, i) if ch in "xXbB0" else None
        if m and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] in "_$")):
            if m.group(1) and len(m.group(2)) % 2:
                raise SchemaError(f"hexadecimal literal {m.group()} needs an even number of digits", pos=i)
            out.append(_bits_token(m))
            i = m.end()
            continue
        if ch in "'\"`":
            q, j, buf = ch, i + 1, []
            while True:
                if j >= n:
                    raise SchemaError(f"unterminated quoted text starting with {sql[i:i + 20]!r}", pos=i)
                c = sql[j]
                if c == "\\" and q != "`" and j + 1 < n:
                    nxt = sql[j + 1]
                    buf.append(_ESC.get(nxt, nxt))
                    j += 2
                    continue
                if c == q:
                    if j + 1 < n and sql[j + 1] == q:
                        buf.append(q)
                        j += 2
                        continue
                    break
                buf.append(c)
                j += 1
            out.append(Tok("qident" if q == "`" else "string", "".join(buf), i, j + 1, "" if q == "`" else q))
            i = j + 1
            continue
        m = _NUM_RE.match(sql, i) if (ch.isdigit() or ch == ".") else None
        if m and not (ch.isdigit() and _WORD_RE.match(sql, i).end() > m.end()):  # type: ignore[union-attr]
            out.append(Tok("number", m.group(), i, m.end()))
            i = m.end()
            continue
        m = _WORD_RE.match(sql, i)
        if m:
            out.append(Tok("word", m.group(), i, m.end()))
            i = m.end()
            continue
        out.append(Tok("punct", ch, i, i + 1))
        i += 1
    return out


_DELIMITER_RE = re.compile(r"^[ \t]*delimiter[ \t]+\S", re.IGNORECASE | re.MULTILINE)


def statement_spans(sql: str, comments: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each statement of a script, as the ``mysql`` / ``mariadb`` client
    sends them: cut at the delimiter outside quotes (``'…'``, ``"…"`` with backslash escapes and
    doubled quotes; backquoted names) and comments (``#``, ``-- ``, ``/* */``; a ``/*! … */``
    executable comment is SQL), the delimiter being ``;`` until a ``DELIMITER x`` line (a
    client command, first on its line at the start of a statement; its own line is no
    statement) sets another — so a routine or trigger body (``BEGIN … ; … END$$``) is one
    statement, as mysqldump and Workbench write them (other text holding ``;`` under another
    delimiter is cut at each ``;``: the client sends it as one query of several statements,
    which the server runs one by one). Spans hold no delimiter; blank ones are
    left out. The one rule of where a statement ends (:func:`split_statements`,
    generators/workloads/custom.py). ``comments``: gets the ``(start, end)`` of every comment
    (a ``#`` / ``-- `` one with its line's end)."""
    out: list[tuple[int, int]] = []
    delim, start, i, n = ";", 0, 0, len(sql)
    semis: list[int] = []  # the top-level ";" of the statement read so far (another delimiter set)

    def cut(end: int, nxt: int) -> None:
        nonlocal start
        if sql[start:end].strip():
            if semis and not _compound(sql[start:end]):  # sent as one query: the server runs each
                for at in [*semis, end]:
                    if sql[start:at].strip():
                        out.append((start, at))
                    start = at + 1
            else:
                out.append((start, end))
        start = nxt
        semis.clear()

    while i < n:
        ch = sql[i]
        if ch in "'\"`":
            j = i + 1
            while j < n:
                if sql[j] == "\\" and ch != "`":
                    j += 2
                    continue
                if sql[j] == ch:
                    if j + 1 < n and sql[j + 1] == ch:
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
            continue
        if sql.startswith("--", i) and (i + 2 >= n or sql[i + 2] in " \t\n\r") or ch == "#":
            j = sql.find("\n", i)
            j = n if j < 0 else j + 1
        elif sql.startswith("/*", i) and not sql.startswith("/*!", i) and not sql.startswith("/*M!", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
        else:
            j = -1
        if j >= 0:
            if comments is not None:
                comments.append((i, j))
            i = j
            continue
        if sql.startswith(delim, i):
            cut(i, i + len(delim))
            i += len(delim)
            continue
        if ch == ";":
            semis.append(i)
        if ch in "dD" and not sql[(ls := sql.rfind("\n", 0, i) + 1):i].strip() \
                and _DELIMITER_RE.match(sql, ls) and not _code(sql, start, i):
            eol = sql.find("\n", i)
            eol = n if eol < 0 else eol
            delim = sql[i:eol].split()[1]
            cut(i, eol)
            start = eol
            i = eol
            continue
        i += 1
    cut(n, n)
    return out


_ROUTINES = frozenset({"PROCEDURE", "FUNCTION", "TRIGGER", "EVENT", "PACKAGE"})
_BLOCKS = frozenset({"BEGIN", "DECLARE", "IF", "WHILE", "REPEAT", "LOOP", "CASE", "FOR"})


def _compound(text: str) -> bool:
    """Whether a statement read under another delimiter than ``;`` is one the server reads
    whole, ``;`` and all: a stored routine, trigger or event (``CREATE [DEFINER = …]
    PROCEDURE …``) or a compound block. Anything else holding ``;`` is several statements
    sent in one query (a ``DELIMITER //`` never used again), each of which the server runs."""
    try:
        words = [t.upper for t in tokenize(text)[:16] if t.kind == "word"]
    except SchemaError:
        return True
    return bool(words) and (words[0] in _BLOCKS or (words[0] == "CREATE" and bool(_ROUTINES & set(words[1:]))))


def _code(sql: str, start: int, i: int) -> bool:
    """Whether ``sql[start:i]`` holds anything but blanks and comments (a statement begun)."""
    try:
        return bool(tokenize(sql[start:i]))
    except SchemaError:
        return True


def split_statements(sql: str) -> list[tuple[str, list[Tok]]]:
    """Each statement of a script as (its text, its tokens at their positions in ``sql``),
    cut as :func:`statement_spans` says."""
    if _DELIMITER_RE.search(sql):  # a client DELIMITER command: cut by the spans, each read alone
        return [(sql[a + toks[0].pos:a + toks[-1].end], [Tok(t.kind, t.text, t.pos + a, t.end + a, t.quote) for t in toks])
                for a, b in statement_spans(sql) if (toks := tokenize(sql[a:b]))]
    toks = tokenize(sql)
    out: list[tuple[str, list[Tok]]] = []
    cur: list[Tok] = []
    for t in toks + [Tok("punct", ";", len(sql), len(sql))]:
        if t.kind == "punct" and t.text == ";":
            if cur:
                out.append((sql[cur[0].pos:cur[-1].end], cur))
            cur = []
        else:
            cur.append(t)
    return out


def split_commas(toks: Sequence[Tok]) -> list[list[Tok]]:
    """``toks`` cut at their top-level commas (outside parentheses), empty pieces left out: a
    definition list, an ALTER TABLE's clauses, a partition's values."""
    out: list[list[Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "punct" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        if depth == 0 and t.kind == "punct" and t.text == ",":
            out.append([])
        else:
            out[-1].append(t)
    return [p for p in out if p]


LOSSY = frozenset({"LONG", "INT8"})
"""Words sqlglot's MySQL dialect reads *silently wrong*: ``LONG`` (MySQL: MEDIUMTEXT; sqlglot:
BIGINT) and ``INT8`` (MySQL: BIGINT; sqlglot: an 8-bit TINYINT). Everything else sqlglot
cannot map (REAL, FLOAT, DOUBLE, YEAR, BOOL, geometry types, NATIONAL CHAR, SERIAL, INET6,
generated columns, CHECK, FOREIGN KEY, …) makes :func:`_parse_with_sqlglot` return None, and
the fallback reads the statement. tests/schema/test_schema_sqlglot_gaps.py shows each case."""


def sqlglot_lossy(toks: Sequence[Tok], text: str = "") -> bool:
    """True when sqlglot's AST would lose meaning: a word of :data:`_LOSSY`, or a ``/*! … */``
    executable comment (SQL the server runs; sqlglot drops it as a comment)."""
    return "/*!" in text or "/*M!" in text or any(t.upper in LOSSY for t in toks)
