"""The mutator: seeded, structure-aware mutations of small binlogs, CRC32 fixed after.

One mutant is a pure function of ``(seed, index)`` (:func:`mutant`): a run can be replayed
from its seed, and a finding from its index. A mutant starts from a seed unit (FDE + a
transaction), applies 1–4 mutations to one or more events, then — most of the time — sets
each event's ``event_length`` to its real size and recomputes its CRC32 footer, so the
mutation reaches the body decoders instead of stopping at the checksum.

Mutations (``OPS``):

* bytes: flip bits, overwrite with boundary values (0x00, 0x7f, 0x80, 0xfb–0xff), write a
  boundary 2/4/8-byte integer, insert random bytes, delete or duplicate a range, truncate;
* fields: nudge a length-like byte by ±1..8, change the type code (a body decoded as
  another event type), zero or fill the rows events' column bitmaps, rewrite a packed
  integer (column count, width) with 0, 1, 250, 0xFC/0xFD/0xFE forms, rewrite the
  TRANSACTION_PAYLOAD header fields (uncompressed size up to 2^64-1, payload size), MariaDB
  compressed-blob headers (declared size up to 2^32-1);
* inside compression: decompress a TRANSACTION_PAYLOAD or MariaDB compressed rows/query
  blob, mutate the plain bytes (inner events too), compress again;
* structure: splice an event of another seed in, duplicate, drop or swap events;
* framing (no fix-up): a bad ``event_length`` (0, 18, huge, 0xFFFFFFFF) or a cut file.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable, Sequence

import zstandard

from binlogwriter.layouts.primitives import encode_packed_int as packed_int
from tests.fuzz.hostile import aimed
from tests.fuzz.seeds import Unit, build_file, fix_event

INTERESTING8 = (0, 1, 0x7F, 0x80, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF)
INTERESTING32 = (0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1 << 30, (1 << 30) + 1, 0x10000, 0xFFFF)
INTERESTING64 = (0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 40, 1 << 28)
ROWS = frozenset((23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171))
COMPRESSED_ROWS = frozenset((166, 167, 168, 169, 170, 171))
_INSIDE = COMPRESSED_ROWS | {40, 165}
TYPES = (2, 3, 4, 5, 13, 14, 15, 16, 19, 23, 24, 25, 26, 27, 29, 30, 31, 32, 33, 34, 35, 38, 39,
         40, 41, 42, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171)


def _body_range(ev: bytes, crc: bool) -> tuple[int, int]:
    end = len(ev) - (4 if crc else 0)
    return 19, max(19, end)


def _pos(r: random.Random, lo: int, hi: int) -> int:
    return r.randrange(lo, hi) if hi > lo else lo


def m_flip(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    for _ in range(r.randint(1, 4)):
        if hi > lo:
            ev[_pos(r, lo, hi)] ^= 1 << r.randrange(8)


def m_byte(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    if hi > lo:
        ev[_pos(r, lo, hi)] = r.choice(INTERESTING8)


def m_int(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    size = r.choice((2, 4, 8))
    if hi - lo < size:
        return
    p = _pos(r, lo, hi - size + 1)
    v = r.choice(INTERESTING64 if size == 8 else INTERESTING32) & ((1 << (8 * size)) - 1)
    ev[p:p + size] = v.to_bytes(size, "little")


def m_nudge(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    if hi > lo:
        p = _pos(r, lo, min(hi, lo + 64) if r.random() < 0.6 else hi)
        ev[p] = (ev[p] + r.choice((-8, -2, -1, 1, 2, 8))) & 0xFF


def m_insert(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    p = _pos(r, lo, hi + 1)
    ev[p:p] = bytes(r.getrandbits(8) for _ in range(r.choice((1, 1, 2, 4, 8, 33))))


def m_delete(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    if hi > lo:
        p = _pos(r, lo, hi)
        del ev[p:p + r.choice((1, 1, 2, 4, 8, 64))]


def m_dup(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    if hi > lo:
        p = _pos(r, lo, hi)
        n = r.choice((1, 4, 16, 128))
        ev[p:p] = ev[p:min(hi, p + n)]


def m_truncate(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    if hi > lo:
        del ev[_pos(r, lo, hi):hi]


def m_type(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    ev[4] = r.choice(TYPES)


def _packed(r: random.Random) -> bytes:
    return r.choice((b"\x00", b"\x01", b"\xfa", b"\xfc\xff\xff", b"\xfd\xff\xff\xff", b"\xfc\x00\x01",
                     b"\xfe" + (1 << 40).to_bytes(8, "little"), b"\xfe" + b"\xff" * 8, b"\xfb", b"\xff"))


def _rows_width_at(ev: bytearray) -> int | None:
    """Offset of a rows event's width (v2 post-header 10 bytes, v1 8; 6-byte table ids)."""
    t = ev[4]
    p = 19 + 8
    if t in (30, 31, 32, 39, 169, 170, 171):
        if len(ev) < p + 2:
            return None
        p += int.from_bytes(ev[p:p + 2], "little")
    return p if p < len(ev) else None


def m_bitmap(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    """Zero (or fill, or flip) the column bitmaps of a rows event; or rewrite its width."""
    p = _rows_width_at(ev) if ev[4] in ROWS else None
    if p is None:
        return m_flip(r, ev, lo, hi)
    b = ev[p]
    if b >= 251:
        return m_flip(r, ev, lo, hi)
    nb = (b + 7) >> 3
    nmaps = 2 if ev[4] in (24, 31, 39, 167, 170) else 1
    choice = r.random()
    if choice < 0.15:
        ev[p:p + 1] = _packed(r)
        return None
    for k in range(nmaps):
        if choice < 0.7 or r.random() < 0.5:
            fill = 0 if choice < 0.55 else 0xFF
            ev[p + 1 + k * nb:p + 1 + (k + 1) * nb] = bytes((fill,)) * nb
        else:
            q = p + 1 + k * nb + r.randrange(max(1, nb))
            if q < hi:
                ev[q] ^= 1 << r.randrange(8)
    return None


def m_packed(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    if hi > lo:
        p = _pos(r, lo, hi)
        ev[p:p + 1] = _packed(r)


def m_payload_header(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    """TRANSACTION_PAYLOAD header TLVs: (type, length, value) packed integers; rewrite the
    uncompressed size or the payload size, or drop the END marker."""
    if ev[4] != 40:
        return m_int(r, ev, lo, hi)
    p = lo
    fields = []
    while p + 1 < hi and ev[p] != 0:
        t = ev[p]
        ln = ev[p + 1]
        fields.append((t, p + 2, ln))
        p += 2 + ln
    if not fields:
        return m_int(r, ev, lo, hi)
    t, vp, ln = r.choice(fields)
    big = r.choice(((1 << 64) - 1, 1 << 40, 1 << 31, 1 << 28, 0, 1, 300))
    enc = packed_int(big)
    ev[vp - 1:vp + ln] = bytes((len(enc),)) + enc
    return None


def m_compressed_header(r: random.Random, ev: bytearray, lo: int, hi: int) -> None:
    """A MariaDB compressed blob header (0x80|n, size big-endian): declare a huge size."""
    p = _rows_width_at(ev) if ev[4] in COMPRESSED_ROWS else None
    if p is None or ev[p] >= 251:
        return m_int(r, ev, lo, hi)
    nb = (ev[p] + 7) >> 3
    q = p + 1 + nb * (2 if ev[4] in (167, 170) else 1)
    if q >= hi:
        return None
    n = r.choice((1, 2, 3, 4, 5, 0))
    size = r.choice((0, 1, 255, 1 << 28, (1 << 32) - 1, 1 << 24))
    size &= (1 << (8 * max(n, 1))) - 1
    ev[q:q + 1 + (ev[q] & 7)] = bytes((0x80 | n,)) + size.to_bytes(max(n, 1), "big")[:n]
    return None


OPS: list[tuple[Callable, int]] = [
    (m_flip, 6), (m_byte, 4), (m_int, 4), (m_nudge, 4), (m_insert, 2), (m_delete, 2), (m_dup, 1),
    (m_truncate, 1), (m_type, 2), (m_bitmap, 4), (m_packed, 2), (m_payload_header, 1),
    (m_compressed_header, 1),
]
_OPS = [op for op, w in OPS for _ in range(w)]
_GENERIC = [op for op in _OPS if op not in (m_type, m_bitmap, m_payload_header, m_compressed_header)]


def mutate_bytes(r: random.Random, ev: bytearray, lo: int, hi: int, *, event: bool = True) -> None:
    """One mutation of ``ev[lo:hi]`` (``event``: ``ev`` is a whole event, header included)."""
    ops = _OPS if event and len(ev) >= 19 else _GENERIC
    r.choice(ops)(r, ev, lo, min(hi, len(ev)))


# --------------------------------------------------------------------------- compression
def _mutate_plain(r: random.Random, plain: bytearray) -> None:
    """Mutate decompressed bytes: if they are inner events (a TRANSACTION_PAYLOAD), mutate
    one of them and keep the framing of the others right."""
    evs: list[bytearray] = []
    p = 0
    while p + 19 <= len(plain):
        n = int.from_bytes(plain[p + 9:p + 13], "little")
        if n < 19 or p + n > len(plain):
            break
        evs.append(bytearray(plain[p:p + n]))
        p += n
    if evs and p == len(plain):
        k = r.randrange(len(evs))
        for _ in range(r.randint(1, 3)):
            mutate_bytes(r, evs[k], 19, len(evs[k]))
        if r.random() < 0.9:
            struct.pack_into("<I", evs[k], 9, len(evs[k]))
        plain[:] = b"".join(evs)
    else:
        for _ in range(r.randint(1, 3)):
            mutate_bytes(r, plain, 0, len(plain), event=False)


def m_inside(r: random.Random, ev: bytearray, crc: bool) -> bool:
    """Mutate what a compressed event holds and compress again; False if it holds none."""
    lo, hi = _body_range(bytes(ev), crc)
    t = ev[4]
    if t == 40:
        p = lo
        fields = {}
        while p + 1 < hi and ev[p] != 0:
            fields[ev[p]] = (p, ev[p + 1])
            p += 2 + ev[p + 1]
        p += 1
        try:
            plain = bytearray(zstandard.ZstdDecompressor().decompressobj().decompress(bytes(ev[p:hi])))
        except zstandard.ZstdError:
            return False
        _mutate_plain(r, plain)
        comp = zstandard.ZstdCompressor(level=1, write_content_size=False).compress(bytes(plain))
        head = b""
        for code, value in ((2, 0), (3, len(plain)), (1, len(comp))):
            if code == 3 and r.random() < 0.1:
                value = r.choice((len(plain) + 1, max(0, len(plain) - 1), 1 << 40))
            enc = packed_int(value)
            head += bytes((code, len(enc))) + enc
        ev[lo:hi] = head + b"\x00" + comp
        return True
    if t in COMPRESSED_ROWS or t == 165:
        if t == 165:
            # QUERY_COMPRESSED: post-header 13 bytes, status vars, db, NUL, then the blob
            if hi - lo < 13:
                return False
            svlen = int.from_bytes(ev[lo + 11:lo + 13], "little")
            dblen = ev[lo + 8]
            q = lo + 13 + svlen + dblen + 1
        else:
            p = _rows_width_at(ev)
            if p is None or ev[p] >= 251:
                return False
            nb = (ev[p] + 7) >> 3
            q = p + 1 + nb * (2 if t in (167, 170) else 1)
        if q >= hi or not ev[q] & 0x80:
            return False
        n = ev[q] & 7
        try:
            plain = bytearray(zlib.decompress(bytes(ev[q + 1 + n:hi])))
        except zlib.error:
            return False
        _mutate_plain(r, plain)
        size = len(plain)
        if r.random() < 0.1:
            size = r.choice((size + 1, max(0, size - 1), (1 << 32) - 1))
        k = max(1, (size.bit_length() + 7) // 8)
        ev[q:hi] = bytes((0x80 | k,)) + size.to_bytes(k, "big") + zlib.compress(bytes(plain))
        return True
    return False


# --------------------------------------------------------------------------- a mutant
def mutant(units: Sequence[Unit], seed: int, index: int, *, focus: frozenset[int] | None = None,
           aim: float = 0.0) -> bytes:
    """The ``index``-th mutant of a run seeded ``seed``: a whole small binlog file.

    ``aim``: the share of mutants made by the aimed operators of :mod:`tests.fuzz.hostile`
    (hostile names, GTID bodies and numbers, extreme Table_map metadata, recompression, a
    GTID removed), with their framing fixed; 0 keeps a target's mutants those of earlier
    runs of the same seed."""
    r = random.Random(seed * 1_000_003 + index)
    u = units[r.randrange(len(units))]
    fde = bytearray(u.fde)
    evs = [bytearray(e) for e in u.events]
    crc = u.crc
    kind = r.random()
    if kind < 0.08 and len(units) > 1:
        # splice: an event of another seed into this one (other table maps, other flavor)
        other = units[r.randrange(len(units))]
        if other.events:
            e = bytearray(r.choice(other.events))
            if other.crc != crc:
                e = bytearray(e[:-4]) if other.crc else e + bytearray(4)
            evs.insert(r.randint(0, len(evs)), e)
    elif kind < 0.11 and evs:
        # structure: duplicate, drop or swap events
        i, j = r.randrange(len(evs)), r.randrange(len(evs))
        op = r.randrange(3)
        if op == 0:
            evs.insert(j, bytearray(evs[i]))
        elif op == 1:
            del evs[i]
        else:
            evs[i], evs[j] = evs[j], evs[i]
    if aim and r.random() < aim and aimed(r, evs, crc) and r.random() < 0.8:
        return framed(r, fde, evs, crc, fix_len=True, cut=False)
    # which events to mutate: prefer the focused types (rows, payload, ...)
    cands = list(range(len(evs)))
    if focus:
        f = [i for i in cands if evs[i][4] in focus]
        cands = f or cands
    for _ in range(r.choice((1, 1, 1, 2, 3, 4))):
        if not cands or r.random() < 0.03:
            lo, hi = _body_range(bytes(fde), True)
            mutate_bytes(r, fde, lo, hi)
            continue
        k = r.choice(cands)
        ev = evs[k]
        if len(ev) > 19 and ev[4] in _INSIDE and r.random() < 0.5 and m_inside(r, ev, crc):
            continue
        lo, hi = _body_range(bytes(ev), crc)
        if r.random() < 0.05:
            lo = 0  # the common header too
        mutate_bytes(r, ev, lo, hi)
    # fix-up: lengths, log_pos and CRC32 (sometimes leave the framing broken on purpose)
    return framed(r, fde, evs, crc, fix_len=r.random() < 0.95, cut=True)


def framed(r: random.Random, fde: bytearray, evs: list[bytearray], crc: bool, *, fix_len: bool,
           cut: bool) -> bytes:
    """The file of ``fde`` and ``evs``: each event's log_pos and CRC32 (and, ``fix_len``, its
    event_length) set to what they are; ``cut``: a few files cut or given a bad length."""
    out_fde = fix_event(bytes(fde), True, 4)
    pos = 4 + len(out_fde)
    fixed = []
    for e in evs:
        e2 = fix_event(bytes(e), crc, pos, length=fix_len)
        fixed.append(e2)
        pos += len(e2)
    data = build_file(out_fde, fixed)
    if cut and r.random() < 0.02:
        data = bytearray(data)
        at = r.randrange(4, max(5, len(data)))
        if r.random() < 0.5:
            del data[at:]
        elif at + 13 <= len(data):
            data[at + 9:at + 13] = r.choice(INTERESTING32).to_bytes(4, "little")
        data = bytes(data)
    return data


# --------------------------------------------------------------------------- schema text
_SQL_TOKENS = ("(", ")", ",", "`", "'", "\\", "NOT NULL", "NULL", "DEFAULT", "PRIMARY KEY", "KEY", "UNIQUE",
               "INT", "VARCHAR(65535)", "DECIMAL(65,30)", "DECIMAL(66,31)", "ENUM('a','a')", "SET()",
               "CHARACTER SET utf8mb4", "COLLATE latin1_bin", "TIME(7)", "BIT(65)", "0", "-1",
               "99999999999999999999999", "/*", "*/", "--", ";", "CREATE TABLE t", "USE", "GENERATED ALWAYS AS",
               "AUTO_INCREMENT", "UNSIGNED", "ZEROFILL", "CHARSET=", "\x00", "\u00e9", "\ud800", "\n")


def sql_mutant(texts: Sequence[str], seed: int, index: int) -> str:
    r = random.Random(seed * 1_000_003 + index)
    s = r.choice(texts)
    for _ in range(r.randint(1, 4)):
        op = r.randrange(5)
        p = r.randrange(len(s) + 1)
        if op == 0:
            s = s[:p] + r.choice(_SQL_TOKENS) + s[p:]
        elif op == 1:
            s = s[:p] + s[p + r.choice((1, 2, 5, 20)):]
        elif op == 2:
            q = r.randrange(len(s) + 1)
            s = s[:p] + s[min(p, q):max(p, q)] + s[p:]
        elif op == 3 and s:
            b = bytearray(s.encode("utf-8", "surrogatepass"))
            if b:
                b[r.randrange(len(b))] ^= 1 << r.randrange(8)
            s = b.decode("utf-8", "replace")
        else:
            s = s[:p] + str(r.choice((0, 1, 255, 256, 4096, 65536, 1 << 31, 1 << 64))) + s[p:]
    return s
