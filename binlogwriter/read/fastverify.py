"""``verify --roundtrip`` without building event objects for the common events (format.md §3–§13).

:meth:`FastRoundtrip.check` answers True only when it has shown that decoding an event and
encoding it again gives its bytes back — the verdict of ``encode_event(decode_event(data))
== data`` (:class:`binlogwriter.read.roundtrip.Roundtrip`) — and False when it cannot tell;
the caller then runs the declarative check, which names what differs. Every event starts
with its CRC32 checked (the residue check, framing.py). Then:

* the common header's six integers re-encode to themselves (format.md §3) and the footer is
  the CRC of the bytes, so an event's verdict is its body's;
* XID (a u64, format.md §10) and the GTID shapes the fast decoders read
  (:mod:`binlogwriter.read.fastdecode`) re-encode to their bytes for every body of those
  shapes (property-tested against ``encode_event`` in tests/read/test_fastverify_props.py);
* bodies that repeat (Query ``BEGIN``, Table_map, …) are checked declaratively once per
  distinct body — decoding and encoding are pure functions of (format, type, body); a
  Table_map seen again still hands its columns to the reader's state;
* a rows event's post-header and column bitmaps (flags, extra info, width, bitmaps) are
  checked declaratively once per distinct bytes — the table id is a fixed-width integer
  that re-encodes to itself and the rest encodes from those fields alone — and its row
  images are checked value by value by compiled verifiers
  (:func:`binlogwriter.read.rowencode.image_verifier`: integers by identity; DECIMAL,
  TIMESTAMP2 and DATETIME2 by exact rules on their bytes and short CHAR/VARCHAR/TEXT values
  by a sufficient one (:mod:`binlogwriter.read.canonical`); every other value decoded by its
  codec and encoded again, repeated fixed-size values and JSON documents remembered by their
  bytes);
* XID and GTID verdicts are taken from the bytes, without building the event
  (:mod:`binlogwriter.read.gtidcheck`, property-tested equal to the fast
  event readers' verdicts).

:func:`verify_roundtrip` is ``verify --roundtrip`` for one file: the framing loop with these
rules inline, the reader and the declarative check for the events they do not show.
"""

from __future__ import annotations

import zlib
from typing import Any

from binlogwriter.events import RawEvent
from binlogwriter.format import (
    ANONYMOUS_GTID_LOG_EVENT,
    FORMAT_DESCRIPTION_EVENT,
    GTID_LOG_EVENT,
    MARIADB_GTID_EVENT,
    PARTIAL_UPDATE_ROWS_EVENT,
    TABLE_MAP_EVENT,
    TRANSACTION_PAYLOAD_EVENT,
    XID_EVENT,
)
from binlogwriter.layouts.header import HEADER_SIZE, TYPE_AT, header_struct
from binlogwriter.layouts.rows import COMPRESSED_TYPES, ROWS_TYPES, UPDATE_TYPES, V2_TYPES, unsized_column
from binlogwriter.read.fastdecode import CACHED_TYPES
from binlogwriter.read.framing import CRC_RESIDUE, no_events_error, whole_event
from binlogwriter.read.gtidcheck import mariadb_gtid_ok, mysql_gtid_ok
from binlogwriter.read.places import MARIADB_GTID_POST, MYSQL_GTID, rows_places_of
from binlogwriter.read.rowencode import image_verifier

__all__ = ["FastRoundtrip", "verify_roundtrip", "kept_raw_text"]

_ROWS = frozenset(ROWS_TYPES) - {PARTIAL_UPDATE_ROWS_EVENT} - frozenset(COMPRESSED_TYPES)
_KNOWN_POST = {t: rows_places_of(t, 6).post for t in ROWS_TYPES}
_V2 = frozenset(V2_TYPES)


class _Plan:
    """A checked rows-event header: its images' compiled decoders and encoders."""

    __slots__ = ("cols", "bver", "aver")

    def __init__(self, cols: tuple, present: tuple, after: tuple | None) -> None:
        self.cols = cols
        self.bver = image_verifier(cols, present)
        self.aver = image_verifier(cols, after) if after is not None else None


class FastRoundtrip:
    """The fast verdicts for one reader (its state gives rows events their columns)."""

    def __init__(self, reader: Any, roundtrip: Any) -> None:
        self.reader = reader
        self.rt = roundtrip
        self._fmt: Any = None
        self._bodies: dict[tuple, Any] = {}
        self._plans: dict[tuple, _Plan] = {}

    def _slow(self, rec: Any) -> Any:
        """The declarative verdict; the decoded event when its bytes come back, else None
        (also for an event kept raw: it comes back but was not decoded — the caller names it)."""
        try:
            ev = self.reader.decode(rec)
            if ev.type_code == TRANSACTION_PAYLOAD_EVENT or isinstance(ev, RawEvent) or self.rt.check(ev, rec.data, rec.fmt) is not None:
                return None
        except Exception:  # noqa: BLE001 - the caller's declarative check reports it
            return None
        return ev

    def set_format(self, fmt: Any) -> None:
        """A new FDE: its footer and table id sizes; the caches of bodies and rows headers,
        which hold for one format only, emptied."""
        self._fmt = fmt
        self._bodies.clear()
        self._plans.clear()
        self._footer = fmt.footer_size
        self._tid = fmt.table_id_size

    def check(self, rec: Any) -> bool:
        """True: ``rec`` decodes and re-encodes to its own bytes. False: not shown here."""
        data = rec.data
        fmt = rec.fmt
        if fmt is not self._fmt:
            self.set_format(fmt)
        n = len(data)
        footer = self._footer
        if not whole_event(data):
            return False
        t = data[TYPE_AT]
        if t == FORMAT_DESCRIPTION_EVENT:
            return False
        if footer and zlib.crc32(data) != CRC_RESIDUE:
            return False
        end = n - footer
        if t in _ROWS:
            return self._rows(rec, t, data, end, fmt)
        if t in CACHED_TYPES:
            key = (t, data[HEADER_SIZE:end])
            hit = self._bodies.get(key)
            if hit is None:
                ev = self._slow(rec)
                if ev is None:
                    return False
                hit = (ev, self.reader.state.columns_for(ev.table_id) if t == TABLE_MAP_EVENT else None)
                if len(self._bodies) > 8192:
                    self._bodies.clear()
                self._bodies[key] = hit
            elif t == TABLE_MAP_EVENT:
                _table_map_again(hit, self.reader.state)
            return True
        if t == XID_EVENT:  # XID: one u64 (format.md §10)
            return end - HEADER_SIZE == 8 and fmt.post_header_len(XID_EVENT) == 0
        if t == MARIADB_GTID_EVENT:
            return fmt.post_header_len(MARIADB_GTID_EVENT) == MARIADB_GTID_POST and mariadb_gtid_ok(data, end)
        if t in (GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT):
            return fmt.post_header_len(t) == MYSQL_GTID.post and mysql_gtid_ok(data, end)
        return False

    def _rows(self, rec: Any, t: int, data: bytes, end: int, fmt: Any) -> bool:
        if fmt.post_header_len(t) != _KNOWN_POST[t]:
            return False
        return self._rows_at(data, t, end, self._tid, self.reader.state, rec)

    def _rows_at(self, data: bytes, t: int, end: int, tid: int, state: Any, rec: Any = None) -> bool:
        """A rows event's verdict (post-header length already checked). Without ``rec``, a
        header not seen before is not shown here (False): the caller asks :meth:`check`."""
        cols = state.columns.get(int.from_bytes(data[HEADER_SIZE:HEADER_SIZE + tid], "little"))
        if cols is None:
            return False
        p = HEADER_SIZE + tid
        q = p + 2
        try:
            if t in _V2:
                q += data[q] | data[q + 1] << 8
            b = data[q]
            if b < 251:  # the width, a packed integer (format.md §13)
                q += 1
            elif b == 0xFC:
                b = data[q + 1] | data[q + 2] << 8
                q += 3
            elif b == 0xFD:
                b = int.from_bytes(data[q + 1:q + 4], "little")
                q += 4
            else:
                return False
        except IndexError:
            return False
        nb = (b + 7) >> 3
        q += nb << 1 if t in UPDATE_TYPES else nb
        if q > end:
            return False
        key = (t, id(cols), data[p:q])
        plan = self._plans.get(key)
        if plan is None or plan.cols is not cols:
            if rec is None or any(unsized_column(c) for c in cols):
                return False
            ev = self._slow(rec)
            if ev is None or ev.rows is None or ev.width != len(cols):
                return False
            if len(self._plans) > 1024:
                self._plans.clear()
            self._plans[key] = _Plan(cols, tuple(ev.columns_present),
                                     tuple(ev.columns_after) if t in UPDATE_TYPES else None)
            return True
        buf = data[q:end]
        n = len(buf)
        pos = 0
        bver, aver = plan.bver, plan.aver
        try:
            if aver is None:
                while pos < n:
                    pos = bver(buf, pos)
                    if pos < 0:
                        return False
            else:
                while pos < n:
                    pos = bver(buf, pos)
                    if pos < 0:
                        return False
                    pos = aver(buf, pos)
                    if pos < 0:
                        return False
        except Exception:  # noqa: BLE001 - malformed or refused: the declarative check reports it
            return False
        return pos == n


def kept_raw_text(ev: Any, file: str, offset: int, inner: int | None = None) -> str:
    """How ``verify`` names an event the decoder kept raw: its type, where it is (an event
    inside a TRANSACTION_PAYLOAD: the payload's place and the byte in its payload), why."""
    where = f"{file}:{offset}" if inner is None else f"{file}:{offset} (TRANSACTION_PAYLOAD_EVENT, payload byte {inner})"
    return f"{ev.type_name} at {where}: {ev.kept_raw or 'its type is not decoded'}"


def _check_payload(ev: Any, rec: Any, kept: list[str] | None = None) -> list[str]:
    """Inner events of a TRANSACTION_PAYLOAD re-encode to the decompressed stream (the
    compressed bytes themselves are kept as read: format.md §15); the inner events kept raw
    are named in ``kept``."""
    from binlogwriter.events import encode_event
    from binlogwriter.payload import inner_events

    out = []
    for pos, chunk, inner in inner_events(ev, rec.fmt):
        if isinstance(inner, RawEvent) and kept is not None:
            kept.append(kept_raw_text(inner, rec.file, rec.offset, pos))
        if encode_event(inner, rec.fmt, footer=False) != chunk:
            out.append(f"re-encoded inner {inner.type_name} at payload byte {pos} differs "
                       f"- at {rec.file}:{rec.offset}")
    return out


def _fast_forms(fmt: Any) -> tuple[frozenset, bool, bool, bool]:
    """What the inline verdicts of :func:`verify_roundtrip` may take under one FDE: the rows
    event types whose post-header has the length the compiled verifiers read; whether XID
    bodies are bare, MariaDB GTID post-headers 19 bytes and MySQL GTID ones 42."""
    return (frozenset(x for x in _ROWS if fmt.post_header_len(x) == _KNOWN_POST[x]),
            fmt.post_header_len(XID_EVENT) == 0,
            fmt.post_header_len(MARIADB_GTID_EVENT) == MARIADB_GTID_POST,
            fmt.post_header_len(GTID_LOG_EVENT) == MYSQL_GTID.post and fmt.post_header_len(ANONYMOUS_GTID_LOG_EVENT) == MYSQL_GTID.post)


def _table_map_again(hit: tuple[Any, Any], state: Any) -> None:
    """A Table_map body seen before (its decoded event and columns): handed to the reading
    state again, as decoding it would."""
    ev, cols = hit
    state.tables[ev.table_id] = ev
    if cols is None:
        state.columns.pop(ev.table_id, None)
    else:
        state.columns[ev.table_id] = cols


_BYTES_VERDICT = frozenset((XID_EVENT, MARIADB_GTID_EVENT, GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT))


def _bytes_verdict(t: int, data: bytes, end: int, xid_ok: bool, maria_ok: bool, mysql_ok: bool) -> bool:
    """An XID or GTID event's verdict from its bytes (``end``: where its footer starts), under
    the forms :func:`_fast_forms` found: an XID body is one u64 (format.md §10); a GTID has
    one of the shapes :mod:`binlogwriter.read.gtidcheck` shows to re-encode."""
    if t == XID_EVENT:
        return xid_ok and end == HEADER_SIZE + 8
    if t == MARIADB_GTID_EVENT:
        return maria_ok and mariadb_gtid_ok(data, end)
    return mysql_ok and mysql_gtid_ok(data, end)


def _declarative_check(reader: Any, rt: Any, rec: Any, kept: list[str] | None, failures: list[str]) -> None:
    """An event the fast verdicts did not show, checked by the reader and the declarative check
    (:class:`~binlogwriter.read.roundtrip.Roundtrip`: the first byte that differs), its
    failures appended to ``failures``. An event kept raw re-encodes by construction: it is not
    decoded, only named in ``kept``; a TRANSACTION_PAYLOAD's inner events are checked too."""
    name, off, data = rec.file, rec.offset, rec.data
    ev = reader.decode(rec)
    if isinstance(ev, RawEvent):
        if kept is not None:
            kept.append(kept_raw_text(ev, name, off))
        return
    if ev.type_code == TRANSACTION_PAYLOAD_EVENT:
        failures.extend(_check_payload(ev, rec, kept))
    again = rt.check(ev, data, rec.fmt)
    if again is not None:
        diff = next((i for i, (a, b) in enumerate(zip(again, data, strict=False)) if a != b),
                    min(len(again), len(data)))
        failures.append(f"re-encoded {ev.type_name} differs at byte {diff} "
                        f"({len(again)} vs {len(data)} bytes) - at {name}:{off}")


def verify_roundtrip(path: str, kept: list[str] | None = None) -> tuple[int, list[str]]:  # noqa: C901
    """``verify --roundtrip`` of one file: (events framed, failures, each naming file:offset).

    An event the decoder keeps raw (:class:`~binlogwriter.events.RawEvent`: an undeclared
    type, or bytes that parse but are not in the form the encoder writes — a packed integer
    longer than needed, a tagged GTID whose fields encode otherwise, a zlib stream other than
    the server's ``compress()``) gives its bytes back without having been decoded: it is no
    failure, and not a roundtrip either. Each is named in ``kept`` (type, ``file:offset``,
    why; inner events of a TRANSACTION_PAYLOAD too) for the caller to report.

    The events are framed here (the framing rules of :func:`~binlogwriter.read.framing.iter_frames`,
    whose errors end the file's check as the reader's do), the log_pos chain checked, and
    each event's verdict taken from :meth:`FastRoundtrip.check`'s rules inline — no record
    object for the events it shows to re-encode. Every other event is decoded by the reader
    and checked declaratively (:class:`~binlogwriter.read.roundtrip.Roundtrip`), which names
    the first byte that differs; a decode error ends the file's check, located."""
    import os

    from binlogwriter.errors import BinlogError, DecodeError
    from binlogwriter.read.framing import FDE, iter_frames
    from binlogwriter.read.roundtrip import Roundtrip
    from binlogwriter.reader import BinlogReader, RawRecord

    name = os.fspath(path)
    reader = BinlogReader([name])  # for its state (Table_maps) and the declarative path
    rt = Roundtrip()
    fast = FastRoundtrip(reader, rt)
    failures: list[str] = []
    events = 0
    rec = None
    unpack = header_struct("type_code", "log_pos").unpack_from
    crc32 = zlib.crc32
    frames = iter_frames(name, verify_checksum=True, check_crc=False, max_event_size=reader.max_event_size)
    try:
        try:
            footer = tid = 0
            bodies = fast._bodies
            rows_ok: frozenset = frozenset()
            state = reader.state
            xid_ok = maria_ok = mysql_ok = False
            for off, data, fmt in frames:
                t, log_pos = unpack(data, 0)
                length = len(data)  # iter_frames framed it
                end = off + length
                if t == FDE:
                    reader.fmt = fmt
                    fast.set_format(fmt)
                    footer, tid = fmt.footer_size, fmt.table_id_size
                    rows_ok, xid_ok, maria_ok, mysql_ok = _fast_forms(fmt)
                events += 1
                if log_pos != end and log_pos != 0:
                    failures.append(f"log_pos {log_pos} != offset + event_length {end} - at {name}:{off}")
                    continue
                if t != FDE and (not footer or crc32(data) == CRC_RESIDUE):
                    e = length - footer
                    if t in rows_ok:
                        if fast._rows_at(data, t, e, tid, state):
                            continue
                    elif t in CACHED_TYPES:
                        hit = bodies.get((t, data[HEADER_SIZE:e]))
                        if hit is not None:
                            if t == TABLE_MAP_EVENT:
                                _table_map_again(hit, state)
                            continue
                    elif t in _BYTES_VERDICT and _bytes_verdict(t, data, e, xid_ok, maria_ok, mysql_ok):
                        continue
                rec = RawRecord(name, off, data, fmt)
                if not fast.check(rec):  # else: first sight of a repeated body, a new rows header, …
                    _declarative_check(reader, rt, rec, kept, failures)
            if events == 0:
                raise no_events_error(name)
        finally:
            frames.close()
    except DecodeError as exc:
        failures.append(str(exc))
    except BinlogError as exc:  # a value the encoder refuses: the event it was read from
        failures.append(f"{exc} - at {name}:{rec.offset}" if rec is not None else f"{exc} - in {name}")
    return events, failures
