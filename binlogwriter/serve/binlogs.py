"""The served binlog files: order, names, sizes, formats and GTID state (docs/serve.md "Files").

``DIR`` serves the files its ``binlog.index`` lists (``./name`` lines, as servers and
:class:`~binlogwriter.write.writer.BinlogWriter` write it), or else every ``*.NNNNNN`` file in name
order; files given one by one are served in the order given. Each file's FORMAT_DESCRIPTION_EVENT
(read through :func:`binlogwriter.reader.iter_raw`) gives its format, the server version and
server id; the event after it gives the GTID state before the file (PREVIOUS_GTIDS for MySQL,
GTID_LIST for MariaDB, format.md §7 and mariadb.md). The state after the last file (what
``SHOW MASTER STATUS`` and ``@@gtid_binlog_pos`` report) adds the GTID events of the last file.
With ``follow`` the list and the sizes are read again whenever a sender reaches the end.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from binlogwriter.errors import BinlogError
from binlogwriter.events import (
    FormatDescriptionEvent,
    GtidEvent,
    GtidTaggedEvent,
    MariadbGtidEvent,
    MariadbGtidListEvent,
    PreviousGtidsEvent,
    decode_event,
)
from binlogwriter.format import GTID_LOG_EVENT, MARIADB_GTID_EVENT, BinlogFormat, EventType
from binlogwriter.gtids import MariadbState, MysqlGtidSet
from binlogwriter.layouts.header import LENGTH_AT, SERVER_ID_AT, TYPE_AT
from binlogwriter.layouts.primitives import uuid_text
from binlogwriter.read.framing import iter_blocks
from binlogwriter.read.places import MARIADB_GTID, MYSQL_GTID
from binlogwriter.reader import iter_raw

__all__ = ["BinlogFile", "BinlogSet", "ServeError"]

_NUMBERED = re.compile(r"^.+\.\d{6}$")
NUMBERED_GTID_TYPES = frozenset(
    (EventType.GTID_LOG_EVENT, EventType.GTID_TAGGED_LOG_EVENT, EventType.MARIADB_GTID_EVENT)
)
"""The GTID events that carry a GTID (:func:`gtid_of`): :data:`binlogwriter.format.GTID_TYPES`
without ANONYMOUS_GTID (gtid_mode OFF)."""


class ServeError(BinlogError):
    """What ``serve`` was given cannot be served (no files, mixed flavors, …)."""


@dataclass
class BinlogFile:
    name: str
    path: Path
    fmt: BinlogFormat
    fde: bytes
    server_id: int
    start_mysql: MysqlGtidSet = field(default_factory=MysqlGtidSet)
    start_mariadb: MariadbState = field(default_factory=MariadbState)
    header_end: int = 4  # offset after the FDE

    @property
    def size(self) -> int:
        return self.path.stat().st_size


def _open_file(path: Path) -> BinlogFile:
    it = iter_raw(path, verify_checksum=True)
    try:
        fde_rec = next(it)
    except StopIteration:
        raise ServeError(f"{path}: empty binlog (no FORMAT_DESCRIPTION_EVENT)") from None
    fmt = fde_rec.fmt
    fde = decode_event(fde_rec.data, fmt, file=str(path), offset=4)
    assert isinstance(fde, FormatDescriptionEvent)
    bf = BinlogFile(
        path.name,
        path,
        fmt,
        fde_rec.data,
        int.from_bytes(fde_rec.data[SERVER_ID_AT:LENGTH_AT], "little"),
        header_end=4 + len(fde_rec.data),
    )
    try:
        nxt = next(it)
    except (StopIteration, BinlogError):
        return bf
    if nxt.type_code in (EventType.PREVIOUS_GTIDS_LOG_EVENT, EventType.MARIADB_GTID_LIST_EVENT):
        ev = decode_event(nxt.data, nxt.fmt, file=str(path), offset=nxt.offset)
        if isinstance(ev, PreviousGtidsEvent):
            bf.start_mysql = MysqlGtidSet.from_layout(ev.gtid_set)
        elif isinstance(ev, MariadbGtidListEvent):
            for g in ev.gtids:
                bf.start_mariadb.update(g["domain_id"], g["server_id"], g["seq_no"])
    return bf


def gtid_of(data: bytes, fmt: BinlogFormat) -> tuple:
    """``("mysql", uuid, tag, gno)`` or ``("mariadb", domain, server_id, seq_no, flags2)``
    for a GTID event (MySQL anonymous GTIDs give ``()``).

    The two fixed layouts are read in place (format.md §8: GTID_LOG_EVENT = flags (1), SID (16),
    GNO (8, signed: ``rpl_gno``, as the codec and the readers' ``transaction_gtid`` read it); mariadb.md: GTID_EVENT = seq_no (8), domain_id (4), flags2 (1), server id in the
    header); tagged GTIDs go through the codec. tests/serve/test_gtid_of.py checks both against
    :func:`~binlogwriter.events.decode_event` over the sample runs."""
    t = data[TYPE_AT]
    if t == GTID_LOG_EVENT and len(data) >= MYSQL_GTID.gno + MYSQL_GTID.gno_size:
        return (
            "mysql",
            uuid_text(data[MYSQL_GTID.sid:MYSQL_GTID.sid + MYSQL_GTID.sid_size]),
            "",
            int.from_bytes(data[MYSQL_GTID.gno:MYSQL_GTID.gno + MYSQL_GTID.gno_size], "little", signed=True),
        )
    if t == MARIADB_GTID_EVENT and len(data) > MARIADB_GTID.flags2:
        g = MARIADB_GTID
        return (
            "mariadb",
            int.from_bytes(data[g.domain_id:g.domain_id + g.domain_id_size], "little"),
            int.from_bytes(data[SERVER_ID_AT:LENGTH_AT], "little"),
            int.from_bytes(data[g.seq_no:g.seq_no + g.seq_no_size], "little"),
            data[g.flags2],
        )
    return gtid_of_codec(data, fmt)


def gtid_of_codec(data: bytes, fmt: BinlogFormat) -> tuple:
    """The same through the codec only (the reference the test compares with)."""
    ev = decode_event(data, fmt, verify_checksum=False)
    if isinstance(ev, MariadbGtidEvent):
        return ("mariadb", ev.domain_id, ev.server_id, ev.seq_no, ev.flags2)
    if isinstance(ev, GtidTaggedEvent):
        return ("mysql", str(ev.sid), ev.tag, ev.gno)
    if isinstance(ev, GtidEvent):
        return ("mysql", str(ev.sid), "", ev.gno)
    return ()


class BinlogSet:
    """The ordered files served, re-read on :meth:`refresh` when following."""

    def __init__(self, sources: list[str | os.PathLike], *, follow: bool = False) -> None:
        if not sources:
            raise ServeError("no binlog files or directory given")
        self.sources = [Path(s) for s in sources]
        self.follow = follow
        self._lock = threading.Lock()
        self.files: list[BinlogFile] = []
        self._end_cache: tuple | None = None
        self.refresh()
        if not self.files:
            raise ServeError(f"no binlog files found in {', '.join(map(str, self.sources))}")
        flavors = {f.fmt.is_mariadb for f in self.files}
        if len(flavors) > 1:
            raise ServeError("the files mix MySQL and MariaDB formats; serve one flavor at a time")

    # -------------------------------------------------------------------------- listing
    def _paths(self) -> list[Path]:
        out: list[Path] = []
        for src in self.sources:
            if src.is_dir():
                index = src / "binlog.index"
                if index.is_file():
                    for line in index.read_text("utf-8").splitlines():
                        line = line.strip()
                        if line:
                            p = Path(line)
                            out.append(p if p.is_absolute() else src / p)
                else:
                    out.extend(sorted(p for p in src.iterdir() if p.is_file() and _NUMBERED.match(p.name)))
            elif src.is_file():
                out.append(src)
            else:
                raise ServeError(f"{src}: no such file or directory")
        return out

    def refresh(self) -> None:
        paths = self._paths()
        with self._lock:
            known = {f.path: f for f in self.files}
            files = []
            for p in paths:
                if p in known:
                    files.append(known[p])
                elif not self.follow:
                    files.append(_open_file(p))
                else:  # a file just created may not have its FDE yet: retried on the next refresh
                    try:
                        files.append(_open_file(p))
                    except (BinlogError, OSError):
                        break
            names = [f.name for f in files]
            if len(set(names)) != len(names):
                raise ServeError("two served files have the same name: " + ", ".join(names))
            if [f.path for f in files] != [f.path for f in self.files]:
                self._end_cache = None
            self.files = files

    # -------------------------------------------------------------------------- identity
    @property
    def first(self) -> BinlogFile:
        return self.files[0]

    @property
    def last(self) -> BinlogFile:
        return self.files[-1]

    @property
    def is_mariadb(self) -> bool:
        return self.first.fmt.is_mariadb

    @property
    def server_version(self) -> str:
        return self.last.fmt.server_version

    @property
    def flavor(self) -> str:
        """The flavor name (``mysql80``, ``mysql84``, ``mariadb1011``) of the set, from its
        FORMAT_DESCRIPTION server version: MariaDB files -> ``mariadb1011``, MySQL 8.0.x ->
        ``mysql80``, any later MySQL -> ``mysql84``."""
        if self.is_mariadb:
            return "mariadb1011"
        return "mysql80" if self.server_version.startswith("8.0") else "mysql84"

    @property
    def server_id(self) -> int:
        return self.last.server_id

    @property
    def checksum_name(self) -> str:
        return "CRC32" if self.last.fmt.footer_size else "NONE"

    def find(self, name: str) -> int | None:
        base = os.path.basename(name)
        for i, f in enumerate(self.files):
            if f.name == base:
                return i
        return None

    # -------------------------------------------------------------------------- GTID state
    def end_state(self) -> tuple[MysqlGtidSet, MariadbState, str | None]:
        """GTID state after the last file (MySQL set, MariaDB state) and the server UUID the
        GTIDs use most recently (None: anonymous)."""
        last = self.last
        key = (last.path, last.size)
        if self._end_cache is not None and self._end_cache[0] == key:
            return self._end_cache[1]
        mysql, maria, uuid, _reached = _state_at(last, key[1])
        result = (mysql, maria, uuid)
        self._end_cache = (key, result)
        return result

    def mariadb_pos_at(self, name: str, pos: int) -> MariadbState | None:
        """MariaDB's ``BINLOG_GTID_POS(name, pos)``: the GTID position of a replica that has
        read ``name`` up to ``pos`` — the file's GTID_LIST plus, per domain, the last GTID event
        that starts before ``pos``; None (SQL NULL) when no served file has that name or no event
        starts at ``pos`` (inside an event, past the end: as MariaDB 10.11 answers, compared in
        tests/conformance/test_serve_positions.py)."""
        i = self.find(name)
        if i is None or pos < 0:
            return None
        f = self.files[i]
        if pos <= 4:  # MariaDB reads an offset before the first event as the file's start
            return f.start_mariadb.copy()
        if pos < f.header_end:
            return None
        _mysql, maria, _uuid, reached = _state_at(f, pos)
        return maria if reached == pos else None

    def mysql_start_file(self, executed: MysqlGtidSet) -> int:
        """Index of the file to start a MySQL GTID dump from: the last file whose
        PREVIOUS_GTIDS the replica already has (every file before it is older)."""
        for i in range(len(self.files) - 1, -1, -1):
            if self.files[i].start_mysql.issubset(executed):
                return i
        return 0

    def mariadb_start_file(self, state: MariadbState) -> int:
        """Index of the file to start a MariaDB GTID dump from: the last file whose GTID_LIST
        is not ahead of the replica's position in any domain."""
        for i in range(len(self.files) - 1, -1, -1):
            start = self.files[i].start_mariadb.domains
            if all(d in state.domains and state.domains[d][1] >= n for d, (_s, n) in start.items()):
                return i
        return 0


def _state_at(f: BinlogFile, end: int) -> tuple[MysqlGtidSet, MariadbState, str | None, int]:
    """The GTID state at offset ``end`` of ``f`` (its PREVIOUS_GTIDS / GTID_LIST plus the GTID
    events of the complete events before ``end``), the UUID of the last MySQL GTID, and the
    offset of the event boundary reached (``end`` when an event starts or the file ends there)."""
    mysql = f.start_mysql.copy()
    maria = f.start_mariadb.copy()
    uuid = next(iter(mysql.sids), (None,))[0] if mysql else None
    reached = f.header_end
    with open(f.path, "rb") as fh:
        for base, buf, bounds in iter_blocks(fh, f.header_end, name=f.name, end=end):
            for i in range(len(bounds) - 1):
                a = bounds[i]
                if buf[a + TYPE_AT] in NUMBERED_GTID_TYPES:
                    g = gtid_of(buf[a : bounds[i + 1]], f.fmt)
                    if g and g[0] == "mysql":
                        mysql.add(g[1], g[2], g[3])
                        uuid = g[1]
                    elif g:
                        maria.update(g[1], g[2], g[3])
            reached = base + bounds[-1]
    return mysql, maria, uuid, reached
