"""binlogwriter/serve/packets.py: a run of events framed at once equals the dump packets
``protocol.frame(b"\\x00" + event, seq)`` gives event after event (MySQL client/server
protocol: 3-byte payload length, 1-byte sequence id; a dump packet's payload is 0x00 then
the event), and runs the array framing does not take are refused with None."""

from __future__ import annotations

import struct

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from binlogwriter.serve.packets import frame_events
from binlogwriter.serve.protocol import MAX_PAYLOAD, frame


def _event(type_code: int, body: bytes, length_field: int | None = None) -> bytes:
    """A 19-byte v4 common header (timestamp, type, server id, event_length, next position,
    flags; format.md §3) followed by ``body``."""
    n = 19 + len(body)
    head = struct.pack("<IBIIIH", 0x5F5E1000, type_code, 7, n if length_field is None else length_field, 0, 0)
    return head + body


events_st = st.lists(
    st.tuples(st.sampled_from([2, 4, 15, 16, 19, 30, 31, 32, 33, 160, 162]), st.binary(max_size=300)),
    max_size=40,
)


def _reference(events: list[bytes], seq: int, skip: int | None) -> tuple[bytes, int]:
    out = []
    for ev in events:
        if skip is not None and ev[4] == skip:
            continue
        packet, seq = frame(b"\x00" + ev, seq)
        out.append(packet)
    return b"".join(out), seq


@given(events_st, st.integers(0, 255), st.one_of(st.none(), st.sampled_from([160, 19, 99])))
def test_frame_events_equals_frame_one_by_one(spec: list[tuple[int, bytes]], seq: int, skip: int | None) -> None:
    events = [_event(t, b) for t, b in spec]
    data = b"".join(events)
    lengths = np.array([len(e) for e in events], dtype=np.int64)
    got = frame_events(data, lengths, seq, skip_type=skip)
    assert got is not None
    packets, next_seq, sent, sent_bytes = got
    want, want_seq = _reference(events, seq, skip)
    assert packets.tobytes() == want
    assert next_seq == want_seq
    kept = [e for e in events if skip is None or e[4] != skip]
    assert sent == len(kept)
    assert sent_bytes == sum(map(len, kept))


def test_a_wrong_event_length_field_is_refused() -> None:
    events = [_event(2, b"abc"), _event(16, b"x" * 8, length_field=5)]
    lengths = np.array([len(e) for e in events], dtype=np.int64)
    assert frame_events(b"".join(events), lengths, 0) is None


def test_lengths_that_do_not_add_up_are_refused() -> None:
    ev = _event(2, b"abcdef")
    assert frame_events(ev, np.array([len(ev) - 1], dtype=np.int64), 0) is None
    assert frame_events(ev, np.array([10], dtype=np.int64), 0) is None  # shorter than a header


def test_an_event_needing_two_packets_is_left_to_the_caller() -> None:
    ev = _event(30, bytes(MAX_PAYLOAD - 19))  # 0x00 + event is MAX_PAYLOAD + 1 bytes
    assert frame_events(ev, np.array([len(ev)], dtype=np.int64), 3) is None
    assert frame(b"\x00" + ev, 3)[1] == 5  # the reference spans two packets


def test_no_events() -> None:
    packets, seq, sent, n = frame_events(b"", np.array([], dtype=np.int64), 9)
    assert (packets.tobytes(), seq, sent, n) == (b"", 9, 0, 0)
