"""GTIDs and GTID sets: the one home of their text forms and set arithmetic.

A MySQL GTID is ``uuid:gno`` or, tagged (8.3+), ``uuid:tag:gno``; a MariaDB GTID is
``domain-server-seq_no`` (docs/format.md §7, docs/edge-cases.md 18). Every place that shows a
GTID (event properties, listings, SHOW BINLOG EVENTS, truth, filters) builds it with
:func:`mysql_gtid_text` / :func:`mariadb_gtid_text`.

Sets: MySQL's ``uuid[:tag]:intervals`` (text ``uuid:1-5:tag:7,…``; binary as
``Gtid_set::encode``, the layout PREVIOUS_GTIDS uses, tagged or not) is :class:`MysqlGtidSet`;
MariaDB's connect state, one ``domain-server-seq_no`` per domain (``0-1-100,1-2-7``), is
:class:`MariadbState`. The writer keeps its executed GTIDs in them (binlogwriter/write/ids.py: each
new file's PREVIOUS_GTIDS / GTID_LIST is :meth:`MysqlGtidSet.layout` / :meth:`MariadbState.layout`),
``serve`` reads a replica's start with them, ``inspect``'s ``--include-gtids`` /
``--exclude-gtids`` filter with them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

import construct as cs

from binlogwriter.errors import BinlogError
from binlogwriter.layouts.control import PREVIOUS_GTIDS_FIELDS
from binlogwriter.layouts.gtid import tsids_text
from binlogwriter.layouts.primitives import uuid_text

__all__ = ["MysqlGtidSet", "MariadbState", "GtidParseError", "mysql_gtid_text", "mariadb_gtid_text",
           "parse_mysql_gtid", "parse_mariadb_gtid", "normal_uuid", "is_uuid"]

_SET_LAYOUT = cs.Struct(*PREVIOUS_GTIDS_FIELDS)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_TAG = re.compile(r"^[a-z_][a-z0-9_]{0,31}$", re.IGNORECASE)
_MARIADB_GTID = re.compile(r"(\d+)-(\d+)-(\d+)")


class GtidParseError(BinlogError):
    """A GTID set or MariaDB GTID position that cannot be read."""


def normal_uuid(u: str) -> str:
    """A server UUID with or without dashes, in its canonical text (lower case, 8-4-4-4-12)."""
    h = u.replace("-", "").lower()
    try:
        return uuid_text(bytes.fromhex(h))
    except ValueError:  # not hex: a text no GTID set holds (GTID_SUBSET / filters look it up)
        return h


def is_uuid(text: str) -> bool:
    """Whether ``text`` is a server UUID (32 hex digits, dashes optional)."""
    return _UUID.match(text) is not None


def mysql_gtid_text(sid: str, gno: int, tag: str = "") -> str:
    """``uuid:gno``, or ``uuid:tag:gno`` for a tagged GTID (MySQL 8.3+ ``Gtid::to_string``)."""
    return f"{sid}:{tag}:{gno}" if tag else f"{sid}:{gno}"


def mariadb_gtid_text(domain_id: int, server_id: int, seq_no: int) -> str:
    """``domain-server-seq_no`` (MariaDB ``rpl_gtid`` text, as ``@@gtid_binlog_pos`` shows it)."""
    return f"{domain_id}-{server_id}-{seq_no}"


def parse_mariadb_gtid(text: str) -> tuple[int, int, int] | None:
    """``(domain, server, seq_no)`` of a ``domain-server-seq_no`` text (None if it is not one)."""
    m = _MARIADB_GTID.fullmatch(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def parse_mysql_gtid(text: str) -> tuple[str, str, int]:
    """``(uuid, tag, gno)`` of a ``uuid:gno`` / ``uuid:tag:gno`` text: the uuid in its canonical
    form, the tag in lower case ("" untagged), as sets hold them (ValueError if the GNO is not
    a number)."""
    parts = text.split(":")
    return normal_uuid(parts[0]), parts[1].lower() if len(parts) == 3 else "", int(parts[-1])


@dataclass
class MysqlGtidSet:
    """``{(uuid, tag): [[start, end_exclusive], …]}`` (sorted, merged)."""

    sids: dict[tuple[str, str], list[list[int]]] = field(default_factory=dict)

    @classmethod
    def from_binary(cls, data: bytes) -> MysqlGtidSet:
        try:
            parsed = _SET_LAYOUT.parse(data)
        except cs.ConstructError as exc:
            raise GtidParseError(f"malformed binary GTID set ({len(data)} bytes): {exc}") from None
        return cls.from_layout(parsed.gtid_set)

    @classmethod
    def from_layout(cls, value) -> MysqlGtidSet:
        """From a decoded PREVIOUS_GTIDS ``gtid_set`` value."""
        out = cls()
        for uuid, tag, ivs in value["sids"]:
            for a, b in ivs:
                out.add_interval(str(uuid), tag, a, b)
        return out

    @classmethod
    def from_text(cls, text: str) -> MysqlGtidSet:
        out = cls()
        for part in filter(None, (p.strip() for p in text.replace("\n", "").split(","))):
            fields = part.split(":")
            if not _UUID.match(fields[0]):
                raise GtidParseError(f"bad GTID set element {part!r}: {fields[0]!r} is not a UUID")
            uuid, tag = normal_uuid(fields[0]), ""
            for f in fields[1:]:
                m = re.fullmatch(r"(\d+)(?:-(\d+))?", f)
                if m:
                    a = int(m.group(1))
                    b = int(m.group(2) or a)
                    if a < 1 or b < a:
                        raise GtidParseError(f"bad GTID interval {f!r} in {part!r}")
                    out.add_interval(uuid, tag, a, b + 1)
                elif _TAG.match(f):
                    tag = f.lower()
                else:
                    raise GtidParseError(f"bad GTID set element {part!r}")
        return out

    def add_interval(self, uuid: str, tag: str, start: int, end: int) -> None:
        """GNOs ``start .. end-1`` into the set, merged with the intervals they overlap or
        touch (``Gtid_set::add_gno_interval``); an empty interval adds nothing. Appending
        past the last interval, the writer's case, takes no search."""
        if end <= start:
            return
        ivs = self.sids.setdefault((uuid, tag), [])
        if not ivs or start > ivs[-1][1]:
            ivs.append([start, end])
        elif start >= ivs[-1][0]:
            ivs[-1][1] = max(ivs[-1][1], end)
        else:
            lo = bisect_left(ivs, start, key=lambda iv: iv[1])  # the first interval ending at or after start
            hi = bisect_right(ivs, end, key=lambda iv: iv[0])  # past the last one starting at or before end
            if lo < hi:
                start, end = min(start, ivs[lo][0]), max(end, ivs[hi - 1][1])
            ivs[lo:hi] = [[start, end]]

    def add(self, uuid: str, tag: str, gno: int) -> None:
        self.add_interval(uuid, tag, gno, gno + 1)

    def contains(self, uuid: str, tag: str, gno: int) -> bool:
        ivs = self.sids.get((uuid, tag), ())
        i = bisect_right(ivs, gno, key=lambda iv: iv[0])  # past the last interval starting at or before gno
        return i > 0 and gno < ivs[i - 1][1]

    def issubset(self, other: MysqlGtidSet) -> bool:
        """Whether every GTID of this set is in ``other`` (MySQL's ``GTID_SUBSET``)."""
        return not self.difference(other)

    def difference(self, other: MysqlGtidSet) -> MysqlGtidSet:
        """The GTIDs of this set that are not in ``other`` (MySQL's ``GTID_SUBTRACT``): each
        interval walks ``other``'s sorted, merged intervals of its (uuid, tag) once."""
        out = MysqlGtidSet()
        for key, ivs in self.sids.items():
            theirs = other.sids.get(key, [])
            for start, end in ivs:
                at = start
                for x, y in theirs:
                    if y <= at or x >= end:
                        continue
                    if x > at:
                        out.add_interval(key[0], key[1], at, x)
                    at = max(at, y)
                    if at >= end:
                        break
                if at < end:
                    out.add_interval(key[0], key[1], at, end)
        return out

    def copy(self) -> MysqlGtidSet:
        return MysqlGtidSet({k: [list(iv) for iv in v] for k, v in self.sids.items()})

    def entries(self) -> list[tuple[str, str, tuple[tuple[int, int], ...]]]:
        """``(uuid, tag, ((start, end_exclusive), …))`` in ``Gtid_set``'s order (uuids, then
        tags): a copy, as the text and the binary form list them."""
        return [(uuid, tag, tuple((a, b) for a, b in ivs)) for (uuid, tag), ivs in sorted(self.sids.items())]

    def layout(self) -> dict:
        """The PREVIOUS_GTIDS ``gtid_set`` value (:meth:`from_layout` reads it back): the
        tagged form (8.3+) only when a tag is present, as MySQL writes it (format.md §7)."""
        return {"tagged": any(tag for _, tag in self.sids), "sids": self.entries()}

    def text(self) -> str:
        """``uuid:1-5:tag:7,\nuuid2:3`` (``@@gtid_executed``'s form: uuids, then tags, in order)."""
        return tsids_text(self.entries(), ",\n")

    def __bool__(self) -> bool:
        return bool(self.sids)


@dataclass
class MariadbState:
    """One GTID per domain: ``{domain_id: (server_id, seq_no)}``."""

    domains: dict[int, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def from_text(cls, text: str) -> MariadbState:
        out = cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            fields = parse_mariadb_gtid(part)
            if fields is None:
                raise GtidParseError(f"bad MariaDB GTID {part!r} (expected domain-server-seq_no)")
            d, s, n = fields
            if d in out.domains:
                raise GtidParseError(f"MariaDB GTID position names domain {d} twice")
            out.domains[d] = (s, n)
        return out

    def update(self, domain: int, server: int, seq_no: int) -> None:
        self.domains[domain] = (server, seq_no)

    def layout(self) -> list[dict[str, int]]:
        """The GTID_LIST ``gtids`` value: one ``{domain_id, server_id, seq_no}`` per domain, in
        domain order (mariadb.md "GTID_LIST")."""
        return [{"domain_id": d, "server_id": s, "seq_no": n} for d, (s, n) in sorted(self.domains.items())]

    def text(self) -> str:
        return ",".join(mariadb_gtid_text(d, s, n) for d, (s, n) in sorted(self.domains.items()))

    def copy(self) -> MariadbState:
        return MariadbState(dict(self.domains))
