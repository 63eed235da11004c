"""MysqlGtidSet's interval arithmetic (binlogwriter/gtids.py) against a plain set of GNOs per
``(uuid, tag)``: ``add_interval`` (appending, inside, across and between intervals; one set's
intervals into another: the union), ``add``, ``contains``, ``issubset``, ``copy``, and the text
/ binary forms of the result."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.events import PreviousGtidsEvent, encode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.gtids import MysqlGtidSet
from binlogwriter.layouts.header import HEADER_SIZE

U1, U2 = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "00000000-0000-0000-0000-0000000000aa"
KEYS = [(U1, ""), (U1, "load"), (U2, "")]

# (key, start, end): small GNOs so that intervals touch, overlap and nest often
ranges = st.tuples(st.sampled_from(KEYS), st.integers(1, 40), st.integers(0, 12)).map(
    lambda t: (t[0], t[1], t[1] + t[2]))


def _build(rs: list) -> tuple[MysqlGtidSet, dict]:
    gs, ref = MysqlGtidSet(), {}
    for (uuid, tag), a, b in rs:
        if b - a == 1 and a % 2:
            gs.add(uuid, tag, a)
        else:
            gs.add_interval(uuid, tag, a, b)
        ref.setdefault((uuid, tag), set()).update(range(a, b))
    return gs, ref


def _gnos(gs: MysqlGtidSet) -> dict:
    return {key: {g for a, b in ivs for g in range(a, b)} for key, ivs in gs.sids.items()}


def _check_normal(gs: MysqlGtidSet) -> None:
    """Sorted, disjoint, never touching, never empty: the one form of a set."""
    for ivs in gs.sids.values():
        assert ivs
        assert all(a < b for a, b in ivs)
        assert all(b < c for (_, b), (c, _) in zip(ivs, ivs[1:], strict=False))


@settings(max_examples=400, deadline=None)
@given(st.lists(ranges, max_size=14), st.lists(ranges, max_size=8), st.integers(0, 55))
def test_interval_arithmetic_is_the_set_of_gnos(rs: list, more: list, probe: int) -> None:
    gs, ref = _build(rs)
    _check_normal(gs)
    assert _gnos(gs) == {k: v for k, v in ref.items() if v}
    for uuid, tag in KEYS:
        assert gs.contains(uuid, tag, probe) == (probe in ref.get((uuid, tag), set()))
    other, ref2 = _build(more)
    assert gs.issubset(other) == all(v <= ref2.get(k, set()) for k, v in ref.items())
    union = gs.copy()
    for (uuid, tag), ivs in other.sids.items():
        for a, b in ivs:
            union.add_interval(uuid, tag, a, b)
    _check_normal(union)
    assert _gnos(union) == {k: ref.get(k, set()) | ref2.get(k, set()) for k in ref.keys() | ref2.keys()
                            if ref.get(k) or ref2.get(k)}
    assert _gnos(gs) == {k: v for k, v in ref.items() if v}  # the copy was changed, not gs
    assert other.issubset(union) and gs.issubset(union)


@settings(max_examples=200, deadline=None)
@given(st.lists(ranges, max_size=14))
def test_text_and_binary_forms_read_back(rs: list) -> None:
    gs, _ = _build(rs)
    assert MysqlGtidSet.from_text(gs.text()) == gs
    fmt = BinlogFormat.mysql84(checksum=False)
    data = encode_event(PreviousGtidsEvent(server_id=1, gtid_set=gs.layout()), fmt, offset=4, timestamp=0)
    body = data[HEADER_SIZE:]
    assert MysqlGtidSet.from_binary(body) == gs
    assert gs.layout()["tagged"] == any(tag for _, tag in gs.sids)
