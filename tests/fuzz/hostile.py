"""Aimed mutations: whole-unit operators built for the classes of bug a byte mutator rarely
reaches (issue #27), each leaving the framing for :func:`tests.fuzz.mutate.mutant` to fix
(event_length, log_pos, CRC32) so the mutant reaches the decoders and the consumers behind
them — ``changes()``, the export, the listing:

* :func:`u_names`: a Table_map's schema or table name, or a Query event's default database,
  replaced by a hostile string (absolute paths, ``..`` chains, separators, NUL, 0xFF,
  reserved device names, 255 bytes). Names are u8-length + bytes + NUL (format.md §12,
  Query: §9), so only the length byte changes with them;
* :func:`u_gtid_body`: a GTID body (MySQL 33/34, MariaDB 162) cut to fewer bytes than its
  post-header (the 5-byte MariaDB body) or extended past it;
* :func:`u_gno`: GNO / MariaDB seq_no and domain_id near the signed and unsigned 64-bit
  limits (2^63 - 1, 2^63, 2^64 - 1; the server's rpl_gno is a signed 64-bit integer);
* :func:`u_metadata`: one column of a Table_map given extreme type metadata (DECIMAL
  precision above 65, e.g. the DECIMAL(238,224) of the issue; fsp 7 and 255; BIT widths,
  BLOB length bytes and string lengths out of range); the metadata block's packed length
  is rewritten (format.md §12);
* :func:`u_recompress`: a MariaDB compressed rows / query event (zlib) or a
  TRANSACTION_PAYLOAD (zstd) compressed again, same plain bytes, at another level or
  window: valid streams that are not what the server's default writes;
* :func:`u_drop_gtid`: the transaction repeated without its GTID (an anonymous GTID first
  made a real one), so the copy's rows have no GTID of their own.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable

import zstandard

from binlogwriter.layouts.primitives import encode_packed_int as packed_int
from binlogwriter.values.families import META_SIZE

ESCAPE_ROOT = "/tmp/binlogwriter-fuzz-escape"
"""Where the absolute-path names point: the export target checks it stays absent."""

HOSTILE_NAMES: tuple[bytes, ...] = (
    ESCAPE_ROOT.encode() + b"/db",
    ESCAPE_ROOT.encode(),
    b"/",
    b"..",
    b".",
    b"../../y",
    b"../../../../y",
    b"a/../../b",
    b"..\\..\\y",
    b"a/b",
    b"d\x00b",
    b"\x00",
    b"t\xff",
    b"\xff\xfe",
    b"",
    b"CON",
    b"NUL",
    b"COM1",
    b"aux.txt",
    b"x" * 255,
    b"\xc3\xa9t\xc3\xa9",
    b"a\nb",
    b"*?<>|:",
)
"""Names no server writes for a real table, or that are paths to a file system."""

GTID_TYPES = frozenset((33, 34, 162))
_COMPRESSED_ROWS = frozenset((166, 167, 168, 169, 170, 171))
_V2 = frozenset((30, 31, 32, 39, 169, 170, 171))
BOUNDARY64 = (
    (1 << 63) - 1,
    1 << 63,
    (1 << 63) + 1,
    (1 << 64) - 1,
    (1 << 64) - 2,
    0,
    1,
    (1 << 32) - 1,
    1 << 32,
)


def _read_packed(b: bytes | bytearray, p: int) -> tuple[int, int] | None:
    """(value, next offset) of the packed integer at ``p`` (format.md §2), None if cut."""
    if p >= len(b):
        return None
    c = b[p]
    n = {0xFC: 2, 0xFD: 3, 0xFE: 8}.get(c, 0)
    if c == 0xFB or c == 0xFF or p + 1 + n > len(b):
        return None
    return (c, p + 1) if n == 0 else (int.from_bytes(b[p + 1 : p + 1 + n], "little"), p + 1 + n)


def _end(ev: bytearray, crc: bool) -> int:
    return len(ev) - (4 if crc else 0)


def _names_at(ev: bytearray) -> list[int]:
    """Offsets of the name length bytes of a Table_map (schema, table) or a Query (db)."""
    t = ev[4]
    if t == 19 and len(ev) > 19 + 8:
        p = 19 + 8
        out = [p]
        q = p + 1 + ev[p] + 1
        if q < len(ev):
            out.append(q)
        return out
    if t in (2, 165) and len(ev) >= 19 + 13:
        return [19 + 8]  # the db length byte; the name itself follows the status variables
    return []


def u_names(r: random.Random, evs: list[bytearray], crc: bool) -> bool:
    cands = [i for i, e in enumerate(evs) if _names_at(e)]
    if not cands:
        return False
    ev = evs[r.choice(cands)]
    new = r.choice(HOSTILE_NAMES)
    if ev[4] == 19:
        p = r.choice(_names_at(ev))
        ev[p : p + 1 + ev[p]] = bytes((len(new),)) + new
        return True
    sv = int.from_bytes(ev[19 + 11 : 19 + 13], "little")
    at = 19 + 13 + sv
    old = ev[19 + 8]
    if at + old > _end(ev, crc):
        return False
    ev[at : at + old] = new
    ev[19 + 8] = len(new)
    return True


def _pick(r: random.Random, evs: list[bytearray], types: frozenset[int]) -> bytearray | None:
    cands = [e for e in evs if e[4] in types]
    return r.choice(cands) if cands else None


def u_gtid_body(r: random.Random, evs: list[bytearray], crc: bool) -> bool:
    ev = _pick(r, evs, GTID_TYPES)
    if ev is None:
        return False
    end = _end(ev, crc)
    body = end - 19
    if r.random() < 0.7:
        keep = r.choice((5, 0, 1, 4, 8, 12, 13, 17, 18, 24, 41, body - 1, body // 2))
        keep = max(0, min(keep, body - 1))
        del ev[19 + keep : end]
    else:
        ev[end:end] = r.choice((b"\x00", b"\x00" * 2, b"\xff" * 4, bytes(range(8)), b"\x01" * 16))
    return True


def u_gno(r: random.Random, evs: list[bytearray], crc: bool) -> bool:
    ev = _pick(r, evs, GTID_TYPES)
    if ev is None:
        return False
    v = r.choice(BOUNDARY64)
    if ev[4] == 162:  # seq_no u64, domain_id u32 (mariadb.md)
        if len(ev) >= 19 + 12 and r.random() < 0.3:
            ev[27:31] = (v & 0xFFFFFFFF).to_bytes(4, "little")
        elif len(ev) >= 27:
            ev[19:27] = v.to_bytes(8, "little")
        return True
    if len(ev) < 19 + 25:  # flags 1, sid 16, gno 8 (format.md §8)
        return False
    if ev[4] == 34 and r.random() < 0.7:  # give an anonymous GTID a sid, so it names a transaction
        ev[4] = 33
        ev[20:36] = bytes(range(1, 17))
    ev[36:44] = v.to_bytes(8, "little")
    return True


def _columns(ev: bytearray, crc: bool) -> tuple[int, int, int, int, int] | None:
    """(types offset, column count, metadata-length offset, metadata offset, metadata end)
    of a Table_map (format.md §12), None if its bytes do not hold them."""
    if ev[4] != 19:
        return None
    at = _names_at(ev)
    if len(at) < 2:
        return None
    p = at[1] + 1 + ev[at[1]] + 1
    cc = _read_packed(ev, p)
    if cc is None or cc[0] == 0 or cc[1] + cc[0] > len(ev):
        return None
    n, types = cc
    ml = _read_packed(ev, types + n)
    if ml is None or ml[1] + ml[0] > _end(ev, crc):
        return None
    return types, n, types + n, ml[1], ml[1] + ml[0]


EXTREME: tuple[tuple[int, bytes], ...] = (
    (246, bytes((238, 224))),
    (246, bytes((66, 30))),
    (246, bytes((255, 255))),
    (246, bytes((0, 0))),
    (246, bytes((65, 66))),
    (246, bytes((81, 31))),
    (18, b"\x07"),
    (17, b"\xff"),
    (19, b"\x07"),
    (16, b"\xff\xff"),
    (16, b"\x00\x09"),
    (252, b"\x00"),
    (252, b"\x05"),
    (252, b"\xff"),
    (15, b"\x00\x00"),
    (15, b"\xff\xff"),
    (254, b"\xfe\xff"),
    (254, b"\xf7\x00"),
    (254, b"\xf8\xff"),
    (4, b"\xff"),
    (5, b"\x00"),
    (245, b"\x09"),
    (255, b"\x00"),
)
"""(type, metadata) pairs no server writes: DECIMAL precision above 65 or scale above 30 or
the precision, fsp above 6, BIT widths beyond 64 bits, BLOB length bytes other than 1–4,
0-byte VARCHAR/CHAR, ENUM/SET storage of 255 bytes, FLOAT/DOUBLE sizes, JSON length bytes."""


def u_metadata(r: random.Random, evs: list[bytearray], crc: bool) -> bool:
    cands = [(i, c) for i, e in enumerate(evs) if (c := _columns(e, crc)) is not None]
    if not cands:
        return False
    i, (types, n, ml_at, meta, meta_end) = r.choice(cands)
    ev = evs[i]
    pieces: list[bytes] = []
    p = meta
    for k in range(n):
        size = META_SIZE.get(ev[types + k])
        if size is None or p + size > meta_end:
            return False
        pieces.append(bytes(ev[p : p + size]))
        p += size
    k = r.randrange(n)
    want = [j for j in range(n) if ev[types + j] == 246]
    if want and r.random() < 0.5:  # keep the column's type: change only its precision / scale
        k = r.choice(want)
    t, m = r.choice(EXTREME) if ev[types + k] != 246 or r.random() < 0.3 else r.choice(EXTREME[:6])
    ev[types + k] = t
    pieces[k] = m
    block = b"".join(pieces)
    ev[ml_at:meta_end] = packed_int(len(block)) + block
    return True


def blob_at(ev: bytearray, crc: bool) -> int | None:
    """Offset of the compressed blob of a MariaDB compressed rows event or QUERY_COMPRESSED."""
    t = ev[4]
    if t == 165:
        if len(ev) < 19 + 13:
            return None
        return 19 + 13 + int.from_bytes(ev[30:32], "little") + ev[27] + 1
    if t not in _COMPRESSED_ROWS:
        return None
    p = 19 + 8
    if t in _V2:
        if len(ev) < p + 2:
            return None
        p += int.from_bytes(ev[p : p + 2], "little")
    if p >= len(ev) or ev[p] >= 251:
        return None
    nb = (ev[p] + 7) >> 3
    return p + 1 + nb * (2 if t in (167, 170) else 1)


def u_recompress(r: random.Random, evs: list[bytearray], crc: bool) -> bool:
    cands = [i for i, e in enumerate(evs) if e[4] == 40 or blob_at(e, crc) is not None]
    if not cands:
        return False
    ev = evs[r.choice(cands)]
    end = _end(ev, crc)
    if ev[4] == 40:
        p = 19
        while p + 1 < end and ev[p] != 0:
            p += 2 + ev[p + 1]
        p += 1
        try:
            plain = zstandard.ZstdDecompressor().decompressobj().decompress(bytes(ev[p:end]))
        except zstandard.ZstdError:
            return False
        level = r.choice((-5, 1, 3, 9, 19))
        comp = zstandard.ZstdCompressor(
            level=level, write_content_size=r.random() < 0.5, write_checksum=r.random() < 0.3
        ).compress(plain)
        ev[p:end] = comp  # the header's sizes: the uncompressed size is unchanged
        return True
    q = blob_at(ev, crc)
    if q is None or q >= end or not ev[q] & 0x80 or not 1 <= ev[q] & 7 <= 4:
        return False
    n = ev[q] & 7
    try:
        plain = zlib.decompress(bytes(ev[q + 1 + n : end]))
    except zlib.error:
        return False
    level = r.choice((0, 1, 2, 5, 8, 9))
    c = zlib.compressobj(
        level,
        zlib.DEFLATED,
        r.choice((15, 15, 9, 12)),
        r.choice((8, 9, 1)),
        r.choice((zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE)),
    )
    ev[q + 1 + n : end] = c.compress(plain) + c.flush()
    return True


def u_drop_gtid(r: random.Random, evs: list[bytearray], crc: bool) -> bool:
    g = next((i for i, e in enumerate(evs) if e[4] in GTID_TYPES), None)
    if g is None or len(evs) - g < 2:
        return False
    gtid = evs[g]
    if gtid[4] == 34 and len(gtid) >= 44:  # anonymous: its copy would have no GTID either
        gtid[4] = 33
        gtid[20:36] = bytes(range(1, 17))
        gtid[36:44] = (7).to_bytes(8, "little")
    copy = [bytearray(e) for e in evs[g + 1 :]]
    evs.extend(copy)
    return True


UNIT_OPS: list[tuple[Callable[[random.Random, list[bytearray], bool], bool], int]] = [
    (u_names, 4),
    (u_gtid_body, 2),
    (u_gno, 2),
    (u_metadata, 3),
    (u_recompress, 2),
    (u_drop_gtid, 2),
]
_UNIT_OPS = [op for op, w in UNIT_OPS for _ in range(w)]


def aimed(r: random.Random, evs: list[bytearray], crc: bool) -> bool:
    """Apply one or two aimed operators to the unit's events; False if none applied."""
    done = False
    for _ in range(r.choice((1, 1, 2))):
        for _try in range(4):
            if r.choice(_UNIT_OPS)(r, evs, crc):
                done = True
                break
    return done
