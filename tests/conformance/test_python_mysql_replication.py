"""python-mysql-replication (``pymysqlreplication``, a replication-protocol client) decodes the
binlogs binlogwriter wrote, served by a real MariaDB 10.11, to the values we wrote.

How the server serves our files (binlog_serving.py): a throwaway server (--binlog-row-metadata=FULL,
so pymysqlreplication uses the Table_map's optional metadata for column names, signedness, ENUM/SET
members and charsets) runs the DDL and creates a replication user (REPLICATION SLAVE, REPLICATION
CLIENT, SELECT; TCP on 127.0.0.1); it is shut down cleanly, our binlog files and a
``binlog.index`` naming them replace its own (``binlog.state`` removed, so the server recovers its
GTID state from our last file), and the same datadir is started again. The server then opens the
index and rotates to a file of its own. Before decoding, the test checks that ``SHOW BINARY LOGS``
lists our files with their sizes, that ``@@gtid_binlog_state`` is our last GTID, and that
``mariadb-binlog --read-from-remote-server`` (over the socket) reads them.

What is compared, for binlog_row_image FULL and MINIMAL (the catalogue of catalogue.py: every
column type it supports, edge values, NULLs, multi-row inserts, updates assigning some columns,
deletes, a 3,000-row transaction split over many rows events, two binlog files):

- the rows of every Write/Update/Delete rows event (``values`` / ``before_values`` /
  ``after_values``, keyed by column name) equal what we wrote, value and Python type, in binlog
  order; for a column not in the image pymysqlreplication yields None and its ``none_sources``
  entry says "cols bitmap" (NULL says "null"), which is checked too;
- the event sequence: per DDL GTID(standalone) . Query(sql, schema); per transaction
  GTID(transactional) . [Annotate_rows(sql) . Table_map(table) . rows events]... . Xid(xid); the
  STMT_END flag on exactly the last rows event of each statement; the rotations between our files
  and the STOP at the end; every event's CRC32 (``verify_checksum=True``);
- three ways to start: MariaDB mode (``is_mariadb=True``, which asks for the first binlog of the
  index at position 4 and the Annotate_rows events), file/position mode (``log_file='binlog.000001'``,
  ``log_pos=4``, ``resume_stream=True``; the library only honours these with ``is_mariadb=False``,
  and the server then leaves out Annotate_rows), and MariaDB GTID ``auto_position`` from the middle
  of the stream (the server finds the place through our GTID_LIST events and GTIDs);
- the information_schema path: pymysqlreplication 1.0.17 uses the Table_map's optional metadata
  only when the server's own binlog_row_metadata is FULL; otherwise (set to MINIMAL at run time)
  it takes column names from information_schema (``use_column_name_cache=True``; the DDL ran in
  the server before the swap) and nothing else, so only names and row counts are compared there.

pymysqlreplication's representation, mapped in ``expected_value`` (documented, not bugs of ours):

- integers and YEAR -> int, unsigned ones through the metadata's signedness; YEAR 0000 (stored
  as 0) -> 1900 (the decoder adds 1900 to every stored byte);
- BIT(n) -> str of n '0'/'1' characters, most significant first;
- FLOAT -> the float32 widened to float; DOUBLE -> float; DECIMAL -> decimal.Decimal with the
  column's scale (compared digit for digit, ``as_tuple()``);
- DATE -> datetime.date, DATETIME -> naive datetime.datetime; the zero DATE / DATETIME -> None
  with none_source "out of date range" / "out of datetime2 range"; TIMESTAMP -> naive UTC
  datetime.datetime, the zero TIMESTAMP -> 1970-01-01 00:00:00; TIME -> datetime.timedelta;
- character columns -> str decoded in the column charset (latin1 as cp1252), CHAR without its
  trailing spaces (as logged); binary columns (BINARY without trailing 0x00, VARBINARY, BLOB,
  CHARACTER SET binary) -> bytes, except an empty one -> '' (str: Python decodes b'' with the
  unknown codec name "binary" without looking it up); GEOMETRY -> bytes (4-byte SRID + WKB);
  MariaDB's JSON (a LONGTEXT) -> its text;
- ENUM -> the member str ('' for the invalid-value index 0); SET -> set of member str, the empty
  SET -> None with none_source "empty set"; member names are decoded as UTF-8 only, so a latin1
  member that is not valid UTF-8 ('é') comes back as ''.

What pymysqlreplication 1.0.17 cannot decode, kept out:

- ucs2, utf16 and utf32 columns (catalogue t_str.vu, v16, v32; the table is written without
  them): "ucs2" is no Python codec (raw bytes come back), "utf16"/"utf32" are Python's BOM /
  little-endian codecs while MySQL's are big-endian: utf16 gives mojibake and utf32 raises
  UnicodeDecodeError, which aborts the whole rows event.
- negative TIME values with a fractional part (catalogue t_time.t2/t6): the decoder negates the
  integer part and adds the fraction read as a separate signed field, so -00:00:00.01 comes back
  as -00:00:00.99. test_negative_fractional_time_is_a_decoder_limit shows it decodes a real
  MariaDB binlog's values to the same wrong timedeltas as ours; the rows are still decoded (the
  values are only not compared).

Workaround for a pymysqlreplication bug (not of our files): in MariaDB mode its COM_BINLOG_DUMP
packet says 14 bytes but carries 15; the server leaves the byte unread and, when the
non-blocking dump ends, closes the socket with a TCP reset that destroys the part of the stream
still in flight (seen here with a 200 KB rows event, also from binlogs the server wrote itself,
and with our 216 KB t_blob insert; 70 KB passed); pymysqlreplication then silently reconnects
and replays the stream from the start, duplicating events. ``_Connections``
(``pymysql_wrapper``) corrects the length and fails the test if the library ever opens a second
stream connection.
"""

from __future__ import annotations

import datetime as dt
import decimal
import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

import pymysql
import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import (
    FormatDescriptionEvent,
    MariadbAnnotateRowsEvent,
    MariadbBinLogCheckPointEvent,
    MariadbGtidEvent,
    MariadbGtidListEvent,
    QueryEvent,
    RotateEvent,
    StopEvent,
    XidEvent,
)
from pymysqlreplication.row_event import DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent

from binlogwriter import images
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.values import Geometry, MysqlDate, MysqlDateTime
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

from .binlog_serving import ServingMariaDBServer
from .catalogue import DB, build
from .mariadb import mariadb_binlog

FLAVOR = "mariadb1011"
USER, PASSWORD = "pmr", "pmr-pw"

# pymysqlreplication passes pymysql the deprecated 'db' argument itself.
pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning")]

STMT_END_F = 0x0001
COM_BINLOG_DUMP = 0x12

# Columns pymysqlreplication cannot decode (module docstring): t_str is written without them.
DROPPED = {"t_str": ("vu", "v16", "v32")}
T_STR_SQL = """CREATE TABLE t_str (id INT NOT NULL PRIMARY KEY,
        c CHAR(10) CHARACTER SET latin1, c4 CHAR(100) CHARACTER SET utf8mb4,
        vl VARCHAR(20) CHARACTER SET latin1, v3 VARCHAR(20) CHARACTER SET utf8mb3,
        v4 VARCHAR(300) CHARACTER SET utf8mb4, vg VARCHAR(20) CHARACTER SET gbk,
        vbin VARCHAR(20) CHARACTER SET binary, vb VARBINARY(20), bn BINARY(4))"""

ROWS_EVENTS = (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)
ONLY_EVENTS = [*ROWS_EVENTS, TableMapEvent, QueryEvent, XidEvent, MariadbGtidEvent,
               MariadbAnnotateRowsEvent, RotateEvent, StopEvent, FormatDescriptionEvent,
               MariadbGtidListEvent, MariadbBinLogCheckPointEvent]
_KIND = {"insert": WriteRowsEvent, "update": UpdateRowsEvent, "delete": DeleteRowsEvent}
_SQL_VERB = {"insert": "INSERT INTO", "update": "UPDATE", "delete": "DELETE FROM"}


# ----------------------------------------------------------------------------- the workload

class Workload:
    """The catalogue (t_str without DROPPED columns) as DDL + transactions, and what a decoder
    must see: ``groups`` = [(gtid, ddl sql | None, [(kind, table name, payload, sql)], xid)]."""

    def __init__(self) -> None:
        cat = build(FLAVOR)
        self.tables: dict[str, tuple[str, Table]] = {}
        keep: dict[str, list[int]] = {}
        for name, ct in cat.tables.items():
            if name in DROPPED:
                table = Table.from_sql(T_STR_SQL, database=DB, flavor=FLAVOR)
                want = [c for c in ct.names if c not in DROPPED[name]]
                assert [c.name for c in table.columns] == want, "catalogue t_str changed: update T_STR_SQL"
                self.tables[name] = (T_STR_SQL, table)
                keep[name] = [ct.names.index(c) for c in want]
            else:
                self.tables[name] = (ct.sql, ct.table)

        def cut(name: str, row: tuple) -> tuple:
            return tuple(row[i] for i in keep[name]) if name in keep else row

        self.transactions = []
        for stmts in cat.transactions:
            tx = []
            for kind, name, payload in stmts:
                if kind == "update":
                    drop = DROPPED.get(name, ())
                    payload = [(cut(name, before), {c: v for c, v in assigned.items() if c not in drop})
                               for before, assigned in payload]
                else:
                    payload = [cut(name, r) for r in payload]
                tx.append((kind, name, payload, f"{_SQL_VERB[kind]} {DB}.{name} /* {len(payload)} rows */"))
            self.transactions.append(tx)

    def write(self, directory: Path, image: str) -> tuple[list[Path], list]:
        settings = SessionSettings(row_metadata="FULL", row_image=image, rows_query=True)
        groups = []
        with BinlogWriter(directory, BinlogFormat.mariadb1011(), settings=settings,
                          max_binlog_size=1 << 18) as w:
            xid = 0
            for sql in self.ddl():
                w.ddl(sql, DB)
                xid += 1
                groups.append((w.last_gtid, sql, [], xid))
            for stmts in self.transactions:
                w.advance(1)
                with w.transaction() as tx:
                    for kind, name, payload, sql in stmts:
                        getattr(tx, kind)(self.tables[name][1], payload, sql=sql)
                xid += 1
                groups.append((w.last_gtid, None, stmts, xid))
        return w.files, groups

    def ddl(self) -> list[str]:
        return [sql for sql, _ in self.tables.values()]


# ------------------------------------------------------------------ expected representation

_WIDE = decimal.Context(prec=100)
ZERO_SOURCES = {"DATE": "out of date range", "DATETIME": "out of datetime2 range"}


class _Unchecked:
    """A value pymysqlreplication decodes wrongly (module docstring); only its type is checked."""

    def __init__(self, kind: type, why: str) -> None:
        self.kind, self.why = kind, why


def _negative_fractional_time(v: dt.timedelta) -> bool:
    us = v // dt.timedelta(microseconds=1)
    return us < 0 and us % 1_000_000 != 0


def expected_value(col, v: Any) -> tuple[Any, str | None]:
    """(value pymysqlreplication should yield, its none_source if that value is None)."""
    if v is None:
        return None, "null"
    t = col.type
    if t == "YEAR":
        return (v if v else 1900), None
    if t in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT"):
        return int(v), None
    if t == "BIT":
        return format(int(v), f"0{col.length or 1}b"), None
    if t == "FLOAT":
        return struct.unpack("<f", struct.pack("<f", v))[0], None
    if t == "DOUBLE":
        return float(v), None
    if t == "DECIMAL":
        return Decimal(v).quantize(Decimal(1).scaleb(-(col.scale or 0)), context=_WIDE), None
    if t in ("DATE", "DATETIME") and isinstance(v, MysqlDate | MysqlDateTime):
        assert (v.year, v.month, v.day) == (0, 0, 0), v  # the catalogue's only such values
        return None, ZERO_SOURCES[t]
    if t == "TIMESTAMP":
        if isinstance(v, MysqlDateTime):
            return dt.datetime(1970, 1, 1), None
        return v.astimezone(dt.UTC).replace(tzinfo=None), None
    if t == "TIME" and _negative_fractional_time(v):
        return _Unchecked(dt.timedelta, "negative TIME with a fraction"), None
    if t == "SET":
        return (set(v), None) if v else (None, "empty set")
    if t == "ENUM":
        try:
            col.collation_obj(FLAVOR).encode(v).decode("utf-8")
        except UnicodeError:
            return "", None
        return v, None
    if isinstance(v, Geometry):
        return v.to_bytes(), None
    if isinstance(v, bytes):
        v = v.rstrip(b"\0") if t == "BINARY" else v
        return (v if v else ""), None
    if t == "CHAR":
        return v.rstrip(" "), None
    return v, None


def same(want: Any, got: Any) -> bool:
    if isinstance(want, _Unchecked):
        return isinstance(got, want.kind)
    if isinstance(want, Decimal):
        return isinstance(got, Decimal) and got.as_tuple() == want.as_tuple()
    if isinstance(want, float):
        return isinstance(got, float) and got == want
    return type(got) is type(want) and got == want


def expected_changes(workload: Workload, groups: list, image: str) -> list[tuple]:
    """(event class, table, [(before, after)]) per statement, in binlog order; an image is
    {column: (value, none_source)} over every column (absent ones: None, "cols bitmap")."""
    out = []
    for _gtid, _ddl, stmts, _xid in groups:
        for kind, name, payload, _sql in stmts:
            table = workload.tables[name][1]
            cols = table.columns
            n = len(cols)

            def image_of(row, bits, cols=cols):
                return {c.name: expected_value(c, row[i]) if bits[i] else (None, "cols bitmap")
                        for i, c in enumerate(cols)}

            rows = []
            if kind == "insert":
                bits = images.insert_columns(table, image, range(n), FLAVOR)
                rows = [(None, image_of(r, bits)) for r in payload]
            elif kind == "delete":
                bits = images.delete_columns(table, image, FLAVOR)
                rows = [(image_of(r, bits), None) for r in payload]
            else:
                for before, assigned in payload:
                    idx = {table.index_of(c) for c in assigned}
                    bb, ab = images.update_columns(table, image, idx, FLAVOR)
                    after = tuple(assigned[c.name] if i in idx else before[i] for i, c in enumerate(cols))
                    rows.append((image_of(before, bb), image_of(after, ab)))
            out.append((_KIND[kind], name, rows))
    return out


# ------------------------------------------------------------------------------ the reader

class Connections:
    """``pymysql_wrapper``: counts connections (a second stream connection means the library
    lost the stream and silently replays it from the start) and corrects the length of the
    MariaDB-mode COM_BINLOG_DUMP packet (module docstring)."""

    def __init__(self) -> None:
        self.opened = 0
        self.fixed = 0
        outer = self

        class _Connection(pymysql.connections.Connection):
            def _write_bytes(self, data: bytes) -> None:
                declared = int.from_bytes(data[:3], "little")
                if len(data) > 4 and data[4] == COM_BINLOG_DUMP and declared == len(data) - 5:
                    data = (declared + 1).to_bytes(3, "little") + data[3:]
                    outer.fixed += 1
                super()._write_bytes(data)

        self._cls = _Connection

    def __call__(self, **kwargs: Any) -> pymysql.connections.Connection:
        self.opened += 1
        if self.opened > 2:  # the stream and the control (information_schema) connection
            raise AssertionError("pymysqlreplication opened another connection: it lost the stream "
                                 "and would replay it from the start")
        return self._cls(**kwargs)


def read_stream(server: ServingMariaDBServer, **options: Any) -> list:
    """Every event of ONLY_EVENTS pymysqlreplication yields (non-blocking: until the end of the
    server's last binlog), with the rows of rows events decoded."""
    conns = Connections()
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": server.port, "user": USER,
                             "password": PASSWORD, "read_timeout": 60},
        server_id=4242, blocking=False, only_events=ONLY_EVENTS, verify_checksum=True,
        enable_logging=False, pymysql_wrapper=conns, **options)
    events = []
    try:
        for ev in stream:
            if isinstance(ev, ROWS_EVENTS):
                ev.rows  # noqa: B018 - decode now, while the table map is the one in force
            events.append(ev)
    finally:
        stream.close()
    if options.get("is_mariadb"):
        assert conns.fixed == 1, ("pymysqlreplication's MariaDB COM_BINLOG_DUMP length is right "
                                  "now: drop the workaround in _Connections")
    bad = [type(e).__name__ for e in events if e._is_event_valid is not True]
    assert not bad, f"CRC32 failed for {bad[:5]}"
    return events


# ------------------------------------------------------------------------------- checks

def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 90 else r[:87] + "..."


def compare_rows(events: list, want: list[tuple]) -> list[str]:
    """Rows events (grouped per statement: consecutive events of one class and table) against
    expected_changes(); also checks STMT_END_F on each statement's last rows event only."""
    got: list[tuple] = []
    for ev in events:
        if not isinstance(ev, ROWS_EVENTS):
            if got and got[-1][3] is False:
                got[-1] = (*got[-1][:3], True)  # a non-rows event ends the statement
            continue
        if got and got[-1][3] is False and got[-1][0] is type(ev) and got[-1][1] == ev.table:
            got[-1][2].append(ev)
        else:
            if got and got[-1][3] is False:
                got[-1] = (*got[-1][:3], True)
            got.append((type(ev), ev.table, [ev], False))
    problems = []
    if len(got) != len(want):
        problems.append(f"{len(got)} statements' rows events, expected {len(want)}: "
                        f"{[(c.__name__, t) for c, t, *_ in got][:12]}")
    for k, ((gcls, gtable, evs, _), (wcls, wtable, wrows)) in enumerate(zip(got, want, strict=False)):
        where = f"statement #{k} ({wcls.__name__} {wtable})"
        if (gcls, gtable) != (wcls, wtable) or any(e.schema != DB for e in evs):
            problems.append(f"{where}: got {gcls.__name__} {evs[0].schema}.{gtable}")
            continue
        flags = [bool(e.flags & STMT_END_F) for e in evs]
        if flags != [False] * (len(evs) - 1) + [True]:
            problems.append(f"{where}: STMT_END_F per rows event {flags}")
        rows = [r for e in evs for r in e.rows]
        if len(rows) != len(wrows):
            problems.append(f"{where}: {len(rows)} rows, expected {len(wrows)}")
            continue
        for i, (row, (wb, wa)) in enumerate(zip(rows, wrows, strict=True)):
            for label, w in (("before", wb), ("after", wa)):
                if w is None:
                    continue
                key = "values" if wb is None or wa is None else f"{label}_values"
                src_key = "none_sources" if key == "values" else f"{label}_none_sources"
                values, sources = row[key], row[src_key]
                if list(values) != list(w):
                    problems.append(f"{where} row {i} {label}: columns {list(values)} != {list(w)}")
                    continue
                for c, (wv, wsrc) in w.items():
                    gv = values[c]
                    if not same(wv, gv):
                        problems.append(f"{where} row {i} {label}.{c}: decoded {_short(gv)} "
                                        f"({type(gv).__name__}), wrote {_short(wv)}")
                    elif wv is None and sources.get(c) != wsrc:
                        problems.append(f"{where} row {i} {label}.{c}: none_source "
                                        f"{sources.get(c)!r}, expected {wsrc!r}")
    return problems


def _token(ev) -> tuple | None:
    if isinstance(ev, MariadbGtidEvent):
        return ("gtid", ev.gtid, bool(ev.flags & 0x01))  # FL_STANDALONE: DDL
    if isinstance(ev, QueryEvent):
        return ("query", ev.schema.decode(), ev.query)
    if isinstance(ev, MariadbAnnotateRowsEvent):
        return ("annotate", ev.sql_statement.decode())
    if isinstance(ev, TableMapEvent):
        return ("table_map", ev.schema, ev.table)
    if isinstance(ev, ROWS_EVENTS):
        return ("rows", type(ev).__name__, ev.table)
    if isinstance(ev, XidEvent):
        return ("xid", ev.xid)
    return None


def event_sequence(events: list) -> list[tuple]:
    """The transaction-level tokens, a run of rows events of one statement collapsed to one."""
    seq: list[tuple] = []
    for ev in events:
        tok = _token(ev)
        if tok is not None and not (tok[0] == "rows" and seq and seq[-1] == tok):
            seq.append(tok)
    return seq


def expected_sequence(groups: list, *, annotate: bool) -> list[tuple]:
    seq: list[tuple] = []
    for gtid, ddl, stmts, xid in groups:
        seq.append(("gtid", gtid, ddl is not None))
        if ddl is not None:
            seq.append(("query", DB, ddl))
            continue
        for kind, name, _payload, sql in stmts:
            if annotate:
                seq.append(("annotate", sql))
            seq += [("table_map", DB, name), ("rows", _KIND[kind].__name__, name)]
        seq.append(("xid", xid))
    return seq


def file_structure(events: list) -> list[tuple]:
    """Rotations (next file, position, fake = timestamp 0: the server's, at each file start),
    STOP and the number of FDEs, in stream order."""
    out: list[tuple] = []
    for ev in events:
        if isinstance(ev, RotateEvent):
            out.append(("rotate", ev.next_binlog, ev.position, ev.timestamp == 0))
        elif isinstance(ev, StopEvent):
            out.append(("stop",))
        elif isinstance(ev, FormatDescriptionEvent):
            out.append(("fde",))
    return out


def expected_file_structure(files: list[Path], server_file: str) -> list[tuple]:
    out: list[tuple] = []
    for i, f in enumerate(files):
        out += [("rotate", f.name, 4, True), ("fde",)]
        if i + 1 < len(files):
            out.append(("rotate", files[i + 1].name, 4, False))  # ours, closing the file
    return out + [("stop",), ("rotate", server_file, 4, True), ("fde",)]


# ------------------------------------------------------------------------------- the tests

@pytest.fixture(scope="module")
def workload() -> Workload:
    return Workload()


def serve(template: Path, files: list[Path], ddl: list[str]) -> ServingMariaDBServer:
    """A started server (row metadata FULL) holding the tables, serving ``files``."""
    server = ServingMariaDBServer(template, row_metadata="FULL")
    server.start()
    try:
        server.execute(f"CREATE DATABASE {DB};\nUSE {DB};\n" + "".join(f"{s};\n" for s in ddl))
        server.create_replication_user(USER, PASSWORD)
        server.serve_binlogs(files)
    except BaseException:
        server.stop()
        raise
    return server


def check_served(server: ServingMariaDBServer, files: list[Path], last_gtid: str) -> str:
    """SHOW BINARY LOGS lists our files, the server took its GTID state from them, and
    mariadb-binlog reads them from the server. Returns the server's own (new) binlog name."""
    listed = server.query("SHOW BINARY LOGS")
    ours = [(f.name, str(f.stat().st_size)) for f in files]
    assert [tuple(r[:2]) for r in listed[:len(files)]] == ours, listed
    assert len(listed) == len(files) + 1, listed
    assert server.query("SELECT @@gtid_binlog_state") == [(last_gtid,)]
    proc = mariadb_binlog([f.name for f in files], "--no-defaults", "--read-from-remote-server",
                          f"--socket={server.socket}", "-uroot", "-vv",
                          "--base64-output=decode-rows")
    assert proc.returncode == 0, proc.stderr
    gtids = [line.split("GTID ")[1].split()[0] for line in proc.stdout.splitlines()
             if "\tGTID " in line]
    assert gtids[-1] == last_gtid and len(gtids) == int(last_gtid.rsplit("-", 1)[1]), gtids
    return listed[-1][0]


@pytest.mark.parametrize("image", ["FULL", "MINIMAL"])
def test_pymysqlreplication_decodes_served_binlogs(tmp_path: Path, mariadb_template: Path,
                                                   workload: Workload, image: str) -> None:
    files, groups = workload.write(tmp_path / "out", image)
    assert len(files) == 2  # max_binlog_size 256 KiB: a rotation between transactions
    last_gtid = groups[-1][0]
    server = serve(mariadb_template, files, workload.ddl())
    try:
        server_file = check_served(server, files, last_gtid)
        want_rows = expected_changes(workload, groups, image)

        # 1. MariaDB mode: from the first file in the index, with Annotate_rows.
        events = read_stream(server, is_mariadb=True, annotate_rows_event=True)
        problems = compare_rows(events, want_rows)
        assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:25])
        assert event_sequence(events) == expected_sequence(groups, annotate=True)
        assert file_structure(events) == expected_file_structure(files, server_file)
        assert [e.next_binlog for e in events if isinstance(e, RotateEvent)][0] == files[0].name

        # 2. File/position mode: binlog.000001 at 4 (the server leaves Annotate_rows out).
        events = read_stream(server, is_mariadb=False, resume_stream=True,
                             log_file=files[0].name, log_pos=4)
        problems = compare_rows(events, want_rows)
        assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:25])
        assert event_sequence(events) == expected_sequence(groups, annotate=False)
        assert file_structure(events) == expected_file_structure(files, server_file)

        # 3. GTID auto_position: after the DDL (inside binlog.000001), and after the third
        # transaction (the server finds binlog.000002 through its GTID_LIST).
        for after in (len(workload.tables), len(groups) - 1):
            start = groups[after - 1][0]
            events = read_stream(server, is_mariadb=True, annotate_rows_event=True,
                                 auto_position=start)
            tail = groups[after:]
            problems = compare_rows(events, expected_changes(workload, tail, image))
            assert not problems, f"from {start}: " + "\n".join(problems[:25])
            assert event_sequence(events) == expected_sequence(tail, annotate=True), start

        # 4. The information_schema path: with the server's binlog_row_metadata not FULL the
        # library ignores the Table_map's optional metadata and (use_column_name_cache) takes
        # the column names from information_schema, from the tables made before the swap.
        # Without charsets, signedness and ENUM/SET members it cannot decode the values
        # faithfully (latin1 would even raise), so only the names and row counts are compared.
        server.execute("SET GLOBAL binlog_row_metadata = 'MINIMAL';")
        events = read_stream(server, is_mariadb=True, use_column_name_cache=True,
                             ignore_decode_errors=True)
        names = [(type(e), e.table, [list(r.get("values", r.get("after_values"))) for r in e.rows])
                 for e in events if isinstance(e, ROWS_EVENTS)]
        got = [(cls, table, n) for cls, table, rows in names for n in rows]
        want = [(cls, name, [c.name for c in workload.tables[name][1].columns])
                for cls, name, rows in want_rows for _ in rows]
        assert got == want
    finally:
        server.stop()


# Negative TIME values with a fraction (column, SQL literal, the value as we write it).
NEG_TIME = [("t2", "-00:00:00.01", dt.timedelta(microseconds=-10000)),
            ("t2", "-15:04:05.12", -dt.timedelta(hours=15, minutes=4, seconds=5, microseconds=120000)),
            ("t6", "-00:00:00.000001", -dt.timedelta(microseconds=1)),
            ("t6", "-838:59:58.999999",
             -dt.timedelta(hours=838, minutes=59, seconds=58, microseconds=999999))]
POSITIVE = [("t2", "100:00:00.99", dt.timedelta(hours=100, microseconds=990000)),
            ("t6", "-00:00:01", -dt.timedelta(seconds=1))]  # controls: decoded right


def test_negative_fractional_time_is_a_decoder_limit(tmp_path: Path, mariadb_template: Path) -> None:
    """pymysqlreplication decodes the server's own binlog of negative fractional TIMEs to the
    same (wrong) timedeltas as ours: the exclusion in expected_value is its limit, not ours."""
    sql = "CREATE TABLE tt (id INT NOT NULL PRIMARY KEY, t2 TIME(2), t6 TIME(6))"
    table = Table.from_sql(sql, database=DB, flavor=FLAVOR)
    cases = NEG_TIME + POSITIVE
    rows = [{"id": i, "t2": None, "t6": None, col: v} for i, (col, _, v) in enumerate(cases)]
    with BinlogWriter(tmp_path / "out", BinlogFormat.mariadb1011(),
                      settings=SessionSettings(row_metadata="FULL")) as w:
        with w.transaction() as tx:
            tx.insert(table, rows)
    server = ServingMariaDBServer(mariadb_template, row_metadata="FULL")
    server.start()
    try:
        values = ", ".join(f"({i}, {_lit(col == 't2', lit)}, {_lit(col == 't6', lit)})"
                           for i, (col, lit, _) in enumerate(cases))
        server.execute(f"CREATE DATABASE {DB}; USE {DB}; {sql}; INSERT INTO tt VALUES {values};")
        server.create_replication_user(USER, PASSWORD)

        def decoded() -> list[dict]:
            events = read_stream(server, is_mariadb=False, resume_stream=True,
                                 log_file="binlog.000001", log_pos=4)
            return [r["values"] for e in events if isinstance(e, WriteRowsEvent) for r in e.rows]

        theirs = decoded()
        server.serve_binlogs(w.files)
        ours = decoded()
    finally:
        server.stop()
    assert ours == theirs
    got = [r[col] for r, (col, _, _) in zip(theirs, cases, strict=True)]
    assert got[len(NEG_TIME):] == [v for _, _, v in POSITIVE]
    # the decoder's limit: -(integer part) + fraction, e.g. -00:00:00.01 -> -00:00:00.99
    assert got[0] == -dt.timedelta(microseconds=990000)
    assert all(g != v for g, (_, _, v) in zip(got, NEG_TIME, strict=False))


def _lit(used: bool, literal: str) -> str:
    return f"'{literal}'" if used else "NULL"
