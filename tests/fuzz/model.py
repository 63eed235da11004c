"""The reference of the fuzzer's differential oracles (tests/fuzz/oracles.py): what
:class:`~binlogwriter.reader.BinlogReader` — every event decoded through its declaration —
makes of a file: its first error, the events it keeps raw, the parts it decodes lazily that
raise, the GTIDs in file order, and one entry per row change ``changes()`` should give, with
the GTID of the transaction the row is in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from binlogwriter.errors import BinlogError

__all__ = ["CONSUMED", "ROWS", "Model", "model"]

ROWS = frozenset((23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171))
CONSUMED = ROWS | {16, 19, 33, 34, 38, 40, 42, 162}
"""Event types whose fields ``changes()`` and the export use: an error the reader raises at
one of them (or a body it keeps raw) must stop them at the same offset."""


@dataclass
class Model:
    """What :class:`BinlogReader` makes of a file: its first error, the events it keeps raw,
    the GTIDs in file order and one entry per row change ``changes()`` should give."""

    error: tuple[int, str, str] | None = None
    refused: tuple[int, str] | None = None
    """The first offset where ``changes()`` must raise though the reader does not: a rows
    event or a consumed event kept raw, rows without their Table_map or without names."""
    kept: list[int] = field(default_factory=list)
    maps: list[int] = field(default_factory=list)
    names: list[tuple[str, str]] = field(default_factory=list)
    """Offsets and (schema, table) names of the Table_maps."""
    lazy: list[int] = field(default_factory=list)
    """Events whose lazily decoded parts raise — a Table_map's column views (bad optional
    metadata), a compressed query's text: the listing, which prints them, may stop there;
    ``changes()`` refuses the rows events of such a Table_map."""
    gtids: list[str | None] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    xa: bool = False

    error_type: int | None = None
    opaque: int | None = None
    """First rows event kept raw for a non-default zlib stream: read by ``changes()``, not by the model."""

    @property
    def changes_stop(self) -> int | None:
        """Offset of the first event ``changes()`` must refuse (None: the whole file)."""
        err = self.error[0] if self.error is not None and self.error_type in CONSUMED else None
        cands = [o for o in (err, self.refused and self.refused[0]) if o is not None]
        return min(cands) if cands else None

    @property
    def compared_until(self) -> int | None:
        """Rows at or after this offset are not compared (the reader stopped there)."""
        cands = [o for o in (self.error and self.error[0], self.refused and self.refused[0], self.opaque)
                 if o is not None]
        return min(cands) if cands else None


def _image(ev: Any, row: tuple) -> dict[str, Any]:
    from binlogwriter.values import ABSENT

    return {c.name: v for c, v in zip(ev.columns, row, strict=True) if v is not ABSENT}


def _statement(ev: Any) -> bytes:
    """A Query event's statement, stripped and upper-cased."""
    q = ev.query if isinstance(ev.query, bytes) else ev.query.encode("utf-8", "surrogateescape")
    return q.strip().upper()


def _rows_of(m: Model, ev: Any, offset: int, gtid: str | None) -> bool:
    """Append a decoded rows event's changes; False when ``changes()`` must refuse it."""
    from binlogwriter.layouts.rows import DELETE_TYPES, UPDATE_TYPES

    if ev.rows is None or ev.columns is None:
        m.refused = m.refused or (offset, "rows event without a decoded Table_map")
        return False
    if any(c.name is None for c in ev.columns) or any(
        c.type_code in (7, 11, 12) and c.fsp is None and c.flavor.startswith("mariadb") for c in ev.columns
    ):
        m.refused = m.refused or (offset, "ColumnNamesError")
        return False
    t = ev.type_code
    tm = None
    for i, row in enumerate(ev.rows):
        if t in UPDATE_TYPES:
            before, after = _image(ev, row[0]), (None if t == 39 else _image(ev, row[1]))
        elif t in DELETE_TYPES:
            before, after = _image(ev, row), None
        else:
            before, after = None, _image(ev, row)
        m.rows.append((offset, i, tm, before, after, gtid, t))
    if not ev.rows and not any(ev.columns_present) and not (ev.columns_after and any(ev.columns_after)):
        m.rows.append((offset, 0, tm, "empty", "empty", gtid, t))
    return True


def _lazy(m: Model, offset: int, part: Any) -> None:
    try:
        part()
    except BinlogError:
        m.lazy.append(offset)


def model(path: str) -> Model:
    """Decode ``path`` with :class:`BinlogReader` (TRANSACTION_PAYLOAD events opened) and
    follow transactions: a GTID event starts one; XID, COMMIT / ROLLBACK, a statement
    outside BEGIN … COMMIT (a DDL: it commits implicitly), an XA_PREPARE and a
    TRANSACTION_PAYLOAD (which holds a whole transaction, its XID included: format.md §15)
    end it, so rows after it without a GTID of their own have none."""
    from binlogwriter.events import RawEvent
    from binlogwriter.payload import inner_events
    from binlogwriter.reader import BinlogReader

    m = Model()
    reader = BinlogReader(path)
    gtid: str | None = None
    begun = False
    try:
        for rec in reader.records():
            m.error_type = t = rec.data[4]
            ev = reader.decode(rec)
            if isinstance(ev, RawEvent):
                if ev.kept_raw:
                    m.kept.append(rec.offset)
                if ev.kept_raw and "zlib stream" in ev.kept_raw:
                    # a valid zlib stream at another level: kept raw by the reader (it would
                    # re-encode otherwise), read by changes() and the export (any valid stream
                    # inflates); its rows are not compared from here on
                    if m.opaque is None:
                        m.opaque = rec.offset
                elif t in CONSUMED and m.refused is None:
                    m.refused = (rec.offset, f"{ev.type_name} kept raw: {ev.kept_raw}")
                continue
            if t == 19:
                m.maps.append(rec.offset)
                m.names.append((ev.schema, ev.table))
                _lazy(m, rec.offset, lambda ev=ev: ev.view().column_descs(None))
            elif t == 165:
                _lazy(m, rec.offset, lambda ev=ev: ev.text)
            elif t == 40:  # opened whatever follows: the listing prints every inner event
                inner = [i for _pos, _chunk, i in inner_events(ev, rec.fmt)]
                for i in inner:
                    if i.type_code == 19:
                        _lazy(m, rec.offset, lambda i=i: i.view().column_descs(None))
            if m.refused is not None:
                continue  # changes() stops there: what follows is not compared
            if t in (33, 34, 42):
                gtid, begun = ev.gtid, False
                m.gtids.append(gtid)
            elif t == 162:
                gtid, begun = f"{ev.domain_id}-{ev.server_id}-{ev.seq_no}", False
                m.gtids.append(gtid)
            elif t == 16:
                gtid, begun = None, False
            elif t == 2:
                q = _statement(ev)
                if q.startswith(b"BEGIN"):
                    begun = True
                elif (
                    q in (b"COMMIT", b"ROLLBACK")
                    or q
                    and not begun
                    and not q.startswith((b"XA ", b"SAVEPOINT"))
                ):
                    gtid, begun = None, False
                if q.startswith(b"XA "):
                    m.xa = True
            elif t == 38:
                m.xa = True
                gtid = None
            elif t == 40:
                for i in inner:
                    if i.type_code in (33, 34, 42):  # listed, not a transaction of its own
                        m.gtids.append(i.gtid)
                    if i.type_code in ROWS and not _rows_of(m, i, rec.offset, gtid):
                        break
                gtid = None
            elif t in ROWS:
                _rows_of(m, ev, rec.offset, gtid)
    except BinlogError as exc:
        off = getattr(exc, "offset", None)
        m.error = (off if off is not None else -1, type(exc).__name__, str(exc)[:200])
    else:
        m.error_type = None
    return m
