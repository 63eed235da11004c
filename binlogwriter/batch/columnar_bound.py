"""Batch plans whose bytes depend on the ids they were planned with (part of
:mod:`binlogwriter.batch.columnar`, which plans them): :class:`BoundRowsPlan` and the MySQL
8.3+ tagged GTIDs (:class:`TaggedGtids`, varlen fields: a GTID_TAGGED_LOG_EVENT's length
depends on its GNO and ``sequence_number``, format.md §8)."""

from __future__ import annotations

from typing import Any

import numpy as np

from binlogwriter.batch.columnar_encode import RowsPlan
from binlogwriter.errors import BinlogError
from binlogwriter.events import GtidTaggedEvent, encode_body
from binlogwriter.layouts.header import HEADER_SIZE
from binlogwriter.logical_clock import last_committed
from binlogwriter.write.ids import BatchIds, GtidSource, IdRange

__all__ = ["BoundRowsPlan", "TaggedGtids", "bound"]


class BoundRowsPlan(RowsPlan):
    """A :class:`RowsPlan` whose bytes depend on ids it was planned with:

    * compressed groups (``columnar._compressed``): the payloads hold the XIDs the plan was made
      with (``txn_xid[t]``: transaction ``t``'s, 0 when it writes nothing), so the writer's
      next XID must be that one when a range is placed;
    * tagged GTIDs (:class:`TaggedGtids`): a GTID_TAGGED_LOG_EVENT's length depends on its
      GNO and its ``sequence_number`` in the file (varlen fields, format.md §8), which
      restarts at each rotation: :meth:`rebase` re-plans the lengths from a transaction on
      for the writer's current file (``BinlogWriter.prepare_planned`` calls it before the
      rotation point is searched)."""

    txn_xid: np.ndarray | None = None

    def rebase(self, lo: int, seq: int, gno: int, room: int) -> None:
        """Lengths of transactions ``lo..`` when the first of them that writes a group gets
        ``sequence_number`` ``seq + 1`` and GNO ``gno + 1``, up to the first whose end is at
        least ``room`` bytes on (where the writer rotates); ``sizes`` / ``ev_len`` updated."""
        tails = self.gtid_tail
        if isinstance(tails, TaggedGtids):
            tails.rebase(self, lo, seq, gno, room)

    def encode_later(self, lo: int, hi: int, offset: int, ids: BatchIds):
        if self.txn_xid is not None:
            wrote = np.flatnonzero(self.sizes[lo:hi])
            if len(wrote):
                want = int(self.txn_xid[lo + int(wrote[0])])
                if ids.xid != want:
                    raise BinlogError(f"compressed batch planned with XID {want} next, the writer's next is "
                                      f"{ids.xid}: XIDs were taken since it was planned")
        return super().encode_later(lo, hi, offset, ids)


def bound(rng: IdRange, plan: RowsPlan, txn_xid: np.ndarray | None = None) -> RowsPlan:
    """``plan`` as a :class:`BoundRowsPlan` when its bytes depend on planned ids."""
    if txn_xid is None and not isinstance(plan.gtid_tail, TaggedGtids):
        return plan
    out = BoundRowsPlan(**{f: getattr(plan, f) for f in plan.__dataclass_fields__})
    out.txn_xid = txn_xid
    if isinstance(plan.gtid_tail, TaggedGtids):  # the batch continues the file as the writer is now
        out.rebase(0, rng.seq_in_file, rng.gno, 1 << 62)
    return out


class TaggedGtids:
    """MySQL 8.3+ tagged GTIDs (GTID_TAGGED_LOG_EVENT, format.md §8) of a plan: a
    ``mysql::serialization`` message of varlen fields, so each body is built by its
    declaration (:func:`encode_body` of the event ``next_mysql_gtid`` makes) for the GNO and
    ``sequence_number`` it will have, and its ``transaction_length`` found by re-encoding from
    0 (``BatchBuilder``'s rule). Per transaction: the group's bytes without its GTID
    (``others``), the commit timestamp, the GTID's event index, and the (seq, gno) its body
    was built for (0: none yet)."""

    def __init__(self, fmt: Any, source: GtidSource, others: np.ndarray, ict: np.ndarray, g_of_txn: np.ndarray,
                 fl: int, back: np.ndarray | None = None) -> None:
        self.back = back  # per transaction: dependency distance (binlogwriter/logical_clock.py); None: 1
        self.fmt = fmt
        self.sid, self.tag, self.server_id = source.sid, source.tag, source.server_id
        self.version = fmt.server_version_number
        self.others = others
        self.ict = ict
        self.g_of_txn = g_of_txn
        self.fl = fl
        n = len(others)
        self.seq = np.zeros(n, dtype=np.int64)
        self.gno = np.zeros(n, dtype=np.int64)
        self.body: list[bytes] = [b""] * n

    @classmethod
    def start(cls, fmt: Any, source: GtidSource, clock_s: np.ndarray, n_txn: int, e_txn: np.ndarray, g_idx: np.ndarray,
              ev_type: np.ndarray, ev_flags: np.ndarray, ev_len: np.ndarray, fl: int,
              back: np.ndarray | None = None) -> TaggedGtids:
        ev_len[g_idx] = 0
        others = np.bincount(e_txn, weights=ev_len, minlength=n_txn).astype(np.int64)
        g_of_txn = np.full(n_txn, -1, dtype=np.int64)
        g_of_txn[e_txn[g_idx]] = g_idx
        proto = cls.event(source.sid, source.tag, 1, 1, 0, 0, fmt.server_version_number, source.server_id)
        ev_type[g_idx] = proto.TYPE
        ev_flags[g_idx] = proto.flags
        return cls(fmt, source, others, clock_s.astype(np.int64) * 1_000_000, g_of_txn, fl, back)

    @staticmethod
    def event(sid: str, tag: str, gno: int, seq: int, ict: int, tl: int, version: int,
              server_id: int, back: int = 1) -> GtidTaggedEvent:
        """The event ``EventsMixin.next_mysql_gtid`` makes for a tagged GTID."""
        return GtidTaggedEvent(sid=sid, tag=tag, gno=gno, gtid_flags=0, last_committed=last_committed(seq, back),
                               sequence_number=seq,
                               immediate_commit_timestamp=ict, transaction_length=tl,
                               immediate_server_version=version, server_id=server_id)

    def build(self, t: int, seq: int, gno: int) -> bytes:
        back = 1 if self.back is None else int(self.back[t])
        ev = self.event(self.sid, self.tag, gno, seq, int(self.ict[t]), 0, self.version, self.server_id, back)
        rest = int(self.others[t]) + HEADER_SIZE + self.fl
        body = encode_body(ev, self.fmt)
        while True:  # the fixed point of transaction_length from 0 (encoder.BatchBuilder)
            total = rest + len(body)
            if total == ev.transaction_length:
                return body
            ev.transaction_length = total
            body = encode_body(ev, self.fmt)

    def rebase(self, plan: RowsPlan, lo: int, seq: int, gno: int, room: int) -> None:
        used = 0
        sizes, ev_len = plan.sizes, plan.ev_len
        for t in range(lo, plan.n_txn):
            g = int(self.g_of_txn[t])
            if g < 0:
                continue
            seq += 1
            gno += 1
            if self.seq[t] != seq or self.gno[t] != gno:
                body = self.body[t] = self.build(t, seq, gno)
                self.seq[t], self.gno[t] = seq, gno
                ev_len[g] = HEADER_SIZE + len(body) + self.fl
                sizes[t] = self.others[t] + ev_len[g]
            used += int(sizes[t])
            if used >= room:
                break

    def bodies(self, ph: np.ndarray, txns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The GTID bodies of transactions ``txns`` for the ids ``ph`` the encoder took
        (``RowsPlan._bytes``): their lengths and rows; an id other than the one a body was
        built for is an error (the plan was not rebased for the writer's file)."""
        seq, gno = ph["sequence_number"].tolist(), ph["gno"].tolist()
        rows = []
        for k, t in enumerate(txns.tolist()):
            if self.seq[t] != seq[k] or self.gno[t] != gno[k]:
                raise BinlogError(f"tagged GTID of transaction {t} planned as {self.gno[t]} (sequence_number "
                                  f"{self.seq[t]}), written as {gno[k]} ({seq[k]}): plan not rebased")
            rows.append(self.body[t])
        lens = np.array([len(b) for b in rows], dtype=np.int64)
        m = np.zeros((len(rows), int(lens.max()) if rows else 0), dtype=np.uint8)
        for k, b in enumerate(rows):
            m[k, :len(b)] = np.frombuffer(b, dtype=np.uint8)
        return lens, m
