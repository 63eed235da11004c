"""Many transaction groups -> one contiguous buffer (format.md §3, §8, §13, §18).

:func:`plan_batch` takes groups of events whose ids are already allocated (XIDs, GNOs,
table ids: the writer gives them before encoding) and works out, without placing
anything, every event's body and length:

* bodies come from templates built once through the construct declaration of the event
  (``binlogwriter.layouts``) and patched: a GTID's fixed post-header is a row of a numpy
  structured array whose dtype is derived from the layout (:mod:`binlogwriter.batch.dtypes`),
  its commit timestamp / server version parts are built by their declared fields and
  cached; XIDs are a derived-dtype array; MariaDB GTIDs patch ``seq_no`` into a template;
  BEGIN, Table_map, ROWS_QUERY and ANNOTATE_ROWS bodies are built once per content; a rows
  event is its template (post-header, width, bitmaps) followed by the already encoded row
  images. Anything else is built by the declaration itself (:func:`encode_body`);
* ``event_length = 19 + body + footer``; a GTID's ``transaction_length`` (format.md §8:
  the whole group, the GTID included) follows by arithmetic from the others' lengths and
  the packed-int size of the value itself, by the same fixed point the declarative writer
  iterates by re-encoding.

:meth:`Batch.encode` then places groups ``lo..hi`` at a file offset: positions are prefix
sums of the lengths (``log_pos = offset + end``), the 19-byte headers are one structured
array written with ``tobytes``, and the CRC32 of every event is computed exactly once,
over its final bytes in the output buffer (an FDE's with ``LOG_EVENT_BINLOG_IN_USE_F``
cleared, format.md §3).

The bytes equal those of ``encode_event`` (the declarative path) event by event; the
property test tests/batch/test_batch_equivalence.py checks it.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import construct as cs
import numpy as np

from binlogwriter.batch.dtypes import HEADER_DTYPE, fixed_dtype, post_header_dtype
from binlogwriter.errors import EncodeError
from binlogwriter.events import (
    AnnotateRowsEvent,
    AnonymousGtidEvent,
    Event,
    FormatDescriptionEvent,
    GtidEvent,
    GtidTaggedEvent,
    MariadbGtidEvent,
    QueryEvent,
    RowsQueryEvent,
    XidEvent,
    _event_crc,
    _has_footer,
    encode_body,
)
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts import REGISTRY
from binlogwriter.layouts.header import HEADER_SIZE
from binlogwriter.layouts.primitives import encode_packed_int, packed_int_size
from binlogwriter.rows_events import RowsEvent
from binlogwriter.table_map_event import TableMapEvent

__all__ = ["Batch", "plan_batch", "encode_events", "transaction_length"]

_GTID_TYPES = (33, 34)
_MEMO_LIMIT = 4096
_ZERO4 = b"\0\0\0\0"


def transaction_length(start: int | None, others: int) -> int:
    """``transaction_length`` of a GTID whose event is ``others`` bytes long without the
    packed value (format.md §8): the fixed point of ``tl = others + packed_int_size(tl)``
    reached from ``start`` — the iteration the declarative writer runs by re-encoding."""
    tl = start or 0
    while True:
        total = others + packed_int_size(tl)
        if total == tl:
            return tl
        tl = total


# ----------------------------------------------------------------------------- templates


class _Templates:
    """Bodies built once through the declaration, per format (bounded memo)."""

    def __init__(self, fmt: BinlogFormat) -> None:
        self.fmt = fmt
        self.memo: dict[Any, bytes] = {}
        self.gtid_dt = post_header_dtype(33, fmt)
        entry = REGISTRY[33][0]
        n_post = REGISTRY[33][2]
        self.gtid_tail_fields = {f.name: f for f in list(entry)[n_post:]}
        self.xid_dt = fixed_dtype(list(REGISTRY[16][0]))
        mfields = list(REGISTRY[162][0])
        self.mgtid_seq = (mfields[0].name, fixed_dtype(mfields[:1]).itemsize)

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
        key = ("mgtid", ev.domain_id, ev.flags2, ev.trailing)
        return self.remember(key, lambda: encode_body(
            MariadbGtidEvent(seq_no=0, domain_id=ev.domain_id, flags2=ev.flags2, trailing=ev.trailing), self.fmt))


@lru_cache(maxsize=64)
def _templates(fmt: BinlogFormat) -> _Templates:
    return _Templates(fmt)


def _memo_key(ev: Event) -> Any:
    """Content key of the bodies that repeat (BEGIN, Table_map, rows-query texts)."""
    t = type(ev)
    if t is QueryEvent:
        return (2, ev.thread_id, ev.exec_time, ev.error_code, repr(ev.status_vars), ev.db, ev.query,
                ev.post_header_extra, ev.unparsed)
    if t is TableMapEvent:
        nb = ev.null_bits
        return (19, ev.table_id, ev.tm_flags, ev.schema, ev.table, tuple(ev.column_types), ev.metadata,
                tuple(nb), getattr(nb, "pad", 0), repr(ev.optional_metadata), ev.post_header_extra, ev.unparsed)
    if t is RowsQueryEvent or t is AnnotateRowsEvent:
        return (ev.TYPE, repr(ev.to_layout()))
    return None


def _plain_gtid(ev: Event) -> bool:
    return (type(ev) in (GtidEvent, AnonymousGtidEvent) and not ev.post_header_extra and not ev.unparsed
            and ev.lt_typecode is not None and ev.last_committed is not None and ev.sequence_number is not None
            and ev.immediate_commit_timestamp is not None and ev.transaction_length is not None)


def _plain_rows(ev: Event) -> bool:
    return (isinstance(ev, RowsEvent) and ev.rows_raw is not None and not ev.post_header_extra
            and not ev.unparsed and ev.TYPE < 166 and ev.TYPE != 39)


# ----------------------------------------------------------------------------- the batch


@dataclass
class Batch:
    """Planned events of many groups (see module docstring). Arrays are per event unless
    named per group; ``group_first[g]`` is the first event of group ``g`` (one past the end
    at ``g = len(groups)``)."""

    fmt: BinlogFormat
    types: np.ndarray
    server_ids: np.ndarray
    flags: np.ndarray
    timestamps: np.ndarray
    lengths: np.ndarray
    footers: np.ndarray
    bodies: list[bytes]
    group_first: np.ndarray
    group_sizes: np.ndarray
    fde: list[int]
    log_pos_zero: bool = False

    def events_in(self, lo: int, hi: int) -> int:
        return int(self.group_first[hi] - self.group_first[lo])

    def encode(self, lo: int, hi: int, offset: int) -> bytearray:
        """The bytes of groups ``lo..hi-1`` placed at file ``offset``."""
        a, b = int(self.group_first[lo]), int(self.group_first[hi])
        n = b - a
        if n == 0:
            return bytearray()
        lengths = self.lengths[a:b]
        ends = np.cumsum(lengths)
        hdr = np.empty(n, dtype=HEADER_DTYPE)
        hdr["timestamp"] = self.timestamps[a:b]
        hdr["type_code"] = self.types[a:b]
        hdr["server_id"] = self.server_ids[a:b]
        hdr["event_length"] = lengths
        if self.log_pos_zero:
            hdr["log_pos"] = 0
        else:
            if offset + int(ends[-1]) > 0xFFFFFFFF:
                raise EncodeError(f"log_pos beyond 4 GiB at offset {offset}: a binlog file is limited to 4 GiB")
            hdr["log_pos"] = ends + offset
        hdr["flags"] = self.flags[a:b]
        hb = memoryview(hdr.tobytes())
        bodies = self.bodies
        foot = self.footers
        parts: list[Any] = []
        add = parts.append
        for k in range(n):
            add(hb[k * HEADER_SIZE:(k + 1) * HEADER_SIZE])
            add(bodies[a + k])
            if foot[a + k]:
                add(_ZERO4)
        buf = bytearray().join(parts)
        if foot[a:b].any():
            self._checksums(buf, a, b, ends, lengths)
        return buf

    def _checksums(self, buf: bytearray, a: int, b: int, ends: np.ndarray, lengths: np.ndarray) -> None:
        """One CRC32 per event over its final bytes, written into its footer (format.md §3)."""
        mv = memoryview(buf)
        foot = self.footers[a:b]
        idx = np.flatnonzero(foot)
        stops = (ends[idx] - 4).tolist()
        starts = (ends[idx] - lengths[idx]).tolist()
        crc = zlib.crc32
        crcs = [crc(mv[s:e]) for s, e in zip(starts, stops, strict=True)]
        for i in self.fde:  # an FDE's CRC is computed with the in-use flag cleared
            if a <= i < b:
                j = int(np.searchsorted(idx, i - a))
                crcs[j] = _event_crc(mv[starts[j]:stops[j]])
        out = np.frombuffer(buf, dtype=np.uint8)
        pos = np.asarray(stops, dtype=np.int64)[:, None] + np.arange(4)
        out[pos] = np.asarray(crcs, dtype="<u4").view(np.uint8).reshape(-1, 4)


def _int(v: Any, default: int = 0) -> int:
    return default if v is None else v


def plan_batch(groups: Sequence[Sequence[Event]], fmt: BinlogFormat, timestamps: Sequence[int] | int, *,
               footer: bool | None = None, log_pos_zero: bool = False) -> Batch:
    """Plan ``groups`` (see module docstring). ``timestamps``: the clock of each group (or
    one for all) for events whose ``timestamp`` is None. A leading GTID / anonymous GTID /
    tagged GTID whose ``transaction_length`` is not None gets the group's length.
    ``footer``: None = the format's rule per event; False = no CRC (events inside a
    TRANSACTION_PAYLOAD, format.md §15, with ``log_pos_zero``)."""
    tpl = _templates(fmt)
    if isinstance(timestamps, int):
        timestamps = [timestamps] * len(groups)
    bodies: list[bytes] = []
    types: list[int] = []
    sids: list[int] = []
    flags: list[int] = []
    tss: list[int] = []
    foots: list[bool] = []
    fde: list[int] = []
    first: list[int] = [0]
    sizes: list[int] = []
    fmt_footer = fmt.footer_size == 4 if footer is None else footer
    # GTID post-headers of the batch: one structured array (derived dtype), filled at the end
    gtid_rows: list[tuple] = []
    gtid_at: list[tuple[int, bytes, bytes, bytes]] = []  # (event index, tail before tl, tl, tail after)
    for g, group in enumerate(groups):
        ts_g = timestamps[g]
        start = len(bodies)
        lead_tl = None  # (event index, kind, bytes without tl)
        for j, ev in enumerate(group):
            t = ev.type_code
            i = len(bodies)
            try:
                if t == 16 and type(ev) is XidEvent and not ev.post_header_extra and not ev.unparsed:
                    body = ev.xid.to_bytes(tpl.xid_dt.itemsize, "little")
                elif t in _GTID_TYPES and _plain_gtid(ev) and tpl.gtid_dt is not None:
                    gtid_rows.append((ev.gtid_flags, bytes.fromhex(ev.sid.replace("-", "")), ev.gno, ev.lt_typecode,
                                      ev.last_committed, ev.sequence_number))
                    pre = tpl.field("commit_timestamps", (ev.immediate_commit_timestamp, ev.original_commit_timestamp))
                    post = b""
                    if ev.immediate_server_version is not None:
                        post = tpl.field("server_versions", (ev.immediate_server_version, ev.original_server_version))
                        if ev.commit_group_ticket is not None:
                            post += tpl.field("commit_group_ticket", ev.commit_group_ticket)
                    body = b""  # assembled below, once transaction_length is known
                    gtid_at.append([i, pre, ev.transaction_length, post])
                    if j == 0:
                        lead_tl = (i, "gtid", len(gtid_at) - 1)
                elif t == 162 and type(ev) is MariadbGtidEvent and ev.xid is None and not ev.flags_extra \
                        and ev.commit_id is None and ev.extra_engines is None and ev.sa_seq_no is None \
                        and not ev.post_header_extra and not ev.unparsed:
                    tmpl = tpl.mariadb_gtid_template(ev)
                    w = tpl.mgtid_seq[1]
                    body = ev.seq_no.to_bytes(w, "little") + tmpl[w:]
                elif _plain_rows(ev):
                    body = tpl.rows_template(ev) + ev.rows_raw
                else:
                    key = _memo_key(ev)
                    if key is not None:
                        body = tpl.remember(key, lambda ev=ev: encode_body(ev, fmt))
                    else:
                        if j == 0 and type(ev) is GtidTaggedEvent and ev.transaction_length is not None:
                            lead_tl = (i, "tagged", None)
                        body = encode_body(ev, fmt)
            except (OverflowError, ValueError, cs.ConstructError) as exc:
                raise EncodeError(f"cannot encode {ev.type_name}: {exc}") from None
            bodies.append(body)
            types.append(t)
            sids.append(1 if ev.server_id is None else ev.server_id)
            flags.append(ev.flags)
            tss.append(_int(ev.timestamp if ev.timestamp is not None else ts_g))
            if footer is None and t == 15:
                sv = ev.server_version if isinstance(ev, FormatDescriptionEvent) else None
                f = _has_footer(t, fmt, sv)
            else:
                f = fmt_footer
            if f and t == 15:
                fde.append(i)
            foots.append(f)
        # lengths of this group; transaction_length by arithmetic
        rest = 0
        for k in range(start, len(bodies)):
            if lead_tl is not None and k == lead_tl[0]:
                continue
            rest += HEADER_SIZE + len(bodies[k]) + (4 if foots[k] else 0)
        if lead_tl is not None:
            i, kind, gi = lead_tl
            fl = 4 if foots[i] else 0
            if kind == "gtid":
                entry = gtid_at[gi]
                fixed = HEADER_SIZE + tpl.gtid_dt.itemsize + len(entry[1]) + len(entry[3]) + fl
                entry[2] = transaction_length(entry[2], fixed + rest)
            else:
                ev = group[0]
                while True:  # the tagged GTID's varlen fields: re-encode to the fixed point
                    total = HEADER_SIZE + len(bodies[i]) + fl + rest
                    if total == ev.transaction_length:
                        break
                    ev.transaction_length = total
                    bodies[i] = encode_body(ev, fmt)
        first.append(len(bodies))
    if gtid_rows:
        arr = np.array(gtid_rows, dtype=tpl.gtid_dt)
        pb = arr.tobytes()
        w = tpl.gtid_dt.itemsize
        for k, (i, pre, tl, post) in enumerate(gtid_at):
            bodies[i] = pb[k * w:(k + 1) * w] + pre + encode_packed_int(tl) + post
    lengths = np.fromiter((len(b) for b in bodies), dtype=np.int64, count=len(bodies))
    footers = np.asarray(foots, dtype=bool)
    lengths += HEADER_SIZE + 4 * footers
    gfirst = np.asarray(first, dtype=np.int64)
    csum = np.concatenate([[0], np.cumsum(lengths)])
    sizes = csum[gfirst[1:]] - csum[gfirst[:-1]]
    try:
        batch = Batch(fmt=fmt, types=np.asarray(types, dtype=np.uint8), server_ids=np.asarray(sids, dtype=np.uint32),
                      flags=np.asarray(flags, dtype=np.uint16), timestamps=np.asarray(tss, dtype=np.uint32),
                      lengths=lengths, footers=footers, bodies=bodies, group_first=gfirst, group_sizes=sizes,
                      fde=fde, log_pos_zero=log_pos_zero)
    except OverflowError as exc:
        raise EncodeError(f"cannot encode event header: {exc}") from None
    return batch


def encode_events(events: Sequence[Event], fmt: BinlogFormat, *, offset: int = 0, timestamp: int = 0,
                  footer: bool | None = None, log_pos_zero: bool = False) -> bytes:
    """Events back to back from ``offset`` as one group (no ``transaction_length`` filling
    unless the first event asks for it)."""
    batch = plan_batch([list(events)], fmt, [timestamp], footer=footer, log_pos_zero=log_pos_zero)
    return bytes(batch.encode(0, 1, offset))

