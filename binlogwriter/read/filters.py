"""``inspect`` filters as mysqlbinlog / mariadb-binlog have them.

* ``--start-datetime`` / ``--stop-datetime``: events whose header timestamp is ≥ start are
  shown; reading stops at the first event whose timestamp is ≥ stop. Times are UTC (the
  listing prints UTC), ``YYYY-MM-DD HH:MM:SS`` or ISO 8601 or epoch seconds.
* ``--database DB``: Table_map and rows events of other databases are left out, and Query
  events whose default database (``use``) is another one — except transaction control
  (``BEGIN``, ``COMMIT``, ``ROLLBACK``, ``XA …``), as mysqlbinlog keeps the brackets.
* ``--table [DB.]TABLE``: Table_map and rows events of other tables are left out.
* ``--include-gtids`` / ``--exclude-gtids SET``: whole transactions (the events from a GTID
  event to the next one) are shown only if their GTID is in / not in the set. A set is MySQL's
  ``uuid:1-5:7,uuid2:3`` (tags ``uuid:tag:1-3`` too) or MariaDB GTIDs ``0-1-5,0-1-7-9`` (the
  last form a range of sequence numbers). Events before the first GTID (FDE, previous GTIDs)
  are always shown.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from binlogwriter.errors import OptionError
from binlogwriter.format import (
    EXECUTE_LOAD_QUERY_EVENT,
    GTID_LOG_EVENT,
    GTID_TAGGED_LOG_EVENT,
    GTID_TYPES,
    MARIADB_GTID_EVENT,
    QUERY_COMPRESSED_EVENT,
    QUERY_EVENT,
    TABLE_MAP_EVENT,
)
from binlogwriter.gtids import GtidParseError, MysqlGtidSet, is_uuid, parse_mariadb_gtid, parse_mysql_gtid

__all__ = ["EventFilter", "GtidSet", "parse_datetime"]


def parse_datetime(text: str) -> int:
    """Epoch seconds of ``text`` (UTC): ``YYYY-MM-DD HH:MM:SS``, ISO 8601 or an integer."""
    t = text.strip()
    if re.fullmatch(r"\d{9,}", t):
        return int(t)
    try:
        d = _dt.datetime.fromisoformat(t.replace("/", "-"))
    except ValueError:
        raise OptionError(f"bad datetime {text!r}: expected 'YYYY-MM-DD HH:MM:SS' (UTC)") from None
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.UTC)
    return int(d.timestamp())


class GtidSet:
    """MySQL GTID set text or a list of MariaDB GTIDs; ``gtid in set``. The MySQL part is a
    :class:`~binlogwriter.gtids.MysqlGtidSet` (the one GTID-set type); the MariaDB part holds
    ``domain-server-seq`` GTIDs and ``domain-server-lo-hi`` ranges."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.mariadb: dict[tuple[int, int], list[tuple[int, int]]] = {}
        mysql: list[str] = []
        for part in (p.strip() for p in text.replace("\n", ",").split(",")):
            if not part:
                continue
            m = re.fullmatch(r"(\d+)-(\d+)-(\d+)(?:-(\d+))?", part)
            if m:
                lo = int(m.group(3))
                hi = int(m.group(4)) if m.group(4) else lo
                self.mariadb.setdefault((int(m.group(1)), int(m.group(2))), []).append((lo, hi))
                continue
            items = part.split(":")
            if not is_uuid(items[0]) or len(items) < 2:
                raise OptionError(f"bad GTID set element {part!r}: expected uuid:1-5[:7…] or domain-server-seq")
            mysql.append(part)
        try:
            self.mysql = MysqlGtidSet.from_text(",".join(mysql))
        except GtidParseError as e:
            raise OptionError(str(e)) from None

    def __contains__(self, gtid: str | None) -> bool:
        if gtid is None:
            return False
        m = parse_mariadb_gtid(gtid)
        if m is not None:
            return any(lo <= m[2] <= hi for lo, hi in self.mariadb.get(m[:2], ()))
        return self.mysql.contains(*parse_mysql_gtid(gtid))


_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "XA ", "SAVEPOINT")


class EventFilter:
    """Decides per decoded event whether ``inspect`` shows it, and when to stop reading."""

    def __init__(self, *, start_datetime: str | None = None, stop_datetime: str | None = None,
                 database: str | None = None, table: str | None = None,
                 include_gtids: str | None = None, exclude_gtids: str | None = None) -> None:
        self.start = parse_datetime(start_datetime) if start_datetime else None
        self.stop = parse_datetime(stop_datetime) if stop_datetime else None
        self.database = database
        if table and "." in table:
            self.table_db, self.table = table.split(".", 1)
        else:
            self.table_db, self.table = None, table
        self.include = GtidSet(include_gtids) if include_gtids else None
        self.exclude = GtidSet(exclude_gtids) if exclude_gtids else None
        self._gtid: str | None = None
        self._seen_gtid = False
        self.active = any(x is not None for x in (self.start, self.stop, self.database, self.table,
                                                  self.include, self.exclude))
        """Whether any filter is set (decided once: the loop asks on every event)."""

    def done(self, timestamp: int) -> bool:
        """True at the first event at or after ``--stop-datetime``: stop reading."""
        return self.stop is not None and timestamp >= self.stop

    def shows(self, ev: Any, state: Any) -> bool:
        """Whether ``ev`` (decoded; ``state`` has its Table_maps) is listed."""
        gtid = _gtid_of(ev)
        if gtid is not None or ev.type_code in GTID_TYPES:
            self._gtid, self._seen_gtid = gtid, True
        if self.start is not None and (ev.timestamp or 0) < self.start:
            return False
        if self._seen_gtid and (self.include is not None or self.exclude is not None):
            if self.include is not None and self._gtid not in self.include:
                return False
            if self.exclude is not None and self._gtid in self.exclude:
                return False
        if self.database is None and self.table is None:
            return True
        t = ev.type_code
        if t == TABLE_MAP_EVENT:
            return self._table_ok(ev.schema, ev.table)
        if hasattr(ev, "rows") and hasattr(ev, "table_id"):
            tm = (getattr(state, "tables", None) or {}).get(ev.table_id)
            return tm is None or self._table_ok(tm.schema, tm.table)
        if t in (QUERY_EVENT, EXECUTE_LOAD_QUERY_EVENT, QUERY_COMPRESSED_EVENT) and self.database is not None:
            q = ev.text if t == QUERY_COMPRESSED_EVENT else ev.query
            if isinstance(q, str) and q.lstrip().upper().startswith(_CONTROL):
                return True
            return ev.db == self.database
        return True

    def _table_ok(self, db: str, table: str) -> bool:
        if self.database is not None and db != self.database:
            return False
        if self.table is not None:
            if table != self.table:
                return False
            if self.table_db is not None and db != self.table_db:
                return False
        return True


def _gtid_of(ev: Any) -> str | None:
    t = ev.type_code
    if t == GTID_LOG_EVENT or t == GTID_TAGGED_LOG_EVENT or t == MARIADB_GTID_EVENT:
        return ev.gtid
    return None
