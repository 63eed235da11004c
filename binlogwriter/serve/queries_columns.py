"""``SELECT … FROM information_schema.COLUMNS [alias] [WHERE …] [ORDER BY …] [LIMIT n]`` over
the served run's columns (columns_catalog.py; part of queries_catalog.py).

What is evaluated (MySQL reference manual "SELECT Statement"): select items that are
``information_schema.COLUMNS`` columns (optionally qualified, back-quoted, aliased); a WHERE of
conditions joined by AND, each ``column = literal``, ``column LIKE 'pattern'`` or ``column IN
(literal, …)`` (TABLE_SCHEMA and TABLE_NAME compare exactly, as the servers compare file names
on Linux; other text case-insensitively, as their ``_general_ci`` / ``_tolower_ci`` columns);
``ORDER BY column [ASC|DESC], …`` and ``LIMIT n``. Without ORDER BY rows come by schema, table
and ORDINAL_POSITION, as the servers list them. An unaliased column is named in upper case on
MySQL (its information_schema tables are views with upper-case column names) and as written
on MariaDB. A column the table has but serve does not answer, or a clause it cannot evaluate,
gets ER_PARSE_ERROR naming it: never rows that might be wrong.
"""

from __future__ import annotations

import re

from binlogwriter.serve.columns_catalog import COLUMNS, NUMERIC_COLUMNS
from binlogwriter.serve.protocol import result_set
from binlogwriter.serve.query_errors import ER_PARSE_ERROR, QueryError, literal, split_top
from binlogwriter.serve.sqltext import UnterminatedText, like, quoted_end

__all__ = ["columns_select"]

ER_BAD_FIELD_ERROR = 1054
_EXACT = frozenset({"TABLE_SCHEMA", "TABLE_NAME"})
_IDENT = re.compile(r"(?:`?\w+`?\s*\.\s*)*`?(\w+)`?")
_ITEM = re.compile(r"(?s)(.*?)\s+(?:AS\s+)?(`[^`]+`|'[^']+'|\"[^\"]+\"|\w+)")


def _column(ident: str) -> str:
    """The COLUMNS column an identifier names (``c.table_name`` -> ``TABLE_NAME``)."""
    m = _IDENT.fullmatch(ident.strip())
    if m is None:
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve cannot evaluate {ident.strip()[:200]!r} "
                         "over information_schema.COLUMNS", "42000")
    name = m.group(1).upper()
    if name not in COLUMNS:
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve does not answer column {name} of "
                         "information_schema.COLUMNS", "42000")
    return name


def _keyword_at(text: str, words: tuple[str, ...]) -> list[tuple[int, str]]:
    """(offset, keyword) of each top-level ``words`` keyword of ``text`` (outside quotes and
    parentheses), in order."""
    out, i, depth, up = [], 0, 0, text.upper()
    while i < len(text):
        c = text[i]
        if c in "'\"`":
            i = quoted_end(text, i)
            continue
        depth += (c == "(") - (c == ")")
        if depth == 0 and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            for w in words:
                j = i + len(w)
                if up.startswith(w, i) and (j == len(text) or not (text[j].isalnum() or text[j] == "_")):
                    out.append((i, w))
                    break
        i += 1
    return out


def _value(text: str) -> object:
    t = text.strip()
    if re.fullmatch(r"[-+]?\d+", t):
        return int(t)
    if t.upper() == "NULL":
        return None
    return literal(t, "information_schema.COLUMNS WHERE")


def _same(col: str, have: object, want: object) -> bool:
    if have is None or want is None:
        return False
    if col in NUMERIC_COLUMNS:
        try:
            return int(have) == int(want)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            return False
    return str(have) == str(want) if col in _EXACT else str(have).casefold() == str(want).casefold()


def _condition(cond: str):
    """A predicate over a row for one WHERE condition (module docstring)."""
    c = cond.strip()
    while c.startswith("(") and c.endswith(")"):
        c = c[1:-1].strip()
    m = _IDENT.match(c)
    o = re.match(r"\s*(=|LIKE\b|IN\b)\s*", c[m.end():], re.I) if m else None
    if m is None or o is None:
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve cannot evaluate WHERE {c[:200]!r} "
                         "over information_schema.COLUMNS", "42000")
    col, op, rest = _column(m.group(0)), o.group(1).upper(), c[m.end() + o.end():].strip()
    if op == "=":
        want = _value(rest)
        return lambda row: _same(col, row[col], want)
    if op == "LIKE":
        pat = literal(rest, "information_schema.COLUMNS WHERE … LIKE")
        return lambda row: row[col] is not None and like(str(row[col]), pat)
    if not (rest.startswith("(") and rest.endswith(")")):
        raise QueryError(ER_PARSE_ERROR, f"cannot parse IN {rest[:200]!r}", "42000")
    wants = [_value(v) for v in split_top(rest[1:-1])]
    return lambda row: any(_same(col, row[col], w) for w in wants)


def _order(text: str) -> list[tuple[str, bool]]:
    out = []
    for part in split_top(text):
        m = re.fullmatch(r"(?is)(.*?)(?:\s+(ASC|DESC))?", part.strip())
        assert m is not None
        out.append((_column(m.group(1)), (m.group(2) or "").upper() == "DESC"))
    return out


def _sorted(rows: list[dict], keys: list[tuple[str, bool]]) -> list[dict]:
    for col, desc in reversed(keys):  # stable sorts, last key first
        rows = sorted(rows, key=lambda r: (r[col] is not None, r[col] if r[col] is not None else 0), reverse=desc)
    return rows


def columns_select(items: str, tail: str, rows: list[dict[str, object]], *, mariadb: bool) -> list[bytes]:
    """The result set of ``SELECT <items> FROM information_schema.COLUMNS<tail>`` over
    ``rows`` (columns_catalog.column_rows)."""
    try:
        marks = _keyword_at(tail, ("WHERE", "ORDER BY", "LIMIT"))
    except UnterminatedText as exc:
        raise QueryError(ER_PARSE_ERROR, f"You have an error in your SQL syntax: {exc}", "42000") from None
    clauses: dict[str, str] = {}
    for n, (at, word) in enumerate(marks):
        end = marks[n + 1][0] if n + 1 < len(marks) else len(tail)
        clauses[word] = tail[at + len(word): end].strip()
    head = tail[: marks[0][0] if marks else len(tail)].strip()
    if head and not re.fullmatch(r"(?i)(?:AS\s+)?`?\w+`?", head):  # an alias, nothing else
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve cannot evaluate {head[:200]!r} "
                         "after FROM information_schema.COLUMNS", "42000")
    selected: list[tuple[str, str]] = []
    for item in split_top(items):
        m = _ITEM.fullmatch(item.strip())
        expr, alias = (m.group(1), m.group(2).strip("`'\"")) if m else (item, None)
        col = _column(expr)
        shown = alias or (col if not mariadb else _IDENT.fullmatch(expr.strip()).group(1))  # type: ignore[union-attr]
        selected.append((col, shown))
    out = list(rows)
    if "WHERE" in clauses:
        where = clauses["WHERE"]
        cuts = [at for at, _w in _keyword_at(where, ("AND",))]
        parts = [where[a:b] for a, b in zip([0] + [c + 3 for c in cuts], cuts + [len(where)], strict=True)]
        for pred in [_condition(c) for c in parts]:
            out = [r for r in out if pred(r)]
    if "ORDER BY" in clauses:
        out = _sorted(out, _order(clauses["ORDER BY"]))
    if "LIMIT" in clauses:
        if not re.fullmatch(r"\d+", clauses["LIMIT"]):
            raise QueryError(ER_PARSE_ERROR, f"cannot parse LIMIT {clauses['LIMIT'][:100]!r}", "42000")
        out = out[: int(clauses["LIMIT"])]
    return result_set([s for _c, s in selected], [[r[c] for c, _s in selected] for r in out],
                      numeric=[c in NUMERIC_COLUMNS for c, _s in selected])
