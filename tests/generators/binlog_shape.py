"""The shape of a binlog's transactions, read back with binlogwriter's reader: what a real
server's binlog and a generated one are compared on (issue #29 §1/§4; the shape tests in
tests/generators/test_server_rules.py and tests/conformance/test_sysbench_shape.py).

Per transaction (a GTID event starts one): its events as tokens — ``M`` a Table_map, ``W``/
``U``/``D`` with the row count a Write / Update / Delete rows event (``U1``), Annotate_rows /
Rows_query and the GTID, BEGIN and XID events left out — and its row changes
(:class:`binlogwriter.read.changes.Change`) in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from binlogwriter.reader import BinlogReader

_ROWS = {"Write": "W", "Update": "U", "Delete": "D"}


@dataclass
class Txn:
    gtid: str
    events: list[str] = field(default_factory=list)
    changes: list[Any] = field(default_factory=list)


def _token(ev: Any) -> str | None:
    name = type(ev).__name__
    if name == "TableMapEvent":
        return "M"
    for prefix, tok in _ROWS.items():
        if name.startswith(prefix) and "Rows" in name and "Partial" not in name:
            return f"{tok}{len(ev.rows)}"
    return None


def transactions(paths: Iterable[Path]) -> list[Txn]:
    """Every transaction with row changes of ``paths`` (in order): events as tokens, changes."""
    paths = sorted(Path(p) for p in paths)
    out: list[Txn] = []
    cur: Txn | None = None
    n = 0
    for ev in BinlogReader(paths):
        name = type(ev).__name__
        if "Gtid" in name and "List" not in name and "Prev" not in name:
            n += 1
            cur = Txn(str(n))
            out.append(cur)
            continue
        tok = _token(ev)
        if tok is not None and cur is not None:
            cur.events.append(tok)
    # changes by transaction: the reader's Change carries the GTID text
    by_gtid: dict[str, list[Any]] = {}
    order: list[str] = []
    for ch in BinlogReader(paths).changes():
        if ch.gtid not in by_gtid:
            by_gtid[ch.gtid] = []
            order.append(ch.gtid)
        by_gtid[ch.gtid].append(ch)
    rows = [t for t in out if t.events]
    if len(rows) != len(order):
        raise AssertionError(f"{len(rows)} transactions with rows events, {len(order)} with changes")
    for t, g in zip(rows, order, strict=True):
        t.gtid = g
        t.changes = by_gtid[g]
    return rows


def changed_columns(ch: Any) -> set[str]:
    """Columns an UPDATE change changes: those in both images whose values differ, and those
    only in the after image (MINIMAL: the before image holds the key only)."""
    b, a = ch.before or {}, ch.after or {}
    return {c for c, v in a.items() if c not in b or b[c] != v or type(b[c]) is not type(v)}


def unchanged_updates(txns: Iterable[Txn]) -> list[Any]:
    """UPDATE changes whose before and after rows are equal in every column both hold."""
    return [ch for t in txns for ch in t.changes
            if ch.op == "update" and not changed_columns(ch)]
