"""One text form of a GTID set (issue 30): PREVIOUS_GTIDS' ``text`` (the decoded layout, in its
binary order) and :meth:`MysqlGtidSet.text` (``@@gtid_executed``) both go through
``layouts.gtid.tsids_text``; for a set as MySQL encodes it (``Gtid_set::encode``: TSIDs sorted
by uuid then tag, intervals sorted and merged) they give the same text but for the separator,
and the text reads back as the same set. Expected texts written out by hand from the server's
``Gtid_set::to_string`` rules (format.md §7)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.events import PreviousGtidsEvent
from binlogwriter.gtids import (
    MysqlGtidSet,
    mariadb_gtid_text,
    mysql_gtid_text,
    parse_mariadb_gtid,
    parse_mysql_gtid,
)
from binlogwriter.read.filters import GtidSet

U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
U2 = "4e11fa47-71ca-11e1-9e33-c80aa9429562"

_uuids = st.binary(min_size=16, max_size=16).map(lambda b: "-".join((b.hex()[:8], b.hex()[8:12], b.hex()[12:16],
                                                                      b.hex()[16:20], b.hex()[20:])))
_tags = st.one_of(st.just(""), st.from_regex(r"[a-z_][a-z0-9_]{0,31}", fullmatch=True))


@st.composite
def _sets(draw) -> MysqlGtidSet:
    out = MysqlGtidSet()
    for uuid in draw(st.lists(_uuids, min_size=1, max_size=4, unique=True)):
        for tag in draw(st.lists(_tags, min_size=1, max_size=3, unique=True)):
            for a in draw(st.lists(st.integers(1, (1 << 63) - 2), min_size=1, max_size=6)):
                out.add_interval(uuid, tag, a, min(a + draw(st.integers(1, 1000)), (1 << 63) - 1))
    return out


@settings(max_examples=300, deadline=None)
@given(_sets())
def test_previous_gtids_text_is_the_set_text(s: MysqlGtidSet) -> None:
    sids = [(u, t, [tuple(iv) for iv in ivs]) for (u, t), ivs in sorted(s.sids.items())]
    ev = PreviousGtidsEvent(gtid_set={"tagged": any(t for _, t, _ in sids), "sids": sids})
    assert ev.text == s.text().replace(",\n", ",")
    assert MysqlGtidSet.from_text(s.text()) == s
    assert MysqlGtidSet.from_layout(ev.gtid_set) == s


def test_set_text_by_hand() -> None:
    s = MysqlGtidSet.from_text(f"{U2}:3,{U1}:tb:2-4,{U1}:1-5:7:9-10:ta:1")
    assert s.text() == f"{U1}:1-5:7:9-10:ta:1:tb:2-4,\n{U2}:3"
    ev = PreviousGtidsEvent(gtid_set={"tagged": True, "sids": [(U1, "", [(1, 6)]), (U1, "x", [(8, 9)]), (U2, "", [])]})
    assert ev.text == f"{U1}:1-5:x:8,{U2}"  # a TSID without intervals prints its uuid alone


def test_gtid_texts_by_hand() -> None:
    assert mysql_gtid_text(U1, 42) == f"{U1}:42"
    assert mysql_gtid_text(U1, 42, "load_a") == f"{U1}:load_a:42"
    assert mariadb_gtid_text(0, 1, 100) == "0-1-100"


@settings(max_examples=300, deadline=None)
@given(_uuids, _tags, st.integers(1, (1 << 63) - 2), st.integers(0, (1 << 32) - 1), st.integers(0, (1 << 32) - 1),
       st.integers(0, (1 << 64) - 1))
def test_gtid_text_reads_back(uuid: str, tag: str, gno: int, domain: int, server: int, seq: int) -> None:
    text = mysql_gtid_text(uuid, gno, tag)
    assert parse_mysql_gtid(text) == (uuid, tag, gno)
    assert parse_mysql_gtid(text.upper()) == (uuid, tag, gno)  # a set holds the canonical uuid, tags in lower case
    assert parse_mariadb_gtid(text) is None
    assert parse_mariadb_gtid(mariadb_gtid_text(domain, server, seq)) == (domain, server, seq)
    assert text in GtidSet(f"{uuid}:{tag + ':' if tag else ''}{gno}")
    assert text not in GtidSet(f"{uuid}:{tag + ':' if tag else ''}{gno + 1}")
    assert mariadb_gtid_text(domain, server, seq) in GtidSet(f"{domain}-{server}-{max(seq - 1, 0)}-{seq}")
