"""The plain-document JSON encoder (values/json_binary_fast.py) writes exactly the bytes of
the general node writers (values/json_binary_encode.py), or declines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.strategies.codec import json_values
from binlogwriter.values.json_binary_encode import JsonEncodeError, node
from binlogwriter.values.json_binary_fast import Unplain, encode_plain

# plain documents, with what the fast path must decline mixed in: big and out-of-range
# integers, non-finite floats, lone surrogates, long strings (large containers), deep nesting
_scalars = (st.none() | st.booleans() | st.integers(-(1 << 65), 1 << 65)
            | st.sampled_from((-32768, 32767, 32768, -32769, 2**31 - 1, -2**31, 2**31, 2**63 - 1, -2**63, 2**63))
            | st.floats(allow_nan=True, allow_infinity=True)
            | st.text(max_size=20) | st.sampled_from(("\ud800", "x" * 127, "é" * 64, "y" * 70000)))
_plain = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=6)
                      | st.dictionaries(st.text(max_size=8) | st.sampled_from(("\udc80", "k" * 300)), kids, max_size=6),
                      max_leaves=40)


def _general(v) -> bytes | None:
    try:
        t, body = node(v, 0)
    except (JsonEncodeError, RecursionError):
        return None
    return bytes((t,)) + body


def _check(v) -> bool:
    try:
        fast = encode_plain(v)
    except Unplain:
        return False
    assert fast == _general(v)
    return True


@settings(max_examples=400, deadline=None)
@given(st.lists(_plain, max_size=5) | st.dictionaries(st.text(max_size=6), _plain, max_size=5))
def test_plain_documents_match_the_general_encoder(doc):
    _check(doc)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_codec_json_values_match_or_decline(doc):
    _check(doc)


def test_fast_path_taken_for_generated_shapes_and_declined_at_the_limits():
    doc = {"id": 7, "tags": ["a", "bb"], "active": True, "score": 999, "note": None,
           "attrs": {"color": "red", "size": "XL", "weight_g": 4000}, "name": "Zoë ✓", "f": 1.5,
           "big": 1 << 40, "mid": 70000}
    assert _check(doc) and _check([doc, [doc], []]) and _check({})
    deep: list = []
    for _ in range(99):
        deep = [deep]
    assert _check(deep)
    assert not _check([deep])  # depth 101: the general path raises
    assert not _check(["x" * 70000])  # a large container
    assert not _check([1 << 63])  # uint64
    assert not _check({1: 2})
    assert not _check({"k" * 40000: 1, "j" * 30000: 2})  # large by its keys
