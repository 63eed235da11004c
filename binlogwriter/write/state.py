"""A writer's position as a value (:class:`WriterState`: frozen, picklable), so that a writer
can stop mid-stream and another continue exactly where it was
(:meth:`~binlogwriter.write.writer.BinlogWriter.state`, ``suspend``, ``resume``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from binlogwriter.errors import BinlogError
from binlogwriter.gtids import MariadbState, MysqlGtidSet
from binlogwriter.layouts.header import MAGIC

__all__ = ["WriterState", "DEFAULT_START_TIME"]

DEFAULT_START_TIME = 1767225600  # 2026-01-01T00:00:00Z: deterministic unless asked otherwise


@dataclass(frozen=True)
class WriterState:
    """Everything a :class:`BinlogWriter` needs to continue writing exactly where another
    one was (:meth:`BinlogWriter.state`, :meth:`BinlogWriter.resume`). Frozen and picklable
    (plain values, tuples, the :class:`~binlogwriter.schema.Table` objects, frozen
    dataclasses, and the two GTID sets, this state's own copies: never changed after). The defaults are a fresh writer with default arguments.

    What is *not* here comes from the resuming writer's arguments and must be the same as
    the first writer's: format, basename, server_id, max_binlog_size, settings (GTID source
    ``UUID[:tag]`` or anonymous, MariaDB domain, row metadata, …). ``start_time``,
    ``first_index`` and ``settings.first_table_id`` are superseded by the state.

    Files
        ``next_index``: number of the next file to open (``<basename>.NNNNNN``).
        ``current_file``: the file being written, its header (magic, FDE, PREVIOUS_GTIDS /
        GTID_LIST + checkpoints) already written (:attr:`header_written`); None when no file
        is open yet (the next write opens ``next_index`` and writes its header).
        ``offset``: where the next event goes in ``current_file`` (its ``log_pos`` base,
        format.md §18.1); 0 when none is open.
        ``files``: the finished files, in ``binlog.index`` order (the next header's FDE has
        ``create_timestamp`` only in the very first file, format.md §4).
        ``previous_file``: the last finished file: a MariaDB file header names it in a
        BINLOG_CHECKPOINT before its own (mariadb.md).
        ``events_in_file``: events in ``current_file`` so far (informational).

    Clock and counters
        ``now``: the writer's clock (event timestamps). ``seq_in_file``: MySQL's logical
        clock — groups already in ``current_file``; ``last_committed`` /
        ``sequence_number`` restart in each file (format.md §8). ``xid``: the last XID
        given. ``transactions``: groups written (transactions + DDL). ``last_gtid``: text of
        the last GTID written (None: none, or anonymous).

    GTIDs
        ``gno``: the last MySQL GNO given (the next GTID is ``sid[:tag]:gno+1``);
        ``mariadb_seq``: the last MariaDB seq_no given. ``mysql_gtids``: the executed set
        (:class:`~binlogwriter.gtids.MysqlGtidSet`) and ``mariadb_gtids`` the last GTID of each
        domain (:class:`~binlogwriter.gtids.MariadbState`): what each new file's header carries,
        PREVIOUS_GTIDS (format.md §7) or GTID_LIST (mariadb.md "GTID_LIST").

    Table ids
        ``tables``: ``((db, name), Table, table_id)`` for the definition each table last
        used; ``next_table_id``: the next id to give. A table keeps its id while its
        definition is unchanged and gets a new one when it changes (mariadb.md "Table ids"),
        so the definitions are part of the state.
    """

    now: int = DEFAULT_START_TIME
    next_index: int = 1
    current_file: str | None = None
    offset: int = 0
    seq_in_file: int = 0
    events_in_file: int = 0
    files: tuple[str, ...] = ()
    previous_file: str | None = None
    xid: int = 0
    gno: int = 0
    mariadb_seq: int = 0
    mysql_gtids: MysqlGtidSet = field(default_factory=MysqlGtidSet)
    mariadb_gtids: MariadbState = field(default_factory=MariadbState)
    tables: tuple[tuple[tuple[str, str], Any, int], ...] = ()
    next_table_id: int = 100
    transactions: int = 0
    last_gtid: str | None = None

    def __post_init__(self) -> None:
        if self.current_file is None and self.offset != 0:
            raise BinlogError(f"WriterState: offset {self.offset} without a current file")
        if self.current_file is not None and self.offset < len(MAGIC):
            raise BinlogError(f"WriterState: offset {self.offset} in {self.current_file} is inside the magic")

    @property
    def header_written(self) -> bool:
        """Whether the current file's header is already written (a resumed writer continues
        that file at ``offset``) rather than still to be written (it opens ``next_index``)."""
        return self.current_file is not None
