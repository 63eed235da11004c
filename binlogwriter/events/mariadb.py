"""MariaDB-only events: ANNOTATE_ROWS (160), BINLOG_CHECKPOINT (161), GTID (162), GTID_LIST
(163), START_ENCRYPTION (164) — mariadb.md "Events"; layouts in :mod:`binlogwriter.layouts.mariadb`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from binlogwriter.events.base import Event
from binlogwriter.format import EventType
from binlogwriter.gtids import mariadb_gtid_text

__all__ = ["AnnotateRowsEvent", "BinlogCheckpointEvent", "MariadbGtidEvent", "MariadbGtidListEvent",
           "StartEncryptionEvent"]


@dataclass(kw_only=True)
class AnnotateRowsEvent(Event):
    """MariaDB ANNOTATE_ROWS_EVENT (mariadb.md)."""

    TYPE: ClassVar[int] = EventType.ANNOTATE_ROWS_EVENT
    query: str


@dataclass(kw_only=True)
class BinlogCheckpointEvent(Event):
    """MariaDB BINLOG_CHECKPOINT_EVENT (mariadb.md)."""

    TYPE: ClassVar[int] = EventType.BINLOG_CHECKPOINT_EVENT
    log_file: str


@dataclass(kw_only=True)
class StartEncryptionEvent(Event):
    """MariaDB START_ENCRYPTION_EVENT."""

    TYPE: ClassVar[int] = EventType.START_ENCRYPTION_EVENT
    scheme: int = 1
    key_version: int = 0
    nonce: bytes = b"\0" * 12


@dataclass(kw_only=True)
class MariadbGtidListEvent(Event):
    """MariaDB GTID_LIST_EVENT (mariadb.md): gtids [{domain_id, server_id, seq_no}]; ``trailing`` None
    = as the server writes (two zero bytes for an empty list)."""

    TYPE: ClassVar[int] = EventType.MARIADB_GTID_LIST_EVENT
    gtids: list = field(default_factory=list)
    list_flags: int = 0
    trailing: bytes | None = None


@dataclass(kw_only=True)
class MariadbGtidEvent(Event):
    """MariaDB GTID_EVENT (mariadb.md): flags2 1 STANDALONE, 2 GROUP_COMMIT_ID, 4 TRANSACTIONAL,
    8 ALLOW_PARALLEL, 32 DDL, 64 PREPARED_XA, 128 COMPLETED_XA. ``trailing`` None = zero pad to 19."""

    TYPE: ClassVar[int] = EventType.MARIADB_GTID_EVENT
    seq_no: int
    domain_id: int = 0
    flags2: int = 0
    commit_id: int | None = None
    xid: dict | None = None
    flags_extra: int | None = None
    extra_engines: int | None = None
    sa_seq_no: int | None = None
    trailing: bytes | None = None

    @property
    def gtid(self) -> str:
        """``domain-server-seq_no``; the server id is the event header's."""
        return mariadb_gtid_text(self.domain_id, self.server_id, self.seq_no)
