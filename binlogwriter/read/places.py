"""Where the fast readers find fields, derived from the construct declarations (nothing declared
twice, docs/architecture.md): the fixed post-headers of MySQL GTID / ANONYMOUS_GTID (format.md
§8), MariaDB GTID (mariadb.md) and rows events (format.md §13), and the widths of the GTID's
flagged fields after them.

Offsets and widths come from the same walk that gives the batch writer its numpy dtypes
(:func:`binlogwriter.batch.dtypes.fixed_dtype`: each fixed-width field at the offset its
predecessors' widths give); the readers unpack them with one :class:`struct.Struct` built from
that dtype. ``tests/read/test_places.py`` checks the derivation against construct on the real and on
mutated layouts; the readers themselves are property-tested equal to the declarative path.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

import construct as cs
import numpy as np

from binlogwriter.batch.dtypes import fixed_dtype
from binlogwriter.events.table import EVENTS
from binlogwriter.format import ANONYMOUS_GTID_LOG_EVENT, GTID_LOG_EVENT
from binlogwriter.layouts import gtid as _gtid
from binlogwriter.layouts import mariadb as _mariadb
from binlogwriter.layouts import query as _query
from binlogwriter.layouts.header import HEADER_SIZE
from binlogwriter.layouts.rows import rows_fields

__all__ = ["GtidPlaces", "gtid_places", "MYSQL_GTID", "MariadbGtidPlaces", "mariadb_gtid_places",
           "MARIADB_GTID", "MARIADB_GTID_POST", "RowsPlaces", "rows_places", "rows_places_of", "dtype_struct", "fixed_places", "QUERY_POST"]


def unwrap(con: cs.Construct) -> cs.Construct:
    """The value construct under names, optional-trailing wrappers and rebuilds."""
    while isinstance(con, cs.Renamed | cs.Rebuild) or type(con).__name__ == "_IfMore":
        con = con.subcon
    return con


def _named(fields: list) -> dict[str, cs.Construct]:
    return {f.name: unwrap(f) for f in fields if getattr(f, "name", None)}


def _fixed(fields: list) -> np.dtype:
    """:func:`fixed_dtype` of ``fields`` seen through :func:`_unwrap` (a rebuilt length is a
    fixed-width field like any other); ValueError when one is not fixed-width."""
    dt = fixed_dtype([f.name / unwrap(f) for f in fields])
    if dt is None:
        raise ValueError(f"not a fixed-width post-header: {[f.name for f in fields]}")
    return dt


_STRUCT_CODES = {("i", 1): "b", ("u", 1): "B", ("i", 2): "h", ("u", 2): "H", ("i", 4): "i", ("u", 4): "I",
                 ("i", 8): "q", ("u", 8): "Q", ("f", 4): "f", ("f", 8): "d"}


def dtype_struct(dt: np.dtype) -> struct.Struct:
    """One :class:`struct.Struct` unpacking the fields of a packed structured dtype in order
    (little-endian; raw ``V`` fields as bytes)."""
    codes = []
    for name in dt.names:
        f = dt.fields[name][0]
        codes.append(f"{f.itemsize}s" if f.kind == "V" else _STRUCT_CODES[f.kind, f.itemsize])
    s = struct.Struct("<" + "".join(codes))
    assert s.size == dt.itemsize
    return s


def fixed_places(fields: list) -> dict[str, tuple[int, int]]:
    """name -> (offset, width) of consecutive fixed-width fields, and ``""`` -> (0, total)."""
    dt = _fixed(fields)
    out = {name: (dt.fields[name][1], dt.fields[name][0].itemsize) for name in dt.names}
    out[""] = (0, dt.itemsize)
    return out


QUERY_POST = fixed_places(_query.QUERY_POST_HEADER)
"""QUERY_EVENT post-header fields (format.md §9): offsets within the body."""


class GtidPlaces(NamedTuple):
    """GTID / ANONYMOUS_GTID 8.0 (format.md §8), offsets from the event's first byte."""

    post: int
    """Post-header bytes (the FDE must declare exactly this)."""
    names: tuple[str, ...]
    """Post-header field names, in the order :attr:`fixed` unpacks them."""
    fixed: struct.Struct
    """The whole post-header, unpacked at :data:`~binlogwriter.layouts.header.HEADER_SIZE`."""
    sid: int
    sid_size: int
    gno: int
    gno_size: int
    ts: int
    """The immediate commit timestamp (its top bit: an original one follows)."""
    ts_size: int
    sv_size: int
    """Server version width (after the packed transaction length)."""
    ticket_size: int


def gtid_places(fields: list, n_post: int) -> GtidPlaces:
    """:class:`GtidPlaces` of a GTID layout whose first ``n_post`` fields are the post-header."""
    dt = _fixed(fields[:n_post])
    named = _named(fields)
    sid_dt, sid_at = dt.fields["sid"]
    gno_dt, gno_at = dt.fields["gno"]
    return GtidPlaces(
        post=dt.itemsize, names=dt.names, fixed=dtype_struct(dt), sid=HEADER_SIZE + sid_at, sid_size=sid_dt.itemsize,
        gno=HEADER_SIZE + gno_at, gno_size=gno_dt.itemsize, ts=HEADER_SIZE + dt.itemsize,
        ts_size=named["commit_timestamps"].size, sv_size=named["server_versions"].size,
        ticket_size=named["commit_group_ticket"].sizeof())


_GTID, _ANONYMOUS = EVENTS[GTID_LOG_EVENT], EVENTS[ANONYMOUS_GTID_LOG_EVENT]
MYSQL_GTID = gtid_places(_gtid.GTID_FIELDS, _GTID.n_post)
assert _ANONYMOUS.fields is _GTID.fields and _ANONYMOUS.n_post == _GTID.n_post


class MariadbGtidPlaces(NamedTuple):
    """MariaDB GTID_EVENT (mariadb.md): its fixed leading fields and the commit id after them."""

    names: tuple[str, ...]
    fixed: struct.Struct
    """seq_no, domain_id, flags2, unpacked at :data:`~binlogwriter.layouts.header.HEADER_SIZE`."""
    seq_no: int
    seq_no_size: int
    domain_id: int
    domain_id_size: int
    flags2: int
    commit_id: int
    """Where the commit id is when flags2 has FL_GROUP_COMMIT_ID (then the next field)."""
    commit_id_size: int


def mariadb_gtid_places(fields: list) -> MariadbGtidPlaces:
    """:class:`MariadbGtidPlaces` of a MariaDB GTID layout: its leading fixed-width fields up to
    the first conditional one (the commit id)."""
    n = next(i for i, f in enumerate(fields) if isinstance(unwrap(f), cs.IfThenElse))
    dt = _fixed(fields[:n])
    cid = unwrap(fields[n])
    return MariadbGtidPlaces(
        names=dt.names, fixed=dtype_struct(dt),
        seq_no=HEADER_SIZE + dt.fields["seq_no"][1], seq_no_size=dt.fields["seq_no"][0].itemsize,
        domain_id=HEADER_SIZE + dt.fields["domain_id"][1], domain_id_size=dt.fields["domain_id"][0].itemsize,
        flags2=HEADER_SIZE + dt.fields["flags2"][1], commit_id=HEADER_SIZE + dt.itemsize,
        commit_id_size=cid.thensubcon.sizeof())


MARIADB_GTID = mariadb_gtid_places(_mariadb.GTID_FIELDS)
MARIADB_GTID_POST = _mariadb.GTID_PADDED_SIZE
"""The post-header length a MariaDB FDE declares for GTID_EVENT: the padded body size."""


class RowsPlaces(NamedTuple):
    """A rows event's fixed post-header (format.md §13), offsets within the body."""

    table_id_size: int
    flags: int
    """Offset of ``rows_flags``."""
    var_header: int | None
    """Offset of the v2 ``var_header_len`` (it counts itself), None for v1."""
    var_header_size: int
    post: int
    """Bytes before the extra info (v2) or the column count (v1)."""


def rows_places(fields: list, n_post: int) -> RowsPlaces:
    """:class:`RowsPlaces` of a rows layout whose first ``n_post`` fields are the post-header."""
    dt = _fixed(fields[:n_post])
    vh = dt.fields.get("_var_header_len")
    return RowsPlaces(table_id_size=dt.fields["table_id"][0].itemsize, flags=dt.fields["rows_flags"][1],
                      var_header=None if vh is None else vh[1], var_header_size=0 if vh is None else vh[0].itemsize,
                      post=dt.itemsize)


_ROWS_PLACES: dict[tuple[int, int], RowsPlaces] = {}


def rows_places_of(type_code: int, table_id_size: int) -> RowsPlaces:
    """:class:`RowsPlaces` of a registered rows type (cached)."""
    key = (type_code, table_id_size)
    hit = _ROWS_PLACES.get(key)
    if hit is None:
        hit = _ROWS_PLACES[key] = rows_places(rows_fields(type_code, table_id_size), EVENTS[type_code].n_post)
    return hit
