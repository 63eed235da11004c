"""The one owner of a writer's ids and GTIDs (issue #28; part of binlogwriter/write/writer.py):
:class:`IdAllocator` gives XIDs, MySQL GNOs and ``sequence_number`` (format.md §8), MariaDB
``seq_no`` (mariadb.md "GTID") and table ids, and keeps the executed GTID sets every new
file's header carries (PREVIOUS_GTIDS, format.md §7; GTID_LIST, mariadb.md).

The per-transaction path takes one id at a time (:meth:`IdAllocator.take_xid`,
:meth:`~IdAllocator.take_mysql_gtid`, :meth:`~IdAllocator.take_mariadb_gtid`,
:meth:`~IdAllocator.table_id`). The batch planner is given an :class:`IdRange`
(:meth:`IdAllocator.peek`: where the ids stand, nothing taken); the batch encoder is given a
:class:`BatchIds` (:meth:`IdAllocator.next_ids`: the first ids of a range of events), says
what it consumes as an :class:`IdCount`, and the allocator commits that in one call
(:meth:`IdAllocator.commit`). Same ids in the same order either way, so the same bytes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from binlogwriter.errors import BinlogError
from binlogwriter.events import ANONYMOUS_SID
from binlogwriter.gtids import MariadbState, MysqlGtidSet, mariadb_gtid_text, mysql_gtid_text

if TYPE_CHECKING:
    from binlogwriter.schema import Table
    from binlogwriter.write.state import WriterState

__all__ = ["GtidSource", "IdRange", "BatchIds", "IdCount", "IdAllocator"]


@dataclass(frozen=True)
class GtidSource:
    """Whose GTIDs a writer writes: MySQL ``sid[:tag]`` (``sid`` empty: anonymous GTIDs,
    format.md §8) or MariaDB ``domain_id-server_id`` (mariadb.md "GTID")."""

    mariadb: bool
    server_id: int
    sid: str = ""
    tag: str = ""
    domain_id: int = 0

    @property
    def numbered(self) -> bool:
        """Whether the GTIDs have numbers: MariaDB's always, MySQL's unless anonymous."""
        return self.mariadb or bool(self.sid)

    @property
    def sid_bytes(self) -> bytes:
        """The 16 bytes of the source id in a MySQL GTID post-header (zeros: anonymous)."""
        return bytes.fromhex((self.sid or ANONYMOUS_SID).replace("-", ""))

    def text(self, number: int) -> str | None:
        """The text of GTID number ``number`` (MySQL ``sid[:tag]:gno``, MariaDB
        ``domain-server-seq_no``); None for anonymous MySQL GTIDs."""
        if self.mariadb:
            return mariadb_gtid_text(self.domain_id, self.server_id, number)
        if not self.sid:
            return None
        return mysql_gtid_text(self.sid, number, self.tag)


@dataclass(frozen=True)
class IdRange:
    """What a batch planner may use without taking it (:meth:`IdAllocator.peek`): the next
    XID, the next table id and the table definitions that already have one, the logical
    clock and GNO so far, and the GTID source. The planner is pure: it returns the table ids
    it used (``RowsPlan.used_tables``) and the writer takes them (``BinlogWriter.table_id``,
    checked equal); XIDs / GNOs / sequence numbers are given to the encoder
    (:class:`BatchIds`) and committed after (:meth:`IdAllocator.commit`)."""

    next_xid: int
    next_table_id: int
    tables: dict
    source: GtidSource
    seq_in_file: int = 0
    """The last MySQL ``sequence_number`` given in the current file (a planner assumes the
    batch continues it; a rotation makes the writer re-plan what depends on it)."""
    gno: int = 0
    """The last MySQL GNO given."""

    def first_ids(self) -> BatchIds:
        """The :class:`BatchIds` a range written now would start from."""
        s = self.source
        return BatchIds(xid=self.next_xid, seq=self.seq_in_file + 1, gno=self.gno + 1 if s.numbered else 0,
                        source=s)


@dataclass(frozen=True)
class BatchIds:
    """The first ids of a range of events the batch encoder places (given, not taken by
    it): ``xid``, ``seq`` (MySQL ``sequence_number`` in the file, or MariaDB ``seq_no``),
    ``gno`` (MySQL; 0 when anonymous or MariaDB), and the :class:`GtidSource` (source id,
    tag, server id, domain). Event ``k`` of a kind gets the first id plus ``k``."""

    xid: int
    seq: int
    gno: int
    source: GtidSource


@dataclass(frozen=True)
class IdCount:
    """What a range of events consumes: ``gtids`` GTIDs (each a sequence number / seq_no and,
    when numbered, a GNO) and ``xids`` XIDs."""

    gtids: int
    xids: int


@dataclass
class IdAllocator:
    """The one owner of a writer's ids (see module docstring). Every counter holds the
    *last* id given (0: none yet), except ``next_table_id``. ``mysql_gtids``: the executed
    set (the next PREVIOUS_GTIDS); ``mariadb_gtids``: per domain, the last GTID (the next
    GTID_LIST); ``last_gtid``: text of the last GTID given (None: none, or anonymous)."""

    source: GtidSource
    xid: int = 0
    gno: int = 0
    mariadb_seq: int = 0
    seq_in_file: int = 0
    next_table_id: int = 100
    tables: dict[tuple[str, str], tuple[Table, int]] = field(default_factory=dict)  # (db, name) -> (Table, table_id)
    mysql_gtids: MysqlGtidSet = field(default_factory=MysqlGtidSet)
    mariadb_gtids: MariadbState = field(default_factory=MariadbState)
    last_gtid: str | None = None

    @classmethod
    def after_groups(cls, source: GtidSource, groups: int, in_file: int, *, tables: tuple = (),
                     next_table_id: int = 100) -> IdAllocator:
        """The allocator of a writer that has written ``groups`` groups, each taking one XID
        and one GTID, the last ``in_file`` of them in the file being written; ``tables``:
        ``((db, name), Table, table_id)`` given so far, ``next_table_id`` the next (spark_gen's
        partitions resume a writer from it: spark_gen/writer.py)."""
        ids = cls(source, next_table_id=next_table_id, tables={key: (table, tid) for key, table, tid in tables})
        before = groups - in_file
        ids.commit(ids.next_ids(), IdCount(gtids=before, xids=before))
        ids.new_file()
        ids.commit(ids.next_ids(), IdCount(gtids=in_file, xids=in_file))
        return ids

    @classmethod
    def from_state(cls, source: GtidSource, st: WriterState) -> IdAllocator:
        """The allocator a :class:`~binlogwriter.write.state.WriterState` ``st`` holds."""
        return cls(source=source, xid=st.xid, gno=st.gno, mariadb_seq=st.mariadb_seq, seq_in_file=st.seq_in_file,
                   next_table_id=st.next_table_id, tables={key: (table, tid) for key, table, tid in st.tables},
                   mysql_gtids=st.mysql_gtids.copy(), mariadb_gtids=st.mariadb_gtids.copy(), last_gtid=st.last_gtid)

    def state_fields(self) -> dict[str, Any]:
        """This allocator as the id fields of a :class:`~binlogwriter.write.state.WriterState`
        (plain values, tuples and copies of the GTID sets: picklable, not shared with this
        allocator; :meth:`from_state` reads them back)."""
        return {"seq_in_file": self.seq_in_file, "xid": self.xid, "gno": self.gno, "mariadb_seq": self.mariadb_seq,
                "mysql_gtids": self.mysql_gtids.copy(), "mariadb_gtids": self.mariadb_gtids.copy(),
                "tables": self.table_entries(),
                "next_table_id": self.next_table_id, "last_gtid": self.last_gtid}

    def table_entries(self) -> tuple[tuple[tuple[str, str], Table, int], ...]:
        """``((db, name), Table, table_id)`` for the definition each table last used (the
        ``tables`` of a :class:`~binlogwriter.write.state.WriterState`)."""
        return tuple((key, table, tid) for key, (table, tid) in self.tables.items())

    # one at a time: the per-transaction path -------------------------------------------------
    def take_xid(self) -> int:
        self.xid += 1
        return self.xid

    def take_mysql_gtid(self) -> tuple[int, int]:
        """The next MySQL GTID: (``sequence_number`` in the current file, GNO; 0 when
        anonymous), noted in the executed set."""
        self.seq_in_file += 1
        if not self.source.sid:
            self.last_gtid = None
            return self.seq_in_file, 0
        self.gno += 1
        self._note_mysql(self.gno, self.gno + 1)
        return self.seq_in_file, self.gno

    def take_mariadb_gtid(self) -> int:
        """The next MariaDB ``seq_no``, noted as the domain's last GTID."""
        self.mariadb_seq += 1
        self._note_mariadb()
        return self.mariadb_seq

    def new_file(self) -> None:
        """A new file: MySQL's logical clock restarts (format.md §8)."""
        self.seq_in_file = 0

    def table_id(self, table: Table) -> int:
        """``table``'s id, a new one when its definition is new or changed (mariadb.md
        "Table ids")."""
        return self.keyed_table_id((table.database, table.name), table)

    def keyed_table_id(self, key: tuple[str, str], table: Table) -> int:
        """:meth:`table_id` of ``table`` known as ``key`` ``(db, name)``."""
        cur = self.tables.get(key)
        if cur is not None and (cur[0] is table or cur[0] == table):
            return cur[1]
        tid = self.next_table_id
        self.next_table_id += 1
        self.tables[key] = (table, tid)
        return tid

    # ranges: the batch path ------------------------------------------------------------------
    def peek(self) -> IdRange:
        """The ids a batch planner starts from; nothing is taken."""
        return IdRange(next_xid=self.xid + 1, next_table_id=self.next_table_id, tables=dict(self.tables),
                       source=self.source, seq_in_file=self.seq_in_file, gno=self.gno)

    def next_ids(self) -> BatchIds:
        """The first ids of the events written next (given to the batch encoder); nothing is
        taken until :meth:`commit`."""
        s = self.source
        seq = self.mariadb_seq if s.mariadb else self.seq_in_file
        return BatchIds(xid=self.xid + 1, seq=seq + 1, gno=self.gno + 1 if s.sid and not s.mariadb else 0, source=s)

    def commit(self, first: BatchIds, used: IdCount) -> None:
        """Take ``used`` ids from ``first`` on, in one step: the counters advance, the
        executed GTID sets and :attr:`last_gtid` are noted as one take per GTID would note
        them. ``first`` must be :meth:`next_ids` now (a typed error otherwise: ids were taken
        in between, and the bytes built from ``first`` would repeat them)."""
        if first != self.next_ids():
            raise BinlogError(f"batch ids from XID {first.xid} / GTID {first.seq} given, but the writer's next are "
                              f"XID {self.xid + 1} / GTID {self.next_ids().seq}: ids were taken in between")
        self.xid += used.xids
        n = used.gtids
        if not n:
            return
        s = self.source
        if s.mariadb:
            self.mariadb_seq += n
            self._note_mariadb()
            return
        self.seq_in_file += n
        if s.sid:
            self.gno += n
            self._note_mysql(first.gno, self.gno + 1)
        else:
            self.last_gtid = None

    def _note_mysql(self, lo: int, hi: int) -> None:
        """GNOs ``lo..hi-1`` written (the executed set, for later PREVIOUS_GTIDS events)."""
        s = self.source
        self.mysql_gtids.add_interval(s.sid, s.tag, lo, hi)
        self.last_gtid = s.text(hi - 1)

    def _note_mariadb(self) -> None:
        s = self.source
        self.mariadb_gtids.update(s.domain_id, s.server_id, self.mariadb_seq)
        self.last_gtid = s.text(self.mariadb_seq)
