"""A planned :class:`~binlogwriter.batch.columnar.RowsBatch` placed at a file offset, ids given.

:meth:`RowsPlan.encode` is the second step of :mod:`binlogwriter.batch.columnar` (whose
docstring gives the whole design): the plan's lengths become headers (one ``HEADER_DTYPE``
array), its templates are broadcast into place, GNOs / XIDs / ``sequence_number`` / MariaDB
``seq_no`` are taken from the writer and advanced, the row images are placed by
:func:`~binlogwriter.batch.scatter.place_runs`, and each event gets its CRC32
(:func:`~binlogwriter.batch.scatter.crc_by_difference` where events differ in a few bytes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from binlogwriter.batch.dtypes import HEADER_DTYPE
from binlogwriter.batch.scatter import _CRC_TERMS_MAX, crc_by_difference, place_rows, place_runs
from binlogwriter.batch.templates import _templates
from binlogwriter.batch.unique import unique_ints
from binlogwriter.crc import crc32
from binlogwriter.events import ANONYMOUS_SID, MariadbGtidEvent
from binlogwriter.layouts.header import FLAG_SUPPRESS_USE, HEADER_SIZE
from binlogwriter.layouts.mariadb import FL_GROUP_COMMIT_ID
from binlogwriter.layouts.primitives import encode_packed_int
from binlogwriter.logical_clock import last_committed_array

__all__ = ["RowsPlan", "DeferredImages", "mgtid_template"]

GTID, BEGIN, TMAP, ROWS, XID, RQUERY, PAYLOAD = range(7)  # event kinds of ev_kind


@dataclass
class RowsPlan:
    """Events of a :class:`RowsBatch` planned (lengths, bodies but ids); ``sizes[t]`` is
    transaction ``t``'s group size in bytes (0: it changed nothing, it writes nothing).

    Size: ``_bytes`` lays out every event kind of a batch (GTID with or without a commit id,
    Rows_query, Table_map, rows, XID) against the same offset arrays in one pass; split, the
    pieces would pass a dozen arrays to each other. Issue #30 tracks the batch encoder's layout."""

    writer: Any
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
    chunk_first: np.ndarray | None = None  # first row change of each rows event (ascending)
    chunk_event: np.ndarray | None = None  # the event index of each rows event (ev_* arrays)
    used_tables: list | None = None  # (Table, table id) of every table used, in order of first use
    back: np.ndarray | None = None  # MySQL: per transaction, its group's dependency distance (logical_clock.py)
    group_pos: np.ndarray | None = None  # MariaDB group commits: commit_id = seq_no - group_pos (-1, None: none)
    hold: np.ndarray | None = None  # MariaDB group commits: no rotation after the transaction (RowsBatch.hold)

    def encode(self, lo: int, hi: int, offset: int) -> bytes:
        """The groups of transactions ``lo..hi-1`` at file ``offset``, ids taken from the
        writer (GNO, XID, sequence_number in the file, MariaDB seq_no) and advanced."""
        return bytes(self.encode_later(lo, hi, offset)())

    def encode_later(self, lo: int, hi: int, offset: int) -> Callable[[], bytes | memoryview]:
        """:meth:`encode` in two steps: the ids are taken from the writer (and it is
        advanced) now; the returned function builds the bytes from the plan's arrays and
        those ids only, so it may run later, on another thread (generators/run_batched.py
        overlaps it with the next batch). Its length is known now: :meth:`length`. The
        bytes come as a read-only memoryview of a buffer nothing else holds or changes
        (no copy into a ``bytes``: a sink may keep it as it keeps ``bytes``)."""
        a, b = int(self.txn_first[lo]), int(self.txn_first[hi])
        if b == a:
            return bytes
        ids = _take_ids(self.writer, self.ev_kind[a:b])
        return lambda: self._bytes(a, b, offset, ids)

    def length(self, lo: int, hi: int) -> int:
        """Bytes of the groups of transactions ``lo..hi-1`` (what :meth:`encode` returns)."""
        return int(self.ev_len[int(self.txn_first[lo]):int(self.txn_first[hi])].sum())

    def _bytes(self, a: int, b: int, offset: int, ids: _Ids) -> memoryview:
        """Events ``a..b-1`` at file ``offset`` with the ids ``ids``: pure (reads the plan's
        arrays, writes nothing shared)."""
        fmt = self.writer.fmt
        n = b - a
        kind = self.ev_kind[a:b]
        lengths = self.ev_len[a:b]
        ends = np.cumsum(lengths)
        hdr = np.empty(n, dtype=HEADER_DTYPE)
        hdr["timestamp"] = self.clock[self.ev_txn[a:b]]
        hdr["type_code"] = self.ev_type[a:b]
        hdr["server_id"] = ids.server_id
        hdr["event_length"] = lengths
        hdr["log_pos"] = ends + offset
        hdr["flags"] = self.ev_flags[a:b]
        tpl = _templates(fmt)
        starts = ends - lengths
        total = int(ends[-1])
        out = np.empty(total, dtype=np.uint8)
        place_rows(out, starts, hdr.view(np.uint8).reshape(n, HEADER_SIZE))
        at = starts + HEADER_SIZE  # where each body starts
        tp = self.ev_tpl[a:b]
        tlen = np.zeros(n, dtype=np.int64)
        for u in unique_ints(tp[tp >= 0]).tolist():
            idx = np.flatnonzero(tp == u)
            t = np.frombuffer(self.templates[u], dtype=np.uint8)
            tlen[idx] = len(t)
            place_rows(out, at[idx], np.broadcast_to(t, (len(idx), len(t))))
        gi = np.flatnonzero(kind == GTID)
        ng = len(gi)
        if fmt.is_mariadb:
            seqs = ids.seq + np.arange(ng)
            mtpl = ids.mgtid
            width = tpl.mgtid_seq[1]
            tail = np.frombuffer(mtpl[width:], dtype=np.uint8)
            gm = np.empty((ng, width + len(tail)), dtype=np.uint8)
            gm[:, :width] = seqs.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :width]
            gm[:, width:] = tail
            c = tpl.mgtid_cid
            glens, gmat = np.full(ng, gm.shape[1], dtype=np.int64), gm
            if mtpl[c - 1] & FL_GROUP_COMMIT_ID:  # flags2: the group commit's id after it
                gp = lone_groups(self.group_pos, self.ev_txn[a:b][gi])
                lone = gp < 0
                cid = seqs - np.where(lone, 0, gp)
                gm[:, c:c + 8] = cid.astype("<u8").view(np.uint8).reshape(-1, 8)
                if lone.any():  # a group of one: no FL_GROUP_COMMIT_ID, no commit id (shorter)
                    ltail = np.frombuffer(mgtid_template(self.writer, grouped=False)[width:], dtype=np.uint8)
                    gm[np.ix_(lone, np.arange(width, width + len(ltail)))] = ltail
                    glens[lone] = width + len(ltail)
        else:
            dt = tpl.gtid_dt
            ph = np.zeros(ng, dtype=dt)
            seq = ids.seq + np.arange(ng)
            ph["sequence_number"] = seq
            ph["last_committed"] = last_committed_array(
                seq, None if self.back is None else self.back[self.ev_txn[a:b][gi]])
            ph["lt_typecode"] = 2
            ph["gtid_flags"] = 0
            ph["gno"] = ids.gno + np.arange(ng) if ids.gno else 0
            if ng:
                ph[dt.names[1]] = np.frombuffer(ids.sid, dtype=dt.fields[dt.names[1]][0])[0]
            glens, gmat = self.gtid_tail.bodies(ph, self.ev_txn[a:b][gi])
        for blen in unique_ints(glens).tolist() if ng else ():  # one row assignment per body length
            sel = np.flatnonzero(glens == blen)
            place_rows(out, at[gi[sel]], gmat[sel, :blen])
        xi = np.flatnonzero(kind == XID)
        if len(xi):
            xids = (ids.xid + np.arange(len(xi))).astype("<u8").view(np.uint8).reshape(-1, 8)
            place_rows(out, at[xi], xids)
        dl = self.ev_dlen[a:b]
        ri = np.flatnonzero(dl)
        if len(ri):  # the rows' bytes are in write order in ``data``: one contiguous range
            d0 = int(self.ev_dstart[a:b][ri[0]])
            d1 = int(self.ev_dstart[a:b][ri[-1]] + dl[ri[-1]])
            if isinstance(self.data, DeferredImages):
                ds = self.ev_dstart[a:b][ri]
                self.data.place_range(out, d0, d1, ds, at[ri] + tlen[ri] - ds)
            else:
                place_runs(out, at[ri] + tlen[ri], dl[ri], self.data[d0:d1])
        if self.footer:
            stops = ends - 4
            mv = memoryview(out)
            crcs = np.zeros(n, dtype="<u4")
            left = np.ones(n, dtype=bool)
            # events that differ from another of their group only in a few known bytes: the
            # header, and an XID's number; their CRCs follow from one event's (crc_by_difference)
            hb = hdr.view(np.uint8).reshape(n, HEADER_SIZE)
            plain = (tp >= 0) & (dl == 0)
            for u in unique_ints(tp[plain]).tolist():
                idx = np.flatnonzero(plain & (tp == u))
                crcs[idx] = crc_by_difference(mv, int(starts[idx[0]]), int(lengths[idx[0]]) - 4, hb[idx])
                left[idx] = False
            if len(xi):
                crcs[xi] = crc_by_difference(mv, int(starts[xi[0]]), int(lengths[xi[0]]) - 4,
                                             np.concatenate([hb[xi], xids], axis=1))
                left[xi] = False
            for blen in unique_ints(glens).tolist() if ng > 1 else ():  # GTIDs of one length: most bytes equal
                sel = np.flatnonzero(glens == blen)
                heads = np.concatenate([hb[gi[sel]], gmat[sel, :blen]], axis=1)
                if int((heads != heads[0]).any(axis=0).sum()) <= _CRC_TERMS_MAX:
                    crcs[gi[sel]] = crc_by_difference(mv, int(starts[gi[sel[0]]]), HEADER_SIZE + blen, heads)
                    left[gi[sel]] = False
            rest = np.flatnonzero(left)
            crc = crc32
            crcs[rest] = [crc(mv[i:j]) for i, j in zip(starts[rest].tolist(), stops[rest].tolist(), strict=True)]
            place_rows(out, stops, crcs.view(np.uint8).reshape(n, 4))
        return memoryview(out).toreadonly()


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
class _Ids:
    """The first ids of a range of events (:func:`_take_ids`): XID, GTID
    ``sequence_number`` (MySQL) or ``seq_no`` (MariaDB), GNO (0: anonymous), the source id
    (MySQL), the MariaDB GTID body template, the server id."""

    xid: int
    server_id: int
    seq: int = 0
    gno: int = 0
    sid: bytes = b""
    mgtid: bytes = b""


@dataclass
class _GtidTails:
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


def _take_ids(w: Any, kind: np.ndarray) -> _Ids:
    """The first ids (GNO / XID / sequence_number / MariaDB seq_no) of events of kinds
    ``kind`` (written next), taken from the writer's one allocator
    (:meth:`~binlogwriter.writer_events.EventsMixin.take_batch_ids`, which notes its GTID
    bookkeeping). A TRANSACTION_PAYLOAD (:data:`PAYLOAD`) holds its transaction's XID."""
    ng = int(np.count_nonzero(kind == GTID))
    nx = int(np.count_nonzero((kind == XID) | (kind == PAYLOAD)))
    xid, seq, gno = w.take_batch_ids(ng, nx)
    ids = _Ids(xid=xid, server_id=w.server_id, seq=seq, gno=gno)
    if w.fmt.is_mariadb:
        ids.mgtid = mgtid_template(w)
    else:
        ids.sid = bytes.fromhex((w._sid or ANONYMOUS_SID).replace("-", ""))
    return ids


def lone_groups(group_pos: np.ndarray | None, txn: np.ndarray) -> np.ndarray:
    """The group-commit position of each transaction ``txn`` of a plan (-1: a group of one,
    no commit id; every one when the plan has none)."""
    if group_pos is None:
        return np.full(len(txn), -1, dtype=np.int64)
    return np.asarray(group_pos, dtype=np.int64)[txn]


def mgtid_template(w: Any, grouped: bool | None = None) -> bytes:
    """A row transaction's MariaDB GTID body (TRANSACTIONAL | ALLOW_PARALLEL, and
    GROUP_COMMIT_ID with ``settings.group_commit_ids`` unless ``grouped`` is False) with
    seq_no and commit id 0."""
    grouped = FL_GROUP_COMMIT_ID if w.settings.group_commit_ids and grouped is not False else 0
    ev = MariadbGtidEvent(seq_no=0, domain_id=w.settings.domain_id, flags2=0x0C | grouped, flags=FLAG_SUPPRESS_USE,
                          server_id=w.server_id, commit_id=0 if grouped else None)
    return _templates(w.fmt).mariadb_gtid_template(ev)
