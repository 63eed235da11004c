"""Event bodies built once through their construct declarations, for the batch encoders.

A body that repeats within a batch (BEGIN, TABLE_MAP, ROWS_QUERY / ANNOTATE_ROWS texts, a
rows event's post-header and bitmaps, a MariaDB GTID without its ``seq_no``, a MySQL GTID's
declared fields after its post-header) is encoded once by the declarative path
(:func:`~binlogwriter.events.encode_body`, format.md §8, §9, §12, §13) and kept in a bounded
memo per format; :mod:`binlogwriter.batch.encoder` and :mod:`binlogwriter.batch.columnar`
patch what differs. :func:`_plain_gtid` / :func:`_plain_rows` say which events the templates
cover (anything else is encoded by its declaration).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from binlogwriter.batch.dtypes import fixed_dtype, post_header_dtype
from binlogwriter.events import (
    AnnotateRowsEvent,
    AnonymousGtidEvent,
    Event,
    GtidEvent,
    MariadbGtidEvent,
    QueryEvent,
    RowsQueryEvent,
    encode_body,
)
from binlogwriter.events.rows import RowsEvent
from binlogwriter.events.table import EVENTS
from binlogwriter.events.table_map import TableMapEvent
from binlogwriter.format import BinlogFormat, EventType
from binlogwriter.layouts.mariadb import FL_GROUP_COMMIT_ID

_MEMO_LIMIT = 4096


class _Templates:
    """Bodies built once through the declaration, per format (bounded memo)."""

    def __init__(self, fmt: BinlogFormat) -> None:
        self.fmt = fmt
        self.memo: dict[Any, bytes] = {}
        self.gtid_dt = post_header_dtype(EventType.GTID_LOG_EVENT, fmt)
        gtid = EVENTS[EventType.GTID_LOG_EVENT]
        self.gtid_tail_fields = {f.name: f for f in gtid.fields_for(fmt)[gtid.n_post:]}
        self.xid_dt = fixed_dtype(EVENTS[EventType.XID_EVENT].fields_for(fmt))
        mfields = EVENTS[EventType.MARIADB_GTID_EVENT].fields_for(fmt)
        self.mgtid_seq = (mfields[0].name, fixed_dtype(mfields[:1]).itemsize)
        self.mgtid_cid = fixed_dtype(mfields[:3]).itemsize
        """Where a MariaDB GTID body's commit id starts (after seq_no, domain_id, flags2)."""

    def remember(self, key: Any, build) -> bytes:
        body = self.memo.get(key)
        if body is None:
            body = build()
            if len(self.memo) >= _MEMO_LIMIT:
                self.memo.clear()
            self.memo[key] = body
        return body

    def field(self, name: str, value: Any) -> bytes:
        """One declared GTID field after the post-header (commit timestamps, server versions,
        commit group ticket), built by its construct and cached by value."""
        return self.remember(("gtid-field", name, value), lambda: self.gtid_tail_fields[name].build(value))

    def rows_template(self, ev: RowsEvent) -> bytes:
        """A rows event body without its rows: post-header, width, bitmaps (format.md §13)."""
        cp, ca = ev.columns_present, ev.columns_after
        key = ("rows", ev.TYPE, ev.table_id, ev.rows_flags, ev.width, ev.extra_info,
               tuple(cp), getattr(cp, "pad", 0), None if ca is None else (tuple(ca), getattr(ca, "pad", 0)))

        def build() -> bytes:
            shape = type(ev)(table_id=ev.table_id, rows_flags=ev.rows_flags, width=ev.width, extra_info=ev.extra_info,
                             columns_present=cp, columns_after=ca, rows=None, rows_raw=b"")
            return encode_body(shape, self.fmt)
        return self.remember(key, build)

    def mariadb_gtid_template(self, ev: MariadbGtidEvent) -> bytes:
        """A MariaDB GTID body with seq_no (and commit id, with FL_GROUP_COMMIT_ID) 0."""
        key = ("mgtid", ev.domain_id, ev.flags2, ev.trailing)
        return self.remember(key, lambda: encode_body(
            MariadbGtidEvent(seq_no=0, domain_id=ev.domain_id, flags2=ev.flags2, trailing=ev.trailing,
                             commit_id=0 if ev.flags2 & FL_GROUP_COMMIT_ID else None), self.fmt))


@lru_cache(maxsize=64)
def templates_for(fmt: BinlogFormat) -> _Templates:
    return _Templates(fmt)


def memo_key(ev: Event) -> Any:
    """Content key of the bodies that repeat (BEGIN, Table_map, rows-query texts)."""
    t = type(ev)
    if t is QueryEvent:
        return (2, ev.thread_id, ev.exec_time, ev.error_code, repr(ev.status_vars), ev.db, ev.query,
                ev.post_header_extra, ev.unparsed)
    if t is TableMapEvent:
        nb = ev.null_bits
        return (EventType.TABLE_MAP_EVENT, ev.table_id, ev.tm_flags, ev.schema, ev.table, tuple(ev.column_types), ev.metadata,
                tuple(nb), getattr(nb, "pad", 0), repr(ev.optional_metadata), ev.post_header_extra, ev.unparsed)
    if t is RowsQueryEvent or t is AnnotateRowsEvent:
        return (ev.TYPE, repr(ev.to_layout()))
    return None


def plain_gtid(ev: Event) -> bool:
    return (type(ev) in (GtidEvent, AnonymousGtidEvent) and not ev.post_header_extra and not ev.unparsed
            and ev.lt_typecode is not None and ev.last_committed is not None and ev.sequence_number is not None
            and ev.immediate_commit_timestamp is not None and ev.transaction_length is not None)


def plain_rows(ev: Event) -> bool:
    return (isinstance(ev, RowsEvent) and ev.rows_raw is not None and not ev.post_header_extra
            and not ev.unparsed and ev.TYPE < EventType.WRITE_ROWS_COMPRESSED_EVENT_V1
            and ev.TYPE != EventType.PARTIAL_UPDATE_ROWS_EVENT)
