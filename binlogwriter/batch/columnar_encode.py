"""A planned :class:`~binlogwriter.batch.columnar.RowsBatch` placed at a file offset, ids given.

:meth:`RowsPlan.encode` is the second step of :mod:`binlogwriter.batch.columnar` (whose
docstring gives the whole design): the plan's lengths become headers (one ``HEADER_DTYPE``
array), its templates are broadcast into place, GNOs / XIDs / ``sequence_number`` / MariaDB
``seq_no`` are numbered from the :class:`~binlogwriter.write.ids.BatchIds` given (the encoder
takes nothing: :meth:`RowsPlan.id_count` says what a range consumes and the writer's
:class:`~binlogwriter.write.ids.IdAllocator` commits it), the row images are placed by
:func:`~binlogwriter.batch.scatter.place_runs`, and each event gets its CRC32
(:func:`~binlogwriter.batch.scatter.crc_by_difference` where events differ in a few bytes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from binlogwriter.batch.dtypes import HEADER_DTYPE
from binlogwriter.batch.scatter import CRC_TERMS_MAX, crc_by_difference, place_rows, place_runs
from binlogwriter.batch.templates import templates_for
from binlogwriter.batch.unique import unique_ints
from binlogwriter.crc import crc32
from binlogwriter.events import MariadbGtidEvent
from binlogwriter.layouts.header import FLAG_SUPPRESS_USE, HEADER_SIZE
from binlogwriter.layouts.mariadb import FL_GROUP_COMMIT_ID
from binlogwriter.layouts.primitives import encode_packed_int
from binlogwriter.logical_clock import last_committed_array
from binlogwriter.write.ids import BatchIds, IdCount

__all__ = ["RowsPlan", "DeferredImages", "mgtid_template", "mariadb_gtid_body"]

GTID, BEGIN, TMAP, ROWS, XID, RQUERY, PAYLOAD = range(7)  # event kinds of ev_kind


@dataclass
class RowsPlan:
    """Events of a :class:`RowsBatch` planned (lengths, bodies but ids); ``sizes[t]`` is
    transaction ``t``'s group size in bytes (0: it changed nothing, it writes nothing).
    ``fmt``: the format planned for; ``group_commit_ids``: MariaDB GTIDs carry the commit id
    of their group commit (``SessionSettings.group_commit_ids``).

    Size: the plan's arrays and the named steps that place one range of them (headers,
    templates, GTIDs of each flavor, XIDs, row images, CRC32s), each a method reading the same
    per-event arrays; split off, every step would take the plan's dozen arrays as arguments.
    Issue #30 tracks the batch encoder's layout."""

    fmt: Any
    n_txn: int
    sizes: np.ndarray
    txn_first: np.ndarray  # first event of each transaction (n_txn + 1)
    ev_kind: np.ndarray
    ev_type: np.ndarray
    ev_flags: np.ndarray
    ev_len: np.ndarray
    ev_tpl: np.ndarray
    templates: list
    ev_dstart: np.ndarray
    ev_dlen: np.ndarray
    ev_txn: np.ndarray
    data: Any  # the row images (RowsBatch.data: an array or a DeferredImages)
    clock: np.ndarray
    gtid_tail: Any  # MySQL: the GTID bodies after their post-headers (_GtidTails), else None
    footer: bool
    group_commit_ids: bool = False
    chunk_first: np.ndarray | None = None  # first row change of each rows event (ascending)
    chunk_event: np.ndarray | None = None  # the event index of each rows event (ev_* arrays)
    used_tables: list | None = None  # (Table, table id) of every table used, in order of first use
    back: np.ndarray | None = None  # MySQL: per transaction, its group's dependency distance (logical_clock.py)
    group_pos: np.ndarray | None = None  # MariaDB group commits: commit_id = seq_no - group_pos (-1, None: none)
    hold: np.ndarray | None = None  # MariaDB group commits: no rotation after the transaction (RowsBatch.hold)

    def id_count(self, lo: int, hi: int) -> IdCount:
        """The ids the groups of transactions ``lo..hi-1`` consume: one GTID per GTID event,
        one XID per XID_EVENT or TRANSACTION_PAYLOAD (which holds its transaction's XID)."""
        kind = self.ev_kind[int(self.txn_first[lo]):int(self.txn_first[hi])]
        return IdCount(gtids=int(np.count_nonzero(kind == GTID)),
                       xids=int(np.count_nonzero((kind == XID) | (kind == PAYLOAD))))

    def encode(self, lo: int, hi: int, offset: int, ids: BatchIds) -> bytes:
        """The groups of transactions ``lo..hi-1`` at file ``offset``, numbered from the ids
        ``ids`` given (the writer commits :meth:`id_count` of them)."""
        return bytes(self.encode_later(lo, hi, offset, ids)())

    def encode_later(self, lo: int, hi: int, offset: int, ids: BatchIds) -> Callable[[], bytes | memoryview]:
        """:meth:`encode` as a function that builds the bytes from the plan's arrays and the
        ids given only, so it may run later, on another thread (generators/run_batched.py
        overlaps it with the next batch). Its length is known now: :meth:`length`. The
        bytes come as a read-only memoryview of a buffer nothing else holds or changes
        (no copy into a ``bytes``: a sink may keep it as it keeps ``bytes``)."""
        a, b = int(self.txn_first[lo]), int(self.txn_first[hi])
        if b == a:
            return bytes
        return lambda: self._bytes(a, b, offset, ids)

    def length(self, lo: int, hi: int) -> int:
        """Bytes of the groups of transactions ``lo..hi-1`` (what :meth:`encode` returns)."""
        return int(self.ev_len[int(self.txn_first[lo]):int(self.txn_first[hi])].sum())

    def _bytes(self, a: int, b: int, offset: int, ids: BatchIds) -> memoryview:
        """Events ``a..b-1`` at file ``offset`` with the ids ``ids``: pure (reads the plan's
        arrays, writes nothing shared). Steps: headers, template bodies, GTIDs, XIDs, row
        images, CRC32s (format.md §3)."""
        lengths = self.ev_len[a:b]
        ends = np.cumsum(lengths)
        starts = ends - lengths
        out = np.empty(int(ends[-1]), dtype=np.uint8)
        hb = self._place_headers(out, a, b, starts, ends + offset, ids.source.server_id)
        at = starts + HEADER_SIZE  # where each body starts
        tlen = self._place_templates(out, a, b, at)
        kind = self.ev_kind[a:b]
        gi = np.flatnonzero(kind == GTID)
        if self.fmt.is_mariadb:
            glens, gmat = self._mariadb_gtids(a, b, gi, ids)
        else:
            glens, gmat = self._mysql_gtids(a, b, gi, ids)
        for blen in unique_ints(glens).tolist() if len(gi) else ():  # one row assignment per body length
            sel = np.flatnonzero(glens == blen)
            place_rows(out, at[gi[sel]], gmat[sel, :blen])
        xi = np.flatnonzero(kind == XID)
        xids = (ids.xid + np.arange(len(xi))).astype("<u8").view(np.uint8).reshape(-1, 8)
        if len(xi):
            place_rows(out, at[xi], xids)
        self._place_images(out, a, b, at, tlen)
        if self.footer:
            heads = {"xid": (xi, xids), "gtid": (gi, glens, gmat)}
            self._place_crcs(out, a, b, starts, ends - 4, hb, heads)
        return memoryview(out).toreadonly()

    def _place_headers(self, out: np.ndarray, a: int, b: int, starts: np.ndarray, log_pos: np.ndarray,
                       server_id: int) -> np.ndarray:
        """The 19-byte headers of events ``a..b-1`` (one ``HEADER_DTYPE`` array, format.md §3)
        placed at ``starts``; returns them as rows of bytes."""
        n = b - a
        hdr = np.empty(n, dtype=HEADER_DTYPE)
        hdr["timestamp"] = self.clock[self.ev_txn[a:b]]
        hdr["type_code"] = self.ev_type[a:b]
        hdr["server_id"] = server_id
        hdr["event_length"] = self.ev_len[a:b]
        hdr["log_pos"] = log_pos
        hdr["flags"] = self.ev_flags[a:b]
        hb = hdr.view(np.uint8).reshape(n, HEADER_SIZE)
        place_rows(out, starts, hb)
        return hb

    def _place_templates(self, out: np.ndarray, a: int, b: int, at: np.ndarray) -> np.ndarray:
        """The template bodies (BEGIN, TABLE_MAP, rows post-headers, rows-query) placed at
        the bodies' starts ``at``; returns each event's template length (0: none)."""
        tp = self.ev_tpl[a:b]
        tlen = np.zeros(b - a, dtype=np.int64)
        for u in unique_ints(tp[tp >= 0]).tolist():
            idx = np.flatnonzero(tp == u)
            t = np.frombuffer(self.templates[u], dtype=np.uint8)
            tlen[idx] = len(t)
            place_rows(out, at[idx], np.broadcast_to(t, (len(idx), len(t))))
        return tlen

    def _mariadb_gtids(self, a: int, b: int, gi: np.ndarray, ids: BatchIds) -> tuple[np.ndarray, np.ndarray]:
        """The MariaDB GTID bodies of events ``gi`` (mariadb.md "GTID"): ``seq_no`` from
        ``ids.seq`` on patched into the template, and with group commit ids the commit id
        (``seq_no - group_pos``; a group of one has none and a shorter body). Returns their
        lengths and the bodies as rows."""
        tpl = templates_for(self.fmt)
        ng = len(gi)
        seqs = ids.seq + np.arange(ng)
        mtpl = mariadb_gtid_body(self.fmt, ids.source.domain_id, self.group_commit_ids)
        width = tpl.mgtid_seq[1]
        tail = np.frombuffer(mtpl[width:], dtype=np.uint8)
        gm = np.empty((ng, width + len(tail)), dtype=np.uint8)
        gm[:, :width] = seqs.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :width]
        gm[:, width:] = tail
        c = tpl.mgtid_cid
        glens = np.full(ng, gm.shape[1], dtype=np.int64)
        if mtpl[c - 1] & FL_GROUP_COMMIT_ID:  # flags2: the group commit's id after it
            gp = lone_groups(self.group_pos, self.ev_txn[a:b][gi])
            lone = gp < 0
            cid = seqs - np.where(lone, 0, gp)
            gm[:, c:c + 8] = cid.astype("<u8").view(np.uint8).reshape(-1, 8)
            if lone.any():  # a group of one: no FL_GROUP_COMMIT_ID, no commit id (shorter)
                ltail = np.frombuffer(mariadb_gtid_body(self.fmt, ids.source.domain_id, False)[width:],
                                      dtype=np.uint8)
                gm[np.ix_(lone, np.arange(width, width + len(ltail)))] = ltail
                glens[lone] = width + len(ltail)
        return glens, gm

    def _mysql_gtids(self, a: int, b: int, gi: np.ndarray, ids: BatchIds) -> tuple[np.ndarray, np.ndarray]:
        """The MySQL GTID bodies of events ``gi`` (format.md §8): the post-header (derived
        dtype) with ``sequence_number`` from ``ids.seq`` on, ``last_committed`` by the logical
        clock, GNO from ``ids.gno`` on (0: anonymous) and the source id; the rest from
        :attr:`gtid_tail`. Returns their lengths and the bodies as rows."""
        dt = templates_for(self.fmt).gtid_dt
        ng = len(gi)
        ph = np.zeros(ng, dtype=dt)
        seq = ids.seq + np.arange(ng)
        txns = self.ev_txn[a:b][gi]
        ph["sequence_number"] = seq
        ph["last_committed"] = last_committed_array(seq, None if self.back is None else self.back[txns])
        ph["lt_typecode"] = 2
        ph["gtid_flags"] = 0
        ph["gno"] = ids.gno + np.arange(ng) if ids.gno else 0
        if ng:
            ph[dt.names[1]] = np.frombuffer(ids.source.sid_bytes, dtype=dt.fields[dt.names[1]][0])[0]
        return self.gtid_tail.bodies(ph, txns)

    def _place_images(self, out: np.ndarray, a: int, b: int, at: np.ndarray, tlen: np.ndarray) -> None:
        """The row images of the rows events among ``a..b-1`` after their templates; they are
        in write order in :attr:`data`, one contiguous range."""
        dl = self.ev_dlen[a:b]
        ri = np.flatnonzero(dl)
        if not len(ri):
            return
        ds = self.ev_dstart[a:b][ri]
        d0 = int(ds[0])
        d1 = int(ds[-1] + dl[ri[-1]])
        if isinstance(self.data, DeferredImages):
            self.data.place_range(out, d0, d1, ds, at[ri] + tlen[ri] - ds)
        else:
            place_runs(out, at[ri] + tlen[ri], dl[ri], self.data[d0:d1])

    def _place_crcs(self, out: np.ndarray, a: int, b: int, starts: np.ndarray, stops: np.ndarray, hb: np.ndarray,
                    heads: dict) -> None:
        """One CRC32 per event over its final bytes (format.md §3). Events that differ from
        another of their kind only in a few known bytes — the header; an XID's number; a
        GTID of one body length — get theirs from one event's (:func:`crc_by_difference`);
        the rest (rows events) by zlib. ``heads``: the XID events and numbers, the GTID
        events, body lengths and bodies."""
        n = b - a
        mv = memoryview(out)
        crcs = np.zeros(n, dtype="<u4")
        left = np.ones(n, dtype=bool)
        tp = self.ev_tpl[a:b]
        plain = (tp >= 0) & (self.ev_dlen[a:b] == 0)
        for u in unique_ints(tp[plain]).tolist():
            idx = np.flatnonzero(plain & (tp == u))
            crcs[idx] = crc_by_difference(mv, int(starts[idx[0]]), int(stops[idx[0]] - starts[idx[0]]), hb[idx])
            left[idx] = False
        xi, xids = heads["xid"]
        if len(xi):
            crcs[xi] = crc_by_difference(mv, int(starts[xi[0]]), int(stops[xi[0]] - starts[xi[0]]),
                                         np.concatenate([hb[xi], xids], axis=1))
            left[xi] = False
        gi, glens, gmat = heads["gtid"]
        for blen in unique_ints(glens).tolist() if len(gi) > 1 else ():  # GTIDs of one length: most bytes equal
            sel = np.flatnonzero(glens == blen)
            same = np.concatenate([hb[gi[sel]], gmat[sel, :blen]], axis=1)
            if int((same != same[0]).any(axis=0).sum()) <= CRC_TERMS_MAX:
                crcs[gi[sel]] = crc_by_difference(mv, int(starts[gi[sel[0]]]), HEADER_SIZE + blen, same)
                left[gi[sel]] = False
        rest = np.flatnonzero(left)
        crc = crc32
        crcs[rest] = [crc(mv[i:j]) for i, j in zip(starts[rest].tolist(), stops[rest].tolist(), strict=True)]
        place_rows(out, stops, crcs.view(np.uint8).reshape(n, 4))


class DeferredImages:
    """Row images placed only when the bytes are built (:attr:`RowsBatch.data
    <binlogwriter.batch.columnar.RowsBatch.data>`): ``length`` bytes given as runs
    ``(dest, lens, buf)`` — image ``i`` of a run is the next ``lens[i]`` bytes of ``buf``, at
    offset ``dest[i]`` of the images back to back (``dest`` ascending, runs disjoint: every
    byte in exactly one run). :meth:`place_range` writes a range of them straight into the
    events' bodies (no copy back to back first); :meth:`array` gives them back to back. Runs
    of images of one width are placed as rows (:func:`_place`)."""

    def __init__(self, length: int, runs: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
        self.length = length
        self.runs = runs
        self._made: np.ndarray | None = None

    def __len__(self) -> int:
        return self.length

    def array(self) -> np.ndarray:
        """The images back to back (built once, kept)."""
        if self._made is None:
            out = np.empty(self.length, dtype=np.uint8)
            for dest, lens, buf in self.runs:
                _place(out, dest, lens, buf)
            self._made = out
        return self._made

    def place_range(self, out: np.ndarray, d0: int, d1: int, starts: np.ndarray, shift: np.ndarray) -> None:
        """Write the images at offsets ``d0..d1-1`` into ``out``: an image at offset ``x`` goes
        to ``x + shift[e]`` for the last ``e`` with ``starts[e] <= x`` (``starts`` ascending:
        the offsets where the events' row data starts; no image crosses one). The same bytes
        as ``place_runs`` of ``array()[d0:d1]`` into those events
        (tests/batch/test_deferred_images.py)."""
        for dest, lens, buf in self.runs:
            i0, i1 = np.searchsorted(dest, (d0, d1)).tolist()
            if i1 <= i0:
                continue
            b0 = int(lens[:i0].sum())
            sub = lens[i0:i1]
            d = dest[i0:i1]
            ev = np.searchsorted(starts, d, side="right") - 1
            _place(out, d + shift[ev], sub, buf[b0:b0 + int(sub.sum())])


def _place(out: np.ndarray, dest: np.ndarray, lens: np.ndarray, buf: np.ndarray) -> None:
    """``place_runs`` (images of varying widths), or ``place_rows`` when they share one
    width: a row copy per image, no byte mask over their span."""
    w = int(lens[0]) if len(lens) else 0
    if w and (lens == w).all():
        place_rows(out, dest, buf.reshape(len(lens), w))
    else:
        place_runs(out, dest, lens, buf)


@dataclass
class GtidTails:
    """The parts of the MySQL GTID bodies after the post-header (format.md §8), per GTID of
    the batch: ``ct`` its commit timestamps field (rows of one width), ``tl`` its
    ``transaction_length``, ``post`` the server versions (and ticket) field, the same for
    all; ``txn[t]``: the GTID row of transaction ``t`` (-1: it writes nothing)."""

    txn: np.ndarray
    ct: np.ndarray
    tl: np.ndarray
    post: bytes

    def bodies(self, ph: np.ndarray, txns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The GTID bodies of transactions ``txns`` after their post-headers ``ph`` (a
        structured array, one row each): their lengths, and the bodies as the rows of a
        matrix (row ``i``: its first ``lengths[i]`` bytes). The packed ``transaction_length``
        is built by the layout once per distinct value."""
        rows = self.txn[txns]
        n = len(rows)
        isz, w, p = ph.dtype.itemsize, self.ct.shape[1], len(self.post)
        tl = self.tl[rows]
        ut, tinv = unique_ints(tl, return_inverse=True)
        packed = [encode_packed_int(x) for x in ut.tolist()]
        plen = np.array([len(b) for b in packed], dtype=np.int64)
        pmax = int(plen.max()) if n else 0
        ptab = np.zeros((len(packed), pmax + p), dtype=np.uint8)
        post = np.frombuffer(self.post, dtype=np.uint8)
        for i, b in enumerate(packed):
            ptab[i, :len(b)] = np.frombuffer(b, dtype=np.uint8)
            ptab[i, len(b):len(b) + p] = post
        m = np.empty((n, isz + w + pmax + p), dtype=np.uint8)
        m[:, :isz] = ph.view(np.uint8).reshape(n, isz)
        m[:, isz:isz + w] = self.ct[rows]
        m[:, isz + w:] = ptab[tinv]
        lens = isz + w + plen[tinv] + p
        return lens, m


def lone_groups(group_pos: np.ndarray | None, txn: np.ndarray) -> np.ndarray:
    """The group-commit position of each transaction ``txn`` of a plan (-1: a group of one,
    no commit id; every one when the plan has none)."""
    if group_pos is None:
        return np.full(len(txn), -1, dtype=np.int64)
    return np.asarray(group_pos, dtype=np.int64)[txn]


def mariadb_gtid_body(fmt: Any, domain_id: int, grouped: bool) -> bytes:
    """A row transaction's MariaDB GTID body (TRANSACTIONAL | ALLOW_PARALLEL, and
    GROUP_COMMIT_ID when ``grouped``) with seq_no and commit id 0 (mariadb.md "GTID"); the
    server id is the header's, not the body's."""
    flag = FL_GROUP_COMMIT_ID if grouped else 0
    ev = MariadbGtidEvent(seq_no=0, domain_id=domain_id, flags2=0x0C | flag, flags=FLAG_SUPPRESS_USE,
                          commit_id=0 if grouped else None)
    return templates_for(fmt).mariadb_gtid_template(ev)


def mgtid_template(w: Any, grouped: bool | None = None) -> bytes:
    """:func:`mariadb_gtid_body` for a writer's settings (``w``: ``fmt`` and ``settings``):
    GROUP_COMMIT_ID with ``settings.group_commit_ids`` unless ``grouped`` is False."""
    return mariadb_gtid_body(w.fmt, w.settings.domain_id, bool(w.settings.group_commit_ids) and grouped is not False)
