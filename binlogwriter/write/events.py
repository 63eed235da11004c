"""The events a :class:`~binlogwriter.write.writer.BinlogWriter` makes itself (part of
binlogwriter/write/writer.py): table ids and TABLE_MAP, XIDs, the next GTID event of each flavor,
and transactions / DDL built from a session's settings (binlogwriter/write/transaction.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from binlogwriter.errors import BinlogError
from binlogwriter.events import (
    ANONYMOUS_SID,
    AnonymousGtidEvent,
    Event,
    GtidEvent,
    GtidTaggedEvent,
    MariadbGtidEvent,
)
from binlogwriter.format import BinlogFormat, version_tuple
from binlogwriter.layouts.header import FLAG_SUPPRESS_USE
from binlogwriter.layouts.mariadb import FL_GROUP_COMMIT_ID
from binlogwriter.logical_clock import last_committed
from binlogwriter.write.ids import GtidSource
from binlogwriter.write.transaction import SessionSettings, Transaction, ddl_events, transaction_events

__all__ = ["parse_gtid_setting", "gtid_source"]


class EventsMixin:
    """:class:`~binlogwriter.write.writer.BinlogWriter`'s event-making methods."""

    # transactions ---------------------------------------------------------------------------
    def column_descs(self, table) -> list:
        key = id(table)
        d = self._descs.get(key)
        if d is None or d[0] is not table:
            d = (table, tuple(table.column_descs(self.fmt.flavor)))  # a tuple: row codecs cache by it
            self._descs[key] = d
        return d[1]

    def table_id(self, table) -> int:
        """A table keeps its id while its definition is unchanged; a changed definition
        gets a new one (mariadb.md "Table ids"): :meth:`IdAllocator.table_id
        <binlogwriter.write.ids.IdAllocator.table_id>`."""
        return self.ids.table_id(table)

    def table_map_event(self, table, table_id: int) -> Event:
        """The Table_map of ``table`` (built once per table id and definition, then reused:
        writing an event never changes it — the writer's clock is passed to the encoder)."""
        from binlogwriter.events.table_map import TableMapEvent

        cached = self._tm_cache.get(table_id)
        if cached is None or cached[0] is not table:
            ev = TableMapEvent.from_table(table, table_id, self.fmt, self.row_metadata, server_id=self.server_id)
            cached = (table, ev)
            self._tm_cache[table_id] = cached
        return cached[1]

    def next_xid(self) -> int:
        return self.ids.take_xid()

    def next_mysql_gtid(self, may_have_sbr: bool = False) -> Event:
        """The next MySQL GTID (anonymous, numbered or tagged: format.md §8), its ids taken
        from :attr:`ids` (which notes it in the executed set)."""
        seq, gno = self.ids.take_mysql_gtid()
        back, self.clock_back = self.clock_back, 1
        common = dict(gtid_flags=1 if may_have_sbr else 0, lt_typecode=2, last_committed=last_committed(seq, back),
                      sequence_number=seq, immediate_commit_timestamp=self.now * 1_000_000,
                      transaction_length=0, immediate_server_version=self.fmt.server_version_number,
                      server_id=self.server_id)
        src = self.ids.source
        if not src.sid:
            return AnonymousGtidEvent(sid=ANONYMOUS_SID, gno=0, **common)
        if src.tag:
            # 8.3+: a tagged GTID is a GTID_TAGGED_LOG_EVENT (format.md §8)
            common.pop("lt_typecode")
            return GtidTaggedEvent(sid=src.sid, tag=src.tag, gno=gno, **common)
        return GtidEvent(sid=src.sid, gno=gno, **common)

    def next_mariadb_gtid(self, flags2: int = 0x0C, grouped: bool = False) -> Event:
        """The next MariaDB GTID; ``grouped``: with ``FL_GROUP_COMMIT_ID`` and the commit id of
        its binlog group commit, ``seq_no - group_pos``, unless ``group_pos`` is -1 (a group of
        one: a server writes no commit id, sql/log.cc ``trx_group_commit_leader``);
        ``group_pos`` then back to -1 (generators/group_commit.py)."""
        seq = self.ids.take_mariadb_gtid()
        commit_id = None
        if grouped and self.group_pos >= 0:
            flags2 |= FL_GROUP_COMMIT_ID
            commit_id = seq - self.group_pos
        self.group_pos = -1
        return MariadbGtidEvent(seq_no=seq, domain_id=self.ids.source.domain_id, flags2=flags2, commit_id=commit_id,
                                flags=FLAG_SUPPRESS_USE, server_id=self.server_id)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """``with writer.transaction() as tx: tx.insert(t, rows); tx.update(...)`` — the
        group is encoded and written when the block ends without an exception."""
        tx = Transaction(self)
        yield tx
        self.commit(tx)

    def commit(self, tx: Transaction) -> int | None:
        events = transaction_events(self, tx)
        if not events:
            return None
        self.transactions += 1
        return self.write_group(events)

    def ddl(self, sql: str, db: str = "") -> int:
        """A DDL statement as its own group: ``GTID · QUERY``."""
        self.transactions += 1
        return self.write_group(ddl_events(self, sql, db))


_TAG_RE = re.compile(r"^[a-z_][a-z0-9_]{0,31}$")
_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def parse_gtid_setting(value: str, fmt: BinlogFormat) -> tuple[str, str]:
    """``anonymous``, ``UUID`` or (MySQL 8.3+) ``UUID:tag`` -> (sid, tag)."""
    v = value.strip().lower()
    if v == "anonymous":
        return "", ""
    sid, _, tag = v.partition(":")
    if not _UUID_RE.match(sid):
        raise BinlogError(f"gtid must be 'anonymous', a server UUID or UUID:tag, got {value!r}")
    if tag:
        if not _TAG_RE.match(tag):
            raise BinlogError(f"GTID tag {tag!r}: 1-32 letters, digits or '_', not starting with a digit")
        if fmt.is_mariadb or version_tuple(fmt.server_version) < (8, 3, 0):
            raise BinlogError(f"tagged GTIDs exist from MySQL 8.3 on (flavor mysql84), not in {fmt.flavor}")
    return sid, tag


def gtid_source(fmt: BinlogFormat, settings: SessionSettings, server_id: int) -> GtidSource:
    """Whose GTIDs a writer with these arguments writes (``settings.gtid``, :func:`parse_gtid_setting`;
    MariaDB: ``settings.domain_id`` and ``server_id``)."""
    sid, tag = parse_gtid_setting(settings.gtid, fmt)
    return GtidSource(mariadb=fmt.is_mariadb, server_id=server_id, sid=sid, tag=tag, domain_id=settings.domain_id)
