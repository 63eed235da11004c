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

The templates are :mod:`binlogwriter.batch.templates` (shared with columnar.py).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import construct as cs
import numpy as np

from binlogwriter.batch.dtypes import HEADER_DTYPE
from binlogwriter.batch.templates import memo_key, plain_gtid, plain_rows, templates_for
from binlogwriter.errors import EncodeError
from binlogwriter.events import (
    Event,
    FormatDescriptionEvent,
    GtidTaggedEvent,
    MariadbGtidEvent,
    XidEvent,
    encode_body,
    event_crc,
    type_has_footer,
)
from binlogwriter.format import (
    ANONYMOUS_GTID_LOG_EVENT,
    FORMAT_DESCRIPTION_EVENT,
    GTID_LOG_EVENT,
    MARIADB_GTID_EVENT,
    XID_EVENT,
    BinlogFormat,
)
from binlogwriter.layouts.header import HEADER_SIZE
from binlogwriter.layouts.primitives import encode_packed_int, packed_int_size

__all__ = ["Batch", "BatchBuilder", "plan_batch", "encode_events", "transaction_length"]

_GTID_TYPES = (GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT)
_ZERO4 = b"\0\0\0\0"
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def transaction_length(start: int | None, others: int) -> int:
    """``transaction_length`` of a GTID whose event is ``others`` bytes long without the
    packed value (format.md §8): the least fixed point of ``tl = others + packed_int_size(tl)``,
    MySQL's value (``Gtid_event::update_untagged_transaction_length``: 250 -> 253). It is
    reached from 0 whatever ``start`` (the event's old value) is: from a stale larger value
    the iteration could stop at a second fixed point (248 -> 251 instead of 249)."""
    del start
    tl = 0
    while True:
        total = others + packed_int_size(tl)
        if total == tl:
            return tl
        tl = total


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
                crcs[j] = event_crc(mv[starts[j]:stops[j]])
        out = np.frombuffer(buf, dtype=np.uint8)
        pos = np.asarray(stops, dtype=np.int64)[:, None] + np.arange(4)
        out[pos] = np.asarray(crcs, dtype="<u4").view(np.uint8).reshape(-1, 4)


class BatchBuilder:
    """Groups added one at a time (:meth:`add` returns the group's size at once, by
    arithmetic), encoded together later (:meth:`finish` -> :class:`Batch`). ``footer``:
    None = the format's rule per event; False = no CRC (events inside a
    TRANSACTION_PAYLOAD, format.md §15, with ``log_pos_zero``).

    Size: the dispatch from an event kind to its (template, length) row (:meth:`_body`), the
    header row (:meth:`_append`) and a leading GTID's ``transaction_length`` (:meth:`_lead_length`)
    share the per-event lists they append to and the truncation that undoes them on an error.
    """

    def __init__(self, fmt: BinlogFormat, *, footer: bool | None = None, log_pos_zero: bool = False) -> None:
        self.fmt = fmt
        self.tpl = templates_for(fmt)
        self.footer = footer
        self.log_pos_zero = log_pos_zero
        self.fmt_footer = fmt.footer_size == 4 if footer is None else footer
        self.bodies: list[bytes] = []
        self.lengths: list[int] = []
        self.types: list[int] = []
        self.sids: list[int] = []
        self.flags: list[int] = []
        self.tss: list[int] = []
        self.foots: list[bool] = []
        self.fde: list[int] = []
        self.first: list[int] = [0]
        self.sizes: list[int] = []
        # GTID post-headers: one structured array (derived dtype) built at finish
        self.gtid_rows: list[tuple] = []
        self.gtid_at: list[tuple[int, bytes]] = []  # (event index, bytes after the post-header)

    def __len__(self) -> int:
        return len(self.sizes)

    @property
    def nbytes(self) -> int:
        return sum(self.sizes)

    def add(self, group: Sequence[Event], timestamp: int) -> int:
        """Plan one group; returns its size in bytes. Raises EncodeError (nothing added)."""
        n0 = len(self.bodies)
        try:
            return self._add(group, timestamp)
        except BaseException:
            self._truncate(n0)
            raise

    def drop_last(self) -> None:
        """Forget the last group added."""
        self._truncate(self.first[-2])
        del self.first[-1]
        del self.sizes[-1]

    def _truncate(self, n0: int) -> None:
        for lst in (self.bodies, self.lengths, self.types, self.sids, self.flags, self.tss, self.foots):
            del lst[n0:]
        g0 = sum(1 for i in self.gtid_at if i < n0)
        del self.gtid_rows[g0:]
        del self.gtid_at[g0:]
        self.fde = [i for i in self.fde if i < n0]

    def _add(self, group: Sequence[Event], ts_g: int) -> int:
        bodies = self.bodies
        start = len(bodies)
        lead = None  # (event index, kind, gtid parts) of a leading GTID to get transaction_length
        for j, ev in enumerate(group):
            i = len(bodies)
            try:
                body, ph, lead_here = self._body(ev, i, j == 0)
            except (OverflowError, ValueError, TypeError, cs.ConstructError) as exc:
                raise EncodeError(f"cannot encode {ev.type_name}: {exc}") from None
            if lead_here is not None:
                lead = lead_here
            self._append(ev, body, ph, ts_g)
        if lead is not None:
            self._lead_length(group, start, *lead)
        self.first.append(len(bodies))
        size = sum(self.lengths[start:])
        self.sizes.append(size)
        return size

    def _body(self, ev: Event, i: int, first: bool) -> tuple[bytes, int, tuple | None]:
        """Event ``ev`` (index ``i``; ``first`` in its group) -> (its body as far as known now,
        the size of a GTID post-header added at :meth:`finish`, the ``lead`` entry of a leading
        GTID whose ``transaction_length`` :meth:`_lead_length` fills, else None)."""
        tpl = self.tpl
        t = ev.type_code
        if t == XID_EVENT and type(ev) is XidEvent and not ev.post_header_extra and not ev.unparsed:
            return ev.xid.to_bytes(tpl.xid_dt.itemsize, "little"), 0, None
        if t in _GTID_TYPES and plain_gtid(ev) and tpl.gtid_dt is not None:
            return self._plain_gtid_body(ev, i, first)
        if t == MARIADB_GTID_EVENT and type(ev) is MariadbGtidEvent and ev.xid is None and not ev.flags_extra \
                and ev.commit_id is None and ev.extra_engines is None and ev.sa_seq_no is None \
                and not ev.post_header_extra and not ev.unparsed:
            tmpl = tpl.mariadb_gtid_template(ev)
            w = tpl.mgtid_seq[1]
            return ev.seq_no.to_bytes(w, "little") + tmpl[w:], 0, None
        if plain_rows(ev):
            return tpl.rows_template(ev) + ev.rows_raw, 0, None
        key = memo_key(ev)
        if key is not None:
            return tpl.remember(key, lambda: encode_body(ev, self.fmt)), 0, None
        lead = None
        if first and type(ev) is GtidTaggedEvent and ev.transaction_length is not None:
            lead = (i, "tagged", None)
        return encode_body(ev, self.fmt), 0, lead

    def _plain_gtid_body(self, ev: Any, i: int, first: bool) -> tuple[bytes, int, tuple | None]:
        """A GTID / anonymous GTID with a fixed post-header (format.md §8): the post-header a
        row of the derived-dtype array (:meth:`_gtid`), the rest built by its declared fields;
        a leading one's body is built once its ``transaction_length`` is known."""
        tpl = self.tpl
        row = (ev.gtid_flags, bytes.fromhex(ev.sid.replace("-", "")), ev.gno, ev.lt_typecode,
               ev.last_committed, ev.sequence_number)
        pre = tpl.field("commit_timestamps", (ev.immediate_commit_timestamp, ev.original_commit_timestamp))
        post = b""
        if ev.immediate_server_version is not None:
            post = tpl.field("server_versions", (ev.immediate_server_version, ev.original_server_version))
            if ev.commit_group_ticket is not None:
                post += tpl.field("commit_group_ticket", ev.commit_group_ticket)
        if not (0 <= ev.gtid_flags < 256 and 0 <= ev.lt_typecode < 256
                and all(_I64_MIN <= x <= _I64_MAX for x in (ev.gno, ev.last_committed, ev.sequence_number))):
            raise OverflowError("a GTID post-header field is out of range")  # now, not at finish
        if first:
            return b"", tpl.gtid_dt.itemsize, (i, "gtid", [row, pre, ev.transaction_length, post])
        self._gtid(i, row)
        return pre + encode_packed_int(ev.transaction_length) + post, tpl.gtid_dt.itemsize, None

    def _append(self, ev: Event, body: bytes, ph: int, ts_g: int) -> None:
        """Event ``ev``'s header fields, footer and length (``ph``: its GTID post-header,
        placed at :meth:`finish`); an FDE's footer by its own server version (format.md §3)."""
        t = ev.type_code
        if self.footer is None and t == FORMAT_DESCRIPTION_EVENT:
            sv = ev.server_version if isinstance(ev, FormatDescriptionEvent) else None
            f = type_has_footer(t, self.fmt, sv)
        else:
            f = self.fmt_footer
        if f and t == FORMAT_DESCRIPTION_EVENT:
            self.fde.append(len(self.bodies))
        ts = ev.timestamp if ev.timestamp is not None else (ts_g or 0)
        sid = 1 if ev.server_id is None else ev.server_id
        if not (0 <= ts <= 0xFFFFFFFF and 0 <= sid <= 0xFFFFFFFF and 0 <= ev.flags <= 0xFFFF):
            raise EncodeError(f"cannot encode {ev.type_name} header: timestamp {ts}, server_id {sid} "
                              f"or flags {ev.flags} out of range")
        self.bodies.append(body)
        self.types.append(t)
        self.sids.append(sid)
        self.flags.append(ev.flags)
        self.tss.append(ts)
        self.foots.append(f)
        self.lengths.append(HEADER_SIZE + ph + len(body) + (4 if f else 0))

    def _lead_length(self, group: Sequence[Event], start: int, i: int, kind: str, parts: list | None) -> None:
        """The leading GTID's ``transaction_length`` by arithmetic (format.md §8): the whole
        group's length, the GTID included; a tagged GTID's varlen body re-encoded to the
        fixed point."""
        bodies = self.bodies
        rest = sum(self.lengths[start:i]) + sum(self.lengths[i + 1:])
        fl = 4 if self.foots[i] else 0
        if kind == "gtid":
            row, pre, tl0, post = parts  # type: ignore[misc]
            fixed = HEADER_SIZE + self.tpl.gtid_dt.itemsize + len(pre) + len(post) + fl
            tl = transaction_length(tl0, fixed + rest)
            bodies[i] = pre + encode_packed_int(tl) + post
            self._gtid(i, row)
            self.lengths[i] = fixed + len(bodies[i]) - len(pre) - len(post)
            return
        ev = group[0]
        while True:  # the tagged GTID's varlen fields: re-encode to the fixed point
            total = self.lengths[i] + rest
            if total == ev.transaction_length:
                return
            ev.transaction_length = total
            bodies[i] = encode_body(ev, self.fmt)
            self.lengths[i] = HEADER_SIZE + len(bodies[i]) + fl

    def _gtid(self, i: int, row: tuple) -> None:
        self.gtid_rows.append(row)
        self.gtid_at.append(i)

    def finish(self) -> Batch:
        bodies = self.bodies
        if self.gtid_rows:
            dt = self.tpl.gtid_dt
            pb = np.array(self.gtid_rows, dtype=dt).tobytes()
            w = dt.itemsize
            for k, i in enumerate(self.gtid_at):
                bodies[i] = pb[k * w:(k + 1) * w] + bodies[i]
        return Batch(fmt=self.fmt, types=np.asarray(self.types, dtype=np.uint8),
                     server_ids=np.asarray(self.sids, dtype=np.uint32), flags=np.asarray(self.flags, dtype=np.uint16),
                     timestamps=np.asarray(self.tss, dtype=np.uint32), lengths=np.asarray(self.lengths, dtype=np.int64),
                     footers=np.asarray(self.foots, dtype=bool), bodies=bodies,
                     group_first=np.asarray(self.first, dtype=np.int64),
                     group_sizes=np.asarray(self.sizes, dtype=np.int64), fde=self.fde, log_pos_zero=self.log_pos_zero)


def plan_batch(groups: Sequence[Sequence[Event]], fmt: BinlogFormat, timestamps: Sequence[int] | int, *,
               footer: bool | None = None, log_pos_zero: bool = False) -> Batch:
    """Plan ``groups`` (see module docstring). ``timestamps``: the clock of each group (or
    one for all) for events whose ``timestamp`` is None. A leading GTID / anonymous GTID /
    tagged GTID whose ``transaction_length`` is not None gets the group's length."""
    if isinstance(timestamps, int):
        timestamps = [timestamps] * len(groups)
    b = BatchBuilder(fmt, footer=footer, log_pos_zero=log_pos_zero)
    for g, ts in zip(groups, timestamps, strict=True):
        b.add(g, ts)
    return b.finish()


def encode_events(events: Sequence[Event], fmt: BinlogFormat, *, offset: int = 0, timestamp: int = 0,
                  footer: bool | None = None, log_pos_zero: bool = False) -> bytes:
    """Events back to back from ``offset`` as one group (no ``transaction_length`` filling
    unless the first event asks for it)."""
    batch = plan_batch([list(events)], fmt, [timestamp], footer=footer, log_pos_zero=log_pos_zero)
    return bytes(batch.encode(0, 1, offset))

