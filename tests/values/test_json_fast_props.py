"""The fast binary-JSON reader (binlogwriter.values.json_fast) reads exactly what the
reference (json_binary.decode_json) reads (docs/design.md principle 5).

1. Every generated document (all scalar kinds, nested containers, large containers over
   64 KiB): the fast reader takes it (no refusal) and gives a value equal to the reference's,
   type for type (JsonUInt is not int, list is not tuple), at any offset inside a buffer.
2. Damaged documents (bytes nudged or replaced, cut): when the fast reader gives a value, the reference
   gives the same value; when it refuses, nothing is lost (the reference decides).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.strategies.codec import big_json, big_json_params, json_values
from binlogwriter.values.json_binary import decode_json, encode_json
from binlogwriter.values.json_fast import decode_json_at, memo_json_reader


def same(a: Any, b: Any) -> bool:
    """Equal and of the same type all the way down (dict keys in the same order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.binary(max_size=3), st.binary(max_size=3))
def test_fast_json_equals_reference(value, before: bytes, after: bytes) -> None:
    doc = encode_json(value)
    buf = before + doc + after
    assert same(decode_json_at(buf, len(before), len(before) + len(doc)), decode_json(doc))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.data_too_large])
@given(big_json_params)
def test_fast_json_large_containers(params) -> None:
    doc = encode_json(big_json(*params))
    assert same(decode_json_at(b"#" + doc, 1, 1 + len(doc)), decode_json(doc))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.data())
def test_fast_json_damaged(value, data) -> None:
    doc = bytearray(encode_json(value))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(doc) - 1))
        if data.draw(st.booleans()):  # a nudged length or offset field
            doc[i] = (doc[i] + data.draw(st.sampled_from((-2, -1, 1, 2)))) & 0xFF
        else:
            doc[i] = data.draw(st.integers(0, 255))
    cut = len(doc) if data.draw(st.booleans()) else data.draw(st.integers(1, len(doc)))
    doc = bytes(doc[:cut])
    buf = doc + bytes(data.draw(st.binary(min_size=0, max_size=8)))
    try:
        got = decode_json_at(buf, 0, len(doc))
    except Exception:  # noqa: BLE001 - refused: the reference decides (its value or its error)
        return
    assert same(got, decode_json(doc))


def _bumped(value: Any, at: int, delta: int) -> bytes:
    doc = bytearray(encode_json(value))
    doc[at] = (doc[at] + delta) & 0xFF
    return bytes(doc)


# (document, what the damage is): each one the reference refuses; the fast reader must too
# (bytes after the document are readable, so only the bound checks stop it)
REFUSED = [
    (_bumped({"a": True}, 7, 1), "object key one byte past its container"),
    (_bumped({"a": True}, 7, 2), "object key two bytes past its container"),
    (_bumped(["x"], 6, 2), "value offset at the container's size"),
    (_bumped([1, 2], 1, 1), "one more entry than the container holds"),
    (_bumped(["abc"], 8, 1), "string one byte past its container"),
    (_bumped([1.5], 3, -1), "container size cutting its double"),
    (_bumped([True], 6, 3), "unknown literal"),
]


def test_fast_json_refuses_what_the_reference_refuses() -> None:
    for doc, what in REFUSED:
        try:
            decode_json(doc)
        except ValueError:
            pass
        else:
            raise AssertionError(f"the reference takes the damaged document ({what})")
        buf = doc + b"bcdefgh\x00\x00\x00\x00"
        try:
            got = decode_json_at(buf, 0, len(doc))
        except Exception:  # noqa: BLE001 - refused, as it must be
            continue
        raise AssertionError(f"fast reader gave {got!r} for a damaged document ({what})")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(json_values, min_size=1, max_size=4), st.lists(st.integers(0, 3), min_size=1, max_size=30))
def test_memo_reader_equals_reference_and_hands_out_fresh_values(values, picks) -> None:
    """Repeated documents come from the memo: equal to the reference, and a caller editing
    what it got does not change what the next call gets."""
    read = memo_json_reader(max_entries=2)
    docs = [encode_json(v) for v in values]
    for i in picks:
        doc = docs[i % len(docs)]
        got = read(b"##" + doc, 2, 2 + len(doc))
        assert same(got, decode_json(doc))
        if isinstance(got, dict):
            got["__edited__"] = 1
            for v in got.values():
                if isinstance(v, list):
                    v.append("edited")
        elif isinstance(got, list):
            got.append("edited")
            for v in got:
                if isinstance(v, dict):
                    v.clear()
