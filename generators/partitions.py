"""Partitioned tables of a custom schema (``--schema FILE.sql``): rows the server can place.

A server refuses a row no partition takes (ERROR 1526 "Table has no partition for value …",
MySQL 8.0 reference "Partitioning" and MariaDB "Partitioning Types", both servers alike):

* ``PARTITION BY [LINEAR] HASH / KEY`` and MariaDB's ``SYSTEM_TIME`` take every row;
* ``RANGE (expr)`` / ``RANGE COLUMNS (c, …)`` take every row below the last partition's
  bound: all rows when that bound is ``MAXVALUE``; else the rows must stay below it;
* ``LIST (expr)`` / ``LIST COLUMNS (c)`` take the values listed (NULL only where a list
  holds NULL).

:func:`partition_checks` turns the last two into the CHECK-like condition a row must meet,
read by the same rules as a CHECK constraint (generators/checks.py: a column compared with
constants, ``IN`` lists). A listed column that is part of a key with another column takes
the listed values from the row key (generators/workloads/custom.py ``listed_key``), an
integer, DATE, DATETIME or TIMESTAMP one below a bound the first key values under it
(``TableDef.key_caps``, generators/key_space.py ``counts_up``); what those rules cannot
follow — an expression other than a column or ``YEAR`` / ``TO_DAYS`` / ``TO_SECONDS`` /
``UNIX_TIMESTAMP`` of a temporal column (read as the column below the first instant the
function reaches the bound), ``LIST COLUMNS`` over several
columns, a bound on another key column, a listed column that is a whole key — is a
one-line :class:`~binlogwriter.errors.SchemaError` naming the partitioning and the table,
as for a CHECK constraint.
"""

from __future__ import annotations

import datetime as dt

from binlogwriter.errors import SchemaError
from binlogwriter.schema import Check, Table
from binlogwriter.schema.fallback import expression_sql
from binlogwriter.schema.lexer import Tok, split_commas, tokenize

__all__ = ["partition_checks", "PARTITIONING"]

PARTITIONING = "PARTITION BY"
"""The name of the checks :func:`partition_checks` makes (generators/checks.py words its
errors from it)."""


def partition_checks(table: Table, create_sql: str) -> tuple[Check, ...]:
    """The conditions the rows of ``table`` (its CREATE TABLE text ``create_sql``) must meet to
    find a partition (module docstring): none, or one :class:`Check` named
    :data:`PARTITIONING`."""
    toks = tokenize(create_sql)
    at = _partition_by(toks)
    if at is None:
        return ()
    i = at + 2
    if i < len(toks) and toks[i].upper == "LINEAR":
        i += 1
    kind = toks[i].upper if i < len(toks) else ""
    if kind not in ("RANGE", "LIST"):
        return ()
    i += 1
    columns = i < len(toks) and toks[i].upper == "COLUMNS"
    i += columns
    expr, i = _group(toks, i)
    target = expression_sql(expr)
    where = f"{PARTITIONING} {kind}{' COLUMNS' if columns else ''} ({target}) of table {table.database}.{table.name}"
    parts = _definitions(toks, i)
    last = parts[-1] if parts else []  # the last partition's values (RANGE: its bound)
    if columns and len(split_commas(expr)) > 1:
        if kind == "RANGE" and last and last[0][0].upper == "MAXVALUE":
            return ()
        raise SchemaError(f"{where} cannot be followed by the generator: it partitions by several columns")
    if kind == "RANGE":
        if not last or any(t.upper == "MAXVALUE" for t in last[0]):
            return ()
        bound = _temporal_bound(table, expr, last[0])
        if bound is not None:
            return bound
        return (Check(PARTITIONING, f"{target} < {expression_sql(last[0])}"),)
    values = [v for vals in parts for v in vals]
    nulls = [v for v in values if len(v) == 1 and v[0].upper == "NULL"]
    listed = ", ".join(expression_sql(v) for v in values if v not in nulls)
    if not listed:
        return (Check(PARTITIONING, f"{target} IS NULL"),)
    cond = f"{target} IN ({listed})"
    return (Check(PARTITIONING, f"{cond} OR {target} IS NULL" if nulls else f"{target} IS NOT NULL AND {cond}"),)


_TO_DAYS_EPOCH = 365
"""``TO_DAYS(d)`` is ``d.toordinal() + 365`` (MySQL 8.0 reference: TO_DAYS('2007-10-07') is
733321; Python's ordinal of that day is 732956)."""


def _first_past(func: str, n: int) -> dt.datetime | None:
    """The first instant ``x`` with ``func(x) >= n`` for a function that grows with time
    (MySQL 8.0 reference "Date and Time Functions"): ``YEAR``, ``TO_DAYS``, ``TO_SECONDS``,
    ``UNIX_TIMESTAMP`` (of a UTC TIMESTAMP, the generator's session time zone); None when no
    DATETIME reaches it (every value is below)."""
    try:
        if func == "YEAR":
            return dt.datetime(max(n, 1), 1, 1)
        if func == "TO_DAYS":
            return dt.datetime.combine(dt.date.fromordinal(max(n - _TO_DAYS_EPOCH, 1)), dt.time())
        if func == "TO_SECONDS":
            days, secs = divmod(n, 86400)
            return (dt.datetime.combine(dt.date.fromordinal(max(days - _TO_DAYS_EPOCH, 1)), dt.time())
                    + dt.timedelta(seconds=secs))
        return dt.datetime(1970, 1, 1) + dt.timedelta(seconds=n)  # UNIX_TIMESTAMP
    except (OverflowError, ValueError):
        return None


def _temporal_bound(table: Table, expr: list[Tok], bound: list[Tok]) -> tuple[Check, ...] | None:
    """``RANGE (YEAR(d))`` / ``TO_DAYS`` / ``TO_SECONDS`` / ``UNIX_TIMESTAMP`` of a temporal
    column below an integer bound, as the condition on the column itself: ``YEAR(d) < 2025``
    holds exactly when ``d < '2025-01-01'`` (each function grows with time), which the CHECK
    rules follow (a DATE takes the first day the function reaches the bound, rounded up).
    None for any other expression."""
    words = [t for t in expr if t.kind != "punct"]
    if (len(words) != 2 or len(expr) != 4 or words[0].upper not in ("YEAR", "TO_DAYS", "TO_SECONDS",
                                                                       "UNIX_TIMESTAMP")
            or len(bound) != 1 or bound[0].kind != "number" or not bound[0].text.isdigit()):
        return None
    col = next((c for c in table.columns if c.name.lower() == words[1].text.lower()), None)
    if col is None or col.type not in ("DATE", "DATETIME", "TIMESTAMP"):
        return None
    first = _first_past(words[0].upper, int(bound[0].text))
    if first is None or first.year > 9999:
        return ()
    if col.type == "DATE":
        day = first.date() + dt.timedelta(days=1 if first.time() != dt.time() else 0)
        literal = day.isoformat()
    else:
        literal = first.strftime("%Y-%m-%d %H:%M:%S")
    return (Check(PARTITIONING, f"`{col.name}` < '{literal}'"),)


def _partition_by(toks: list[Tok]) -> int | None:
    """Index of the table's ``PARTITION BY`` (outside every parenthesis), or None."""
    depth = 0
    for i, t in enumerate(toks):
        if t.text == "(" and t.kind == "punct":
            depth += 1
        elif t.text == ")" and t.kind == "punct":
            depth -= 1
        elif depth == 0 and t.upper == "PARTITION" and i + 1 < len(toks) and toks[i + 1].upper == "BY":
            return i
    return None


def _group(toks: list[Tok], i: int) -> tuple[list[Tok], int]:
    """The tokens inside the parenthesis opening at ``toks[i]``, and the index after it."""
    if i >= len(toks) or toks[i].text != "(":
        raise SchemaError("PARTITION BY: expected a parenthesised expression")
    depth, j = 0, i
    while j < len(toks):
        t = toks[j]
        if t.kind == "punct" and t.text == "(":
            depth += 1
        elif t.kind == "punct" and t.text == ")":
            depth -= 1
            if depth == 0:
                return toks[i + 1:j], j + 1
        j += 1
    raise SchemaError("PARTITION BY: unbalanced parentheses")


def _definitions(toks: list[Tok], i: int) -> list[list[list[Tok]]]:
    """The partition definitions after the partitioning expression (past ``PARTITIONS n`` and
    a ``SUBPARTITION BY`` clause): per partition, its values — the ``LESS THAN`` bound
    (``MAXVALUE`` as a word) or the ``IN`` list, each value's tokens."""
    while i < len(toks) and toks[i].text != "(":
        if toks[i].upper == "SUBPARTITION":  # SUBPARTITION BY HASH|KEY (expr): skip its group
            while i < len(toks) and toks[i].text != "(":
                i += 1
            _, i = _group(toks, i)
            continue
        i += 1
    if i >= len(toks):
        return []
    body, _ = _group(toks, i)
    out = []
    for part in split_commas(body):
        vals: list[list[Tok]] = []
        for k, t in enumerate(part):
            if t.upper == "THAN" and k + 1 < len(part):
                nxt = part[k + 1]
                vals = [[nxt]] if nxt.upper == "MAXVALUE" else split_commas(_group(part, k + 1)[0])
                break
            if t.upper == "IN" and k > 0 and part[k - 1].upper == "VALUES":
                vals = split_commas(_group(part, k + 1)[0])
                break
        out.append(vals)
    return out
