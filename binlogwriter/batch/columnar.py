"""Transactions given as columns -> their event groups, planned and encoded per batch
(format.md §3, §8, §9, §12, §13; mariadb.md).

A :class:`RowsBatch` holds many row-change transactions as arrays: per row change its
transaction, table, kind (INSERT/UPDATE/DELETE), image shape (before/after column
bitmaps) and the bytes of its row images (already encoded column by column:
``binlogwriter.values.row.encode_column_images``). :func:`plan_rows_batch` lays out the
events every transaction becomes — the same layout ``transaction.transaction_events``
gives one transaction (MySQL ``GTID · BEGIN · (TABLE_MAP · ROWS…)… · XID``, MariaDB
``GTID · (TABLE_MAP · ROWS…)… · XID``): consecutive changes of one table and kind form a
statement, changes with different image bitmaps go to different rows events, a run is
split at ``row_event_max_size`` by the same rule, STMT_END_F on a statement's last event.
Every event's length follows by arithmetic; a GTID's ``transaction_length`` is the same
fixed point as :func:`binlogwriter.batch.encoder.transaction_length`. Ids (GNOs, XIDs,
``sequence_number``) are given only at :meth:`RowsPlan.encode`, after rotation points
are known, so planning is pure.

Bodies come from templates built through the construct declarations (BEGIN, TABLE_MAP,
each rows-event shape, the MariaDB GTID), the GTID post-header from the structured dtype
derived from its layout, XIDs from the XID layout's dtype; headers are one
``HEADER_DTYPE`` array; one CRC32 per event over its final bytes (format.md §3): zlib's
over each rows event; for events that differ from another of their batch only in a few
bytes (BEGIN, TABLE_MAP, rows-query: the header; XID: the header and the number; GTIDs
of one length) the CRC of one of them and, CRC32 being affine over GF(2), a per-byte
term for each differing byte (:func:`crc_by_difference`). The bytes equal the
declarative path's (tests/batch/test_generate_paths.py: every file of a run equals the
per-transaction path's; tests/batch/test_crc_by_difference.py).

Size (about 620 lines): one pipeline, RowsBatch -> plan_rows_batch -> RowsPlan.encode, whose
steps share the plan's per-event arrays and the event-length arithmetic (a split would export
that private layout between modules); the CRC-by-difference and place_runs helpers are the
byte-level tools of the same encoder.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from binlogwriter.batch.dtypes import HEADER_DTYPE
from binlogwriter.batch.templates import _memo_key, _plain_gtid, _templates
from binlogwriter.events import (
    ANONYMOUS_SID,
    AnnotateRowsEvent,
    AnonymousGtidEvent,
    GtidEvent,
    MariadbGtidEvent,
    QueryEvent,
    RowsQueryEvent,
    XidEvent,
    encode_body,
)
from binlogwriter.events.rows import rows_event_class
from binlogwriter.events.table import known_post_header
from binlogwriter.layouts.header import FLAG_IGNORABLE, FLAG_SUPPRESS_USE, HEADER_SIZE
from binlogwriter.layouts.primitives import encode_packed_int, packed_int_size
from binlogwriter.layouts.rows import STMT_END_F
from binlogwriter.transaction import _present_bitmap, query_status_vars

__all__ = ["RowsBatch", "RowsPlan", "plan_rows_batch", "columnar_supported", "place_runs", "KIND_CODES"]

KIND_CODES = {"insert": 0, "update": 1, "delete": 2}
_KINDS = ("insert", "update", "delete")
GTID, BEGIN, TMAP, ROWS, XID, RQUERY = range(6)
_CRC_TERMS_MAX = 48  # differing bytes past which one zlib call per event is cheaper


@dataclass
class RowsBatch:
    """Row-change transactions as columns (see module docstring). Per transaction:
    ``clock`` (the writer's clock when it commits). Per row change, in write order
    (transactions ascending): ``op_txn``, ``op_table`` (index into ``tables``),
    ``op_kind`` (:data:`KIND_CODES`), ``op_shape`` (index into ``shapes``: (before bits,
    after bits or None)), ``op_len``; ``data`` holds the changes' row images back to back
    (an UPDATE's before image then its after image)."""

    clock: np.ndarray
    op_txn: np.ndarray
    op_table: np.ndarray
    op_kind: np.ndarray
    op_shape: np.ndarray
    op_len: np.ndarray
    data: np.ndarray
    tables: list
    shapes: list
    stmt_sql: list | None = None
    """With rows-query events (``binlog_rows_query_log_events`` / MariaDB annotate): the
    text of every statement, in order (one per run of changes of one transaction, table
    and kind)."""


def columnar_supported(writer: Any) -> bool:
    """Whether ``writer``'s settings are ones :func:`plan_rows_batch` lays out (no
    compression, no tagged GTIDs, no post-header the format declares longer)."""
    fmt = writer.fmt
    st = writer.settings
    if (st.transaction_compression and not fmt.is_mariadb) or writer._tag:
        return False
    if fmt.table_id_size != 6:  # the batch templates write 6-byte table ids (format.md §12)
        return False
    for t in (2, 16, 19, 33, 34, 162, 23, 24, 25, 30, 31, 32):
        ev_extra = writer._extra.get(t)
        if ev_extra is None:
            known = known_post_header(t, fmt)
            ev_extra = fmt.post_header_len(t) - known if known is not None else 0
        if ev_extra:
            return False
    return True


def _packed_sizes(v: np.ndarray) -> np.ndarray:
    return np.where(v < 251, 1, np.where(v < 1 << 16, 3, np.where(v < 1 << 24, 4, 9)))


@dataclass
class RowsPlan:
    """Events of a :class:`RowsBatch` planned (lengths, bodies but ids); ``sizes[t]`` is
    transaction ``t``'s group size in bytes (0: it changed nothing, it writes nothing)."""

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
    data: np.ndarray
    clock: np.ndarray
    gtid_tail: Any  # MySQL: the GTID bodies after their post-headers (_GtidTails), else None
    footer: bool
    chunk_first: np.ndarray | None = None  # first row change of each rows event (ascending)
    chunk_event: np.ndarray | None = None  # the event index of each rows event (ev_* arrays)

    def encode(self, lo: int, hi: int, offset: int) -> bytes:
        """The groups of transactions ``lo..hi-1`` at file ``offset``, ids taken from the
        writer (GNO, XID, sequence_number in the file, MariaDB seq_no) and advanced."""
        w = self.writer
        fmt = w.fmt
        a, b = int(self.txn_first[lo]), int(self.txn_first[hi])
        n = b - a
        if n == 0:
            return b""
        kind = self.ev_kind[a:b]
        lengths = self.ev_len[a:b]
        ends = np.cumsum(lengths)
        hdr = np.empty(n, dtype=HEADER_DTYPE)
        hdr["timestamp"] = self.clock[self.ev_txn[a:b]]
        hdr["type_code"] = self.ev_type[a:b]
        hdr["server_id"] = w.server_id
        hdr["event_length"] = lengths
        hdr["log_pos"] = ends + offset
        hdr["flags"] = self.ev_flags[a:b]
        tpl = _templates(fmt)
        starts = ends - lengths
        total = int(ends[-1])
        out = np.empty(total, dtype=np.uint8)
        out[(starts[:, None] + np.arange(HEADER_SIZE)).ravel()] = hdr.view(np.uint8)
        at = starts + HEADER_SIZE  # where each body starts
        tp = self.ev_tpl[a:b]
        tlen = np.zeros(n, dtype=np.int64)
        for u in np.unique(tp[tp >= 0]).tolist():
            idx = np.flatnonzero(tp == u)
            t = np.frombuffer(self.templates[u], dtype=np.uint8)
            tlen[idx] = len(t)
            if len(t):
                out[(at[idx][:, None] + np.arange(len(t))).ravel()] = np.broadcast_to(t, (len(idx), len(t))).ravel()
        gi = np.flatnonzero(kind == GTID)
        ng = len(gi)
        if fmt.is_mariadb:
            seqs = w._mariadb_seq + 1 + np.arange(ng)
            mtpl = _mgtid_template(w)
            width = tpl.mgtid_seq[1]
            tail = np.frombuffer(mtpl[width:], dtype=np.uint8)
            gm = np.empty((ng, width + len(tail)), dtype=np.uint8)
            gm[:, :width] = seqs.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :width]
            gm[:, width:] = tail
            gsrc, glens, gmat = gm.ravel(), np.full(ng, gm.shape[1], dtype=np.int64), gm
            w._mariadb_seq += ng
            d = w.settings.domain_id
            if ng:
                w.note_mariadb_gtid(d, w.server_id, w._mariadb_seq)
                w.last_gtid = f"{d}-{w.server_id}-{w._mariadb_seq}"
        else:
            dt = tpl.gtid_dt
            ph = np.zeros(ng, dtype=dt)
            seq = w._seq_in_file + 1 + np.arange(ng)
            ph["sequence_number"] = seq
            ph["last_committed"] = seq - 1
            ph["lt_typecode"] = 2
            ph["gtid_flags"] = 0
            if w._sid:
                ph["gno"] = w._gno + 1 + np.arange(ng)
                sid = bytes.fromhex(w._sid.replace("-", ""))
            else:
                ph["gno"] = 0
                sid = bytes.fromhex(ANONYMOUS_SID.replace("-", ""))
            if ng:
                ph[dt.names[1]] = np.frombuffer(sid, dtype=dt.fields[dt.names[1]][0])[0]
            gsrc, glens, gmat = self.gtid_tail.bodies(ph, self.ev_txn[a:b][gi])
            w._seq_in_file += ng
            if w._sid and ng:
                first = w._gno + 1
                w._gno += ng
                ivs = w.mysql_gtids.setdefault((w._sid, w._tag), [])
                if ivs and ivs[-1][1] == first:
                    ivs[-1] = (ivs[-1][0], w._gno + 1)
                else:
                    ivs.append((first, w._gno + 1))
                w.last_gtid = f"{w._sid}:{w._gno}"
            elif ng:
                w.last_gtid = None
        if ng:
            place_runs(out, at[gi], glens, gsrc)
        xi = np.flatnonzero(kind == XID)
        if len(xi):
            xids = (w._xid + 1 + np.arange(len(xi))).astype("<u8").view(np.uint8).reshape(-1, 8)
            out[(at[xi][:, None] + np.arange(8)).ravel()] = xids.ravel()
        w._xid += len(xi)
        dl = self.ev_dlen[a:b]
        ri = np.flatnonzero(dl)
        if len(ri):  # the rows' bytes are in write order in ``data``: one contiguous range
            d0 = int(self.ev_dstart[a:b][ri[0]])
            d1 = int(self.ev_dstart[a:b][ri[-1]] + dl[ri[-1]])
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
            for u in np.unique(tp[plain]).tolist():
                idx = np.flatnonzero(plain & (tp == u))
                crcs[idx] = crc_by_difference(mv, int(starts[idx[0]]), int(lengths[idx[0]]) - 4, hb[idx])
                left[idx] = False
            if len(xi):
                crcs[xi] = crc_by_difference(mv, int(starts[xi[0]]), int(lengths[xi[0]]) - 4,
                                             np.concatenate([hb[xi], xids], axis=1))
                left[xi] = False
            for blen in np.unique(glens).tolist() if ng > 1 else ():  # GTIDs of one length: most bytes equal
                sel = np.flatnonzero(glens == blen)
                heads = np.concatenate([hb[gi[sel]], gmat[sel, :blen]], axis=1)
                if int((heads != heads[0]).any(axis=0).sum()) <= _CRC_TERMS_MAX:
                    crcs[gi[sel]] = crc_by_difference(mv, int(starts[gi[sel[0]]]), HEADER_SIZE + blen, heads)
                    left[gi[sel]] = False
            rest = np.flatnonzero(left)
            crc = zlib.crc32
            crcs[rest] = [crc(mv[i:j]) for i, j in zip(starts[rest].tolist(), stops[rest].tolist(), strict=True)]
            out[(stops[:, None] + np.arange(4)).ravel()] = crcs.view(np.uint8)
        return out.tobytes()


def crc_by_difference(buf: memoryview, start: int, length: int, heads: np.ndarray) -> np.ndarray:
    """CRC32 (zlib's) of ``k`` messages of ``length`` bytes that are equal except in their
    first ``heads.shape[1]`` bytes (``heads[i]``: message ``i``'s; message 0 is
    ``buf[start:start + length]``). CRC32 is affine over GF(2): ``crc(a ^ b) = crc(a) ^
    crc(b) ^ crc(0…0)`` for equal lengths, so ``crc(m_i) = crc(m_0) ^`` the XOR, over the
    bytes where ``m_i`` differs from ``m_0``, of that difference's CRC term: one zlib call
    for the group plus a table lookup per differing byte (:func:`_crc_terms`)."""
    acc = np.full(len(heads), zlib.crc32(buf[start:start + length]), dtype=np.uint32)
    diff = heads ^ heads[0]
    for p in np.flatnonzero(diff.any(axis=0)).tolist():
        acc ^= _crc_terms(length - p)[diff[:, p]]
    return acc


@lru_cache(maxsize=4096)
def _crc_terms(d: int) -> np.ndarray:
    """CRC term of a byte ``b`` followed by ``d - 1`` bytes, for every ``b``: ``crc(b 0…0)
    ^ crc(0…0)`` (leading zeros do not change it), built from the eight single-bit terms."""
    zeros = bytes(d)
    base = zlib.crc32(zeros)
    bits = np.array([zlib.crc32(bytes([1 << k]) + zeros[1:]) ^ base for k in range(8)], dtype=np.uint32)
    b = np.arange(256)
    out = np.zeros(256, dtype=np.uint32)
    for k in range(8):
        out ^= np.where(b >> k & 1, bits[k], np.uint32(0)).astype(np.uint32)
    return out


def place_runs(out: np.ndarray, dest: np.ndarray, lens: np.ndarray, src: np.ndarray) -> None:
    """``out[dest[i]:dest[i]+lens[i]]`` = the next ``lens[i]`` bytes of ``src``, for ascending,
    non-overlapping ``dest``: one boolean mask over the runs' span (``np.repeat`` of
    alternating gap/run lengths) and one masked assignment, or — for runs sparse in their
    span — one index array over the runs' bytes."""
    k = len(dest)
    if not k:
        return
    m = len(src)
    if m * 8 < int(dest[-1] + lens[-1] - dest[0]):
        # sparse runs (a few image groups among many): index arithmetic over the runs' own
        # bytes, not a mask over the whole span
        if m:
            starts = np.cumsum(lens) - lens
            out[np.repeat(dest - starts, lens) + np.arange(m)] = src
        return
    base = int(dest[0])
    out = out[base:int(dest[-1] + lens[-1])]
    dest = dest - base
    ends = dest + lens
    gaps = dest - np.concatenate(([0], ends[:-1]))
    runs = np.empty(2 * k + 1, dtype=np.int64)
    runs[0:-1:2] = gaps
    runs[1::2] = lens
    runs[-1] = len(out) - int(ends[-1])
    vals = np.zeros(2 * k + 1, dtype=bool)
    vals[1::2] = True
    out[np.repeat(vals, runs)] = src


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

    def bodies(self, ph: np.ndarray, txns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The GTID bodies of transactions ``txns`` after their post-headers ``ph`` (a
        structured array, one row each): their bytes back to back, their lengths, and the
        bodies as the rows of a matrix (row ``i``: its first ``lengths[i]`` bytes). The
        packed ``transaction_length`` is built by the layout once per distinct value."""
        rows = self.txn[txns]
        n = len(rows)
        isz, w, p = ph.dtype.itemsize, self.ct.shape[1], len(self.post)
        tl = self.tl[rows]
        ut, tinv = np.unique(tl, return_inverse=True)
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
        return m[np.arange(m.shape[1]) < lens[:, None]], lens, m


def _commit_timestamps(tpl: Any, imm: np.ndarray, orig: int | None) -> np.ndarray:
    """The GTID ``commit_timestamps`` field (format.md §8) of each immediate timestamp in
    ``imm`` with original ``orig``, as rows of bytes: the first built by its declaration,
    the others by patching its immediate value (little-endian, the "original follows" bit
    kept as the declaration set it) and checked against the declaration at the last; with
    an original value written, every one through the declaration."""
    vals = imm.tolist()
    if not vals:
        return np.zeros((0, 0), dtype=np.uint8)
    first = tpl.field("commit_timestamps", (vals[0], orig))
    flag = int.from_bytes(first, "little") ^ vals[0]
    w = len(first)
    if orig is None and w <= 8 and flag >> (8 * w - 1) in (0, 1) and not flag & ((1 << (8 * w - 1)) - 1):
        out = (imm.astype("<u8") | np.uint64(flag)).view(np.uint8).reshape(-1, 8)[:, :w]
        if out[-1].tobytes() == tpl.field("commit_timestamps", (vals[-1], orig)):
            return np.ascontiguousarray(out)
    return np.array([np.frombuffer(tpl.field("commit_timestamps", (v, orig)), dtype=np.uint8) for v in vals])


def _mgtid_template(w: Any) -> bytes:
    ev = MariadbGtidEvent(seq_no=0, domain_id=w.settings.domain_id, flags2=0x0C, flags=FLAG_SUPPRESS_USE,
                          server_id=w.server_id)
    return _templates(w.fmt).mariadb_gtid_template(ev)


def plan_rows_batch(writer: Any, rb: RowsBatch) -> RowsPlan:
    """Plan ``rb`` for ``writer`` (see module docstring); table ids are given here (a
    table keeps its id while its definition is unchanged)."""
    fmt = writer.fmt
    st = writer.settings
    tpl = _templates(fmt)
    footer = fmt.footer_size == 4
    fl = 4 if footer else 0
    n_txn = len(rb.clock)
    nops = len(rb.op_txn)
    ot, otab, okind, oshape, olen = rb.op_txn, rb.op_table, rb.op_kind, rb.op_shape, rb.op_len
    ostart = np.cumsum(olen) - olen
    if nops == 0:  # nothing changed: no groups
        z = np.zeros(0, dtype=np.int64)
        return RowsPlan(writer=writer, n_txn=n_txn, sizes=np.zeros(n_txn, dtype=np.int64),
                        txn_first=np.zeros(n_txn + 1, dtype=np.int64), ev_kind=z.astype(np.int8),
                        ev_type=z.astype(np.uint8), ev_flags=z.astype(np.uint16), ev_len=z, ev_tpl=z, templates=[],
                        ev_dstart=z, ev_dlen=z, ev_txn=z, data=rb.data, clock=rb.clock.astype(np.uint32),
                        gtid_tail=None, footer=footer)
    # statements and runs (format.md §13: one table and kind per statement, one bitmap per event)
    new_stmt = np.ones(nops, dtype=bool)
    new_run = np.ones(nops, dtype=bool)
    if nops > 1:
        same = (ot[1:] == ot[:-1]) & (otab[1:] == otab[:-1]) & (okind[1:] == okind[:-1])
        new_stmt[1:] = ~same
        new_run[1:] = ~same | (oshape[1:] != oshape[:-1])
    run_first = np.flatnonzero(new_run)
    run_end = np.append(run_first[1:], nops)
    stmt_of_op = np.cumsum(new_stmt) - 1
    stmt_first = np.flatnonzero(new_stmt)
    # per table: id, table map body; per (table, kind, shape, end flag): rows template
    # table ids are given in order of first use, as the per-transaction path gives them
    used, first_at = np.unique(otab, return_index=True)
    tids = [0] * len(rb.tables)
    tm_ev: list[Any] = [None] * len(rb.tables)
    tm_body = [b""] * len(rb.tables)
    for ti in used[np.argsort(first_at)].tolist():
        tids[ti] = tid = writer.table_id(rb.tables[ti])
        tm_ev[ti] = e = writer.table_map_event(rb.tables[ti], tid)
        # keyed by content: the templates outlive this run (one per format, process-wide), and
        # an id() of an event that is gone can be another table's in the next run
        tm_body[ti] = tpl.remember(_memo_key(e), lambda e=e: encode_body(e, fmt))
    width = [len(t.columns) for t in rb.tables]
    post = 10 if fmt.rows_version == 2 else 8
    limit = st.row_event_max_size
    classes = [rows_event_class(k, version=fmt.rows_version) for k in _KINDS]
    shape_bits = [(_present_bitmap(bb, fmt), None if ab is None else _present_bitmap(ab, fmt)) for bb, ab in rb.shapes]

    def rows_template(ti: int, k: int, s: int, end: bool) -> bytes:
        cp, ca = shape_bits[s]
        ev = classes[k](table_id=tids[ti], rows_flags=STMT_END_F if end else 0, width=width[ti], columns_present=cp,
                        columns_after=ca, rows=None, rows_raw=b"", server_id=writer.server_id)
        return tpl.rows_template(ev)

    # split runs at row_event_max_size (the rule of transaction.split_rows_events)
    r_tab = otab[run_first]
    r_shape = oshape[run_first]
    cum = np.cumsum(olen)
    r_bytes = cum[run_end - 1] - cum[run_first] + olen[run_first]
    wpk = np.array([packed_int_size(x) for x in width], dtype=np.int64)
    nbm = (np.array(width, dtype=np.int64) + 7) // 8
    has_after = np.array([ab is not None for _, ab in rb.shapes], dtype=np.int64)
    overhead = post + wpk[r_tab] + nbm[r_tab] * (1 + has_after[r_shape])
    chunks_first: list[int] = []
    chunks_end: list[int] = []
    big = np.flatnonzero(overhead + r_bytes > limit)
    if len(big) == 0:
        c_first, c_end = run_first, run_end
    else:
        bigset = set(big.tolist())
        lens = olen.tolist()
        for r, (f, e) in enumerate(zip(run_first.tolist(), run_end.tolist(), strict=True)):
            if r not in bigset:
                chunks_first.append(f)
                chunks_end.append(e)
                continue
            ov = int(overhead[r])
            cf, size = f, 0
            for i in range(f, e):
                if i > cf and ov + size + lens[i] > limit:
                    chunks_first.append(cf)
                    chunks_end.append(i)
                    cf, size = i, 0
                size += lens[i]
            chunks_first.append(cf)
            chunks_end.append(e)
        c_first = np.asarray(chunks_first, dtype=np.int64)
        c_end = np.asarray(chunks_end, dtype=np.int64)
    nch = len(c_first)
    c_tab, c_kind, c_shape = otab[c_first], okind[c_first], oshape[c_first]
    c_end_stmt = np.ones(nch, dtype=bool)
    if nch > 1:
        c_end_stmt[:-1] = stmt_of_op[c_first[1:]] != stmt_of_op[c_first[:-1]]
    c_dstart = ostart[c_first]
    c_dlen = cum[c_end - 1] - cum[c_first] + olen[c_first]
    tkey: dict[tuple, int] = {}
    c_tpl = np.empty(nch, dtype=np.int64)
    tpl_bodies: list[bytes] = []
    combo = (((c_tab.astype(np.int64) * 3 + c_kind) * (len(rb.shapes) + 1) + c_shape) * 2 + c_end_stmt)
    uniq, inv = np.unique(combo, return_inverse=True)
    for u_i, u in enumerate(uniq.tolist()):
        end = bool(u & 1)
        rest = u >> 1
        s = rest % (len(rb.shapes) + 1)
        rest //= len(rb.shapes) + 1
        k = rest % 3
        ti = rest // 3
        tpl_bodies.append(rows_template(ti, k, s, end))
        tkey[u] = u_i
    c_tpl = inv
    tpl_len = np.array([len(x) for x in tpl_bodies], dtype=np.int64)
    # events: GTID, [BEGIN], per statement TABLE_MAP then its chunks, XID — ordered by (txn, key)
    s_txn = ot[stmt_first]
    s_tab = otab[stmt_first]
    nonempty = np.zeros(n_txn, dtype=bool)
    nonempty[ot] = True
    txns = np.flatnonzero(nonempty)
    mariadb = fmt.is_mariadb
    fixed_kinds = [GTID] if mariadb else [GTID, BEGIN]
    parts_txn = [np.repeat(txns, len(fixed_kinds)), s_txn, ot[c_first], txns]
    parts_key = [np.tile(np.arange(len(fixed_kinds)) - 10, len(txns)), 4 * stmt_first + 1, 4 * c_first + 2,
                 np.full(len(txns), 4 * nops + 10)]
    parts_kind = [np.tile(np.array(fixed_kinds), len(txns)), np.full(len(s_txn), TMAP), np.full(nch, ROWS),
                  np.full(len(txns), XID)]
    parts_ref = [np.zeros(len(txns) * len(fixed_kinds), dtype=np.int64), s_tab.astype(np.int64),
                 np.arange(nch, dtype=np.int64), np.zeros(len(txns), dtype=np.int64)]
    rq_bodies: list[bytes] = []
    rq_flags = 0
    if writer.rows_query:  # a ROWS_QUERY / ANNOTATE_ROWS before each statement's table map
        if rb.stmt_sql is None or len(rb.stmt_sql) != len(stmt_first):
            raise ValueError("rows-query events need the text of every statement")
        cls = AnnotateRowsEvent if fmt.is_mariadb else RowsQueryEvent
        kw = {} if fmt.is_mariadb else {"flags": FLAG_IGNORABLE}
        rq_flags = cls(query="", server_id=writer.server_id, **kw).flags
        seen: dict[str, int] = {}
        rq_ref = np.empty(len(stmt_first), dtype=np.int64)
        for j, sql in enumerate(rb.stmt_sql):
            r = seen.get(sql)
            if r is None:
                r = seen[sql] = len(rq_bodies)
                ev = cls(query=sql, server_id=writer.server_id, **kw)
                rq_bodies.append(tpl.remember(("cm-rq", cls.TYPE, sql), lambda ev=ev: encode_body(ev, fmt)))
            rq_ref[j] = r
        parts_txn.append(s_txn)
        parts_key.append(4 * stmt_first)
        parts_kind.append(np.full(len(s_txn), RQUERY))
        parts_ref.append(rq_ref)
    e_txn = np.concatenate(parts_txn).astype(np.int64)
    e_key = np.concatenate(parts_key).astype(np.int64)
    order = np.lexsort((e_key, e_txn))
    e_txn = e_txn[order]
    e_kind = np.concatenate(parts_kind).astype(np.int8)[order]
    e_ref = np.concatenate(parts_ref)[order]
    ne = len(e_txn)
    # bodies and lengths
    begin = QueryEvent(thread_id=st.thread_id, db="", query="BEGIN", flags=FLAG_SUPPRESS_USE,
                       status_vars=query_status_vars(fmt, st), server_id=writer.server_id)
    begin_body = tpl.remember(("cm-begin", st), lambda: encode_body(begin, fmt))
    xid_ev = XidEvent(xid=0, server_id=writer.server_id)
    ev_type = np.zeros(ne, dtype=np.uint8)
    ev_flags = np.zeros(ne, dtype=np.uint16)
    ev_len = np.zeros(ne, dtype=np.int64)
    ev_dstart = np.zeros(ne, dtype=np.int64)
    ev_dlen = np.zeros(ne, dtype=np.int64)
    ev_tpl = np.full(ne, -1, dtype=np.int64)  # template body of the event (index into templates)
    templates = [begin_body, *tm_body, *tpl_bodies, *rq_bodies]
    m = e_kind == BEGIN
    ev_type[m] = 2
    ev_flags[m] = begin.flags
    ev_len[m] = HEADER_SIZE + len(begin_body) + fl
    ev_tpl[m] = 0
    m = e_kind == XID
    ev_type[m] = 16
    ev_flags[m] = xid_ev.flags
    ev_len[m] = HEADER_SIZE + tpl.xid_dt.itemsize + fl
    m = e_kind == TMAP
    tm_idx = np.flatnonzero(m)
    refs = e_ref[tm_idx]
    ev_type[tm_idx] = 19
    ev_flags[tm_idx] = np.array([0 if e is None else e.flags for e in tm_ev], dtype=np.uint16)[refs]
    ev_len[tm_idx] = HEADER_SIZE + np.array([len(b) for b in tm_body], dtype=np.int64)[refs] + fl
    ev_tpl[tm_idx] = 1 + refs
    m = e_kind == ROWS
    rw_idx = np.flatnonzero(m)
    refs = e_ref[rw_idx]
    ev_type[rw_idx] = np.array([c.TYPE for c in classes], dtype=np.uint8)[c_kind[refs]]
    ev_len[rw_idx] = HEADER_SIZE + tpl_len[c_tpl[refs]] + c_dlen[refs] + fl
    ev_dstart[rw_idx] = c_dstart[refs]
    ev_dlen[rw_idx] = c_dlen[refs]
    ev_tpl[rw_idx] = 1 + len(tm_body) + c_tpl[refs]
    chunk_event = np.empty(nch, dtype=np.int64)
    chunk_event[refs] = rw_idx
    m = e_kind == RQUERY
    if m.any():
        q_idx = np.flatnonzero(m)
        refs = e_ref[q_idx]
        ev_type[q_idx] = 160 if fmt.is_mariadb else 29
        ev_flags[q_idx] = rq_flags
        ev_len[q_idx] = HEADER_SIZE + np.array([len(x) for x in rq_bodies], dtype=np.int64)[refs] + fl
        ev_tpl[q_idx] = 1 + len(tm_body) + len(tpl_bodies) + refs
    # GTIDs: their lengths (transaction_length by arithmetic for MySQL)
    g_idx = np.flatnonzero(e_kind == GTID)
    gtid_tail: Any = None
    if mariadb:
        ev_type[g_idx] = 162
        ev_flags[g_idx] = FLAG_SUPPRESS_USE
        ev_len[g_idx] = HEADER_SIZE + len(_mgtid_template(writer)) + fl
    else:
        proto_cls = GtidEvent if writer._sid else AnonymousGtidEvent
        proto = proto_cls(sid=writer._sid or ANONYMOUS_SID, gno=1 if writer._sid else 0, gtid_flags=0, lt_typecode=2,
                          last_committed=0, sequence_number=1, immediate_commit_timestamp=0, transaction_length=0,
                          immediate_server_version=fmt.server_version_number, server_id=writer.server_id)
        if not _plain_gtid(proto) or tpl.gtid_dt is None:
            raise NotImplementedError("GTID layout without a fixed post-header")
        ev_type[g_idx] = proto.TYPE
        ev_flags[g_idx] = proto.flags
        post = tpl.field("server_versions", (proto.immediate_server_version, proto.original_server_version))
        if proto.commit_group_ticket is not None:
            post += tpl.field("commit_group_ticket", proto.commit_group_ticket)
        others = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
        g_txn = e_txn[g_idx]
        clock = rb.clock.astype(np.int64)
        uc, inv = np.unique(clock[g_txn], return_inverse=True)
        ct = _commit_timestamps(tpl, uc * 1_000_000, proto.original_commit_timestamp)
        fixed = HEADER_SIZE + tpl.gtid_dt.itemsize + ct.shape[1] + len(post) + fl
        rest = others[g_txn] + fixed
        tl = np.zeros(len(g_idx), dtype=np.int64)
        while True:  # the fixed point of transaction_length from 0 (encoder.transaction_length)
            total = rest + _packed_sizes(tl)
            if (total == tl).all():
                break
            tl = np.where(total == tl, tl, total)
        gtid_tail = _GtidTails(txn=np.full(n_txn, -1, dtype=np.int64), ct=ct[inv], tl=tl, post=post)
        gtid_tail.txn[g_txn] = np.arange(len(g_txn))
        ev_len[g_idx] = fixed + _packed_sizes(tl)
    sizes = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
    txn_first = np.searchsorted(e_txn, np.arange(n_txn + 1), side="left")
    return RowsPlan(writer=writer, n_txn=n_txn, sizes=sizes, txn_first=txn_first, ev_kind=e_kind, ev_type=ev_type,
                    ev_flags=ev_flags, ev_len=ev_len, ev_tpl=ev_tpl, templates=templates, ev_dstart=ev_dstart, ev_dlen=ev_dlen,
                    ev_txn=e_txn, data=rb.data, clock=rb.clock.astype(np.uint32), gtid_tail=gtid_tail,
                    footer=footer, chunk_first=np.asarray(c_first, dtype=np.int64), chunk_event=chunk_event)
