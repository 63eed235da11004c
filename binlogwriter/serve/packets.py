"""Many events framed as dump packets at once (docs/serve.md "Dump"; protocol.py).

A dump sends each event as one packet: the 4-byte packet header (payload length, 3 bytes
little-endian, then the sequence id) and the payload ``0x00`` + event; an event of
``MAX_PAYLOAD - 1`` bytes or more spans several packets (:func:`~binlogwriter.serve.protocol.frame`).
When the events' lengths are known beforehand (:class:`EventRun`: the generator's batch path
plans them, generators/serve.py), :func:`frame_events` builds the packets of a whole run of
events with array operations (the project's byte placement, binlogwriter/batch/scatter.py)
instead of a loop per event. tests/serve/test_packets.py proves it gives the bytes of
``frame(b"\\x00" + event, seq)`` event after event.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from binlogwriter.batch.scatter import place_rows, place_runs
from binlogwriter.layouts.header import HEADER_SIZE, LENGTH_AT, LOG_POS_AT, TYPE_AT
from binlogwriter.serve.protocol import MAX_PAYLOAD

__all__ = ["EventRun", "frame_events"]

class EventRun:
    """Whole events back to back (``data``: bytes or a buffer) with each one's length
    (``lengths``, in order; their sum is ``len(data)``). Its ``len`` is the bytes'."""

    __slots__ = ("data", "lengths")

    def __init__(self, data: Any, lengths: np.ndarray) -> None:
        self.data = data
        self.lengths = lengths

    def __len__(self) -> int:
        return len(self.data)


def frame_events(data: Any, lengths: np.ndarray, seq: int,
                 skip_type: int | None = None) -> tuple[np.ndarray, int, int, int] | None:
    """The dump packets of the events of ``data`` (lengths ``lengths``), the first with
    sequence id ``seq``; events of type ``skip_type`` left out (MariaDB's ANNOTATE_ROWS when
    the replica did not ask for them). Returns (packets as a uint8 array, next sequence id,
    events sent, event bytes sent), or None when the run is not one this framing takes: the
    lengths do not add up to ``data``, an event's ``event_length`` field is not its given
    length, or an event needs more than one packet (the caller walks such a run event by
    event)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    lengths = np.asarray(lengths, dtype=np.int64)
    k = len(lengths)
    if not k:
        return (np.empty(0, dtype=np.uint8), seq, 0, 0) if not len(buf) else None
    if int(lengths.sum()) != len(buf) or int(lengths.min()) < HEADER_SIZE or int(lengths.max()) + 1 >= MAX_PAYLOAD:
        return None
    starts = np.cumsum(lengths) - lengths
    field = buf[starts[:, None] + np.arange(LENGTH_AT, LOG_POS_AT)]  # (k, 4)
    if not np.array_equal(field.view("<u4").ravel(), lengths):
        return None
    src = buf
    if skip_type is not None:
        keep = buf[starts + TYPE_AT] != skip_type
        if not keep.all():
            src = buf[np.repeat(keep, lengths)]
            lengths = lengths[keep]
            k = len(lengths)
    n = int(lengths.sum())
    out = np.empty(n + 5 * k, dtype=np.uint8)
    if not k:
        return out, seq, 0, 0
    dest = np.cumsum(lengths) - lengths + 5 * np.arange(1, k + 1, dtype=np.int64)
    place_runs(out, dest, lengths, src)
    head = np.zeros((k, 5), dtype=np.uint8)  # payload length, sequence id, then the 0x00 of a dump packet
    words = (lengths + 1) | ((seq + np.arange(k, dtype=np.int64)) & 0xFF) << 24
    head[:, :4] = words.astype("<u4").view(np.uint8).reshape(k, 4)
    place_rows(out, dest - 5, head)
    return out, (seq + k) & 0xFF, k, n
