"""GTID layouts (part of binlogwriter/layouts/control.py): GTID sets (PREVIOUS_GTIDS, format.md
§7), the GTID / ANONYMOUS_GTID post-header with its optional fields (§8), mysql::serialization
variable-length integers, and the tagged GTID message (type 42, §8), whose parser refuses
non-canonical encodings (:class:`NonCanonical`)."""

from __future__ import annotations

import construct as cs

from binlogwriter.layouts.primitives import (
    IfMore,
    PackedInt,
    Uuid,
)

# -------------------------------------------------------------------- GTID sets §7


class _GtidSet(cs.Construct):
    """``Gtid_set::encode``: n_sids (plain, or tagged format ``1<<56 | n<<8 | 1``), then per
    TSID: uuid, [tag], n_intervals, [start, end) pairs. Value: dict with ``tagged`` and
    ``sids``: list of (uuid text, tag, [(start, end_exclusive), ...])."""

    def _parse(self, stream, context, path):
        head = int.from_bytes(cs.stream_read(stream, 8, path), "little")
        tagged = (head & 0xFF) == 1 and (head >> 56) == 1
        n = (head >> 8) & ((1 << 48) - 1) if tagged else head
        sids = []
        for _ in range(n):
            uuid = Uuid._parsereport(stream, context, path)
            tag = ""
            if tagged:
                ln = _varlen_uint(stream, path)  # serialization string: varlen length
                tag = cs.stream_read(stream, ln, path).decode("ascii")
            k = int.from_bytes(cs.stream_read(stream, 8, path), "little")
            ivs = []
            for _ in range(k):
                a = int.from_bytes(cs.stream_read(stream, 8, path), "little", signed=True)
                b = int.from_bytes(cs.stream_read(stream, 8, path), "little", signed=True)
                ivs.append((a, b))
            sids.append((uuid, tag, ivs))
        return cs.Container(tagged=tagged, sids=sids)

    def _build(self, obj, stream, context, path):
        tagged = bool(obj.get("tagged"))
        sids = obj["sids"]
        n = len(sids)
        head = (1 << 56) | (n << 8) | 1 if tagged else n
        out = bytearray(head.to_bytes(8, "little"))
        for uuid, tag, ivs in sids:
            out += Uuid.build(uuid)
            if tagged:
                t = tag.encode("ascii")
                out += _varlen_uint_bytes(len(t)) + t
            out += len(ivs).to_bytes(8, "little")
            for a, b in ivs:
                out += a.to_bytes(8, "little", signed=True) + b.to_bytes(8, "little", signed=True)
        cs.stream_write(stream, bytes(out), len(out), path)
        return obj


def tsids_text(sids, sep: str = ",") -> str:
    """The one text form of a GTID set (``Gtid_set::to_string``): ``(uuid, tag, intervals)``
    entries, in the order given, as ``uuid:ranges:tag:ranges`` (the entries of one uuid that
    follow each other share it), the uuids joined by ``sep``; an interval [start, end) prints
    as ``start`` or ``start-(end-1)``. Used by PREVIOUS_GTIDS' text and
    :meth:`binlogwriter.gtids.MysqlGtidSet.text`."""
    out: list[str] = []
    last = None
    for uuid, tag, ivs in sids:
        rng = ":".join(f"{a}" if b - 1 == a else f"{a}-{b - 1}" for a, b in ivs)
        piece = (f":{tag}" if tag else "") + (f":{rng}" if rng else "")
        if out and piece and uuid == last:
            out[-1] += piece
        else:
            out.append(f"{uuid}{piece}")
        last = uuid
    return sep.join(out)


PREVIOUS_GTIDS_FIELDS = ["gtid_set" / _GtidSet()]

# ---------------------------------------------------------- mysql::serialization varlen


def _varlen_uint(stream, path) -> int:
    """SER varlen: bytes = 1 + trailing one-bits of the first byte; 9-byte form for ≥ 2^56."""
    first = cs.stream_read(stream, 1, path)[0]
    n = 1
    while n < 9 and (first >> (n - 1)) & 1:
        n += 1
    if n == 1:
        return first >> 1
    rest = cs.stream_read(stream, n - 1, path)
    if n == 9:
        return int.from_bytes(rest, "little")
    v = int.from_bytes(bytes((first,)) + rest, "little")
    return v >> n


def _varlen_uint_bytes(v: int) -> bytes:
    if v < 0:
        raise cs.IntegerError(f"varlen needs an unsigned value, got {v}")
    for n in range(1, 9):
        if v < 1 << (7 * n):
            raw = (v << n) | ((1 << (n - 1)) - 1)
            return raw.to_bytes(n, "little")
    return b"\xff" + v.to_bytes(8, "little")


def _zigzag(v: int) -> int:
    return v << 1 if v >= 0 else ((-(v + 1)) << 1) | 1


def _unzigzag(v: int) -> int:
    return -((v >> 1) + 1) if v & 1 else v >> 1


class _VarlenUint(cs.Construct):
    def _parse(self, stream, context, path):
        return _varlen_uint(stream, path)

    def _build(self, obj, stream, context, path):
        raw = _varlen_uint_bytes(obj)
        cs.stream_write(stream, raw, len(raw), path)
        return obj


VarlenUint = _VarlenUint()
VarlenInt = cs.ExprAdapter(VarlenUint, lambda obj, ctx: _unzigzag(obj), lambda obj, ctx: _zigzag(obj))

# ----------------------------------------------------------------------- GTID 8.0 §8


class _Flagged(cs.Construct):
    """An integer of ``size`` bytes whose top bit says "an original value follows" (format.md
    §8: commit timestamps 7 bytes / bit 55, server versions 4 bytes / bit 31). Value:
    (immediate, original or None when not written)."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size
        self.bit = 1 << (8 * size - 1)

    def _parse(self, stream, context, path):
        v = int.from_bytes(cs.stream_read(stream, self.size, path), "little")
        if v & self.bit:
            o = int.from_bytes(cs.stream_read(stream, self.size, path), "little")
            return (v & ~self.bit, o)
        return (v, None)

    def _build(self, obj, stream, context, path):
        imm, orig = obj
        if orig is None:
            raw = imm.to_bytes(self.size, "little")
        else:
            raw = (imm | self.bit).to_bytes(self.size, "little") + orig.to_bytes(self.size, "little")
        cs.stream_write(stream, raw, len(raw), path)
        return obj


GTID_FIELDS = [
    "gtid_flags" / cs.Int8ul,
    "sid" / Uuid,
    "gno" / cs.Int64sl,
    "lt_typecode" / IfMore(cs.Int8ul),
    "last_committed" / IfMore(cs.Int64sl),
    "sequence_number" / IfMore(cs.Int64sl),
    "commit_timestamps" / IfMore(_Flagged(7)),
    "transaction_length" / IfMore(PackedInt),
    "server_versions" / IfMore(_Flagged(4)),
    "commit_group_ticket" / IfMore(cs.Int64ul),
]


# ------------------------------------------------------------------ tagged GTID (42) §8

# Field ids of Gtid_event::define_fields; every field a varlen (signed ones zig-zag).
TAGGED_GTID_FIELD_IDS = (
    ("gtid_flags", 0, "u"), ("sid", 1, "uuid"), ("gno", 2, "s"), ("tag", 3, "str"),
    ("last_committed", 4, "s"), ("sequence_number", 5, "s"),
    ("immediate_commit_timestamp", 6, "u"), ("original_commit_timestamp", 7, "u"),
    ("transaction_length", 8, "u"), ("immediate_server_version", 9, "u"),
    ("original_server_version", 10, "u"), ("commit_group_ticket", 11, "u"),
)


class NonCanonical(cs.ExplicitError):
    """Bytes that parse but are not in the one form the encoder writes (a varlen longer than
    needed, fields out of order, a message_size that is not the message's size): the event
    is kept raw rather than handed out with fields that would encode to other bytes."""

    def __init__(self, message: str = "", path: str | None = None) -> None:
        # one line (construct would put "Error in path ..." and a newline first): the
        # message ends up in RawEvent.kept_raw and in one-line CLI errors
        where = (path or "").replace("(parsing)", "").strip(" ->")
        super().__init__(f"{message} (field {where})" if where else message)
        self.path = path


def _varlen_exact(stream, path) -> int:
    """:func:`_varlen_uint`, refusing a value not in its shortest form (NonCanonical)."""
    start = stream.tell()
    v = _varlen_uint(stream, path)
    n = stream.tell() - start
    if n > 1 and v < 1 << (7 * (n - 1)):
        raise NonCanonical(f"varlen {v} takes {n} bytes, {len(_varlen_uint_bytes(v))} suffice", path=path)
    return v


class _TaggedGtidMessage(cs.Construct):
    """A ``mysql::serialization`` message: version, message_size (whole message, bytes),
    last_non_ignorable_field_id, then (field_id, data) pairs (format.md §8, UNVERIFIED by
    bytes). Value: Container of the named fields present (absent optional ones are None)."""

    def _parse(self, stream, context, path):
        # Parsed strictly (every varlen shortest, field ids increasing, message_size exact):
        # only then do the fields encode back to these bytes (events.decode_body relies on it).
        start = stream.tell()
        version = _varlen_exact(stream, path)
        size = _varlen_exact(stream, path)
        last_id = _varlen_exact(stream, path)
        by_id = {fid: (name, kind) for name, fid, kind in TAGGED_GTID_FIELD_IDS}
        out = cs.Container(version=version, last_non_ignorable_field_id=last_id)
        for name, _, _ in TAGGED_GTID_FIELD_IDS:
            out[name] = None
        prev = -1
        while stream.tell() - start < size:
            fid = _varlen_exact(stream, path)
            if fid not in by_id:
                raise cs.ExplicitError(f"unknown tagged GTID field id {fid}", path=path)
            if fid <= prev:
                raise NonCanonical(f"tagged GTID field id {fid} after {prev}", path=path)
            prev = fid
            name, kind = by_id[fid]
            if kind == "uuid":
                raw = bytes(_varlen_exact(stream, path) for _ in range(16))
                out[name] = Uuid.parse(raw)
            elif kind == "str":
                n = _varlen_exact(stream, path)
                out[name] = cs.stream_read(stream, n, path).decode("ascii")
            elif kind == "s":
                out[name] = _unzigzag(_varlen_exact(stream, path))
            else:
                out[name] = _varlen_exact(stream, path)
        if stream.tell() - start != size:
            raise NonCanonical(f"tagged GTID message_size {size}, message {stream.tell() - start} bytes",
                               path=path)
        return out

    def _build(self, obj, stream, context, path):
        body = bytearray()
        for name, fid, kind in TAGGED_GTID_FIELD_IDS:
            v = obj.get(name)
            if v is None:
                continue
            body += _varlen_uint_bytes(fid)
            if kind == "uuid":
                body += b"".join(_varlen_uint_bytes(b) for b in Uuid.build(v))
            elif kind == "str":
                t = v.encode("ascii")
                body += _varlen_uint_bytes(len(t)) + t
            elif kind == "s":
                body += _varlen_uint_bytes(_zigzag(v))
            else:
                body += _varlen_uint_bytes(v)
        v = obj.get("version")
        version = _varlen_uint_bytes(1 if v is None else v)
        last = _varlen_uint_bytes(obj.get("last_non_ignorable_field_id", 8))
        # message_size counts the whole message including its own encoding
        size = len(version) + len(last) + len(body) + 1
        while True:
            enc = _varlen_uint_bytes(size)
            total = len(version) + len(enc) + len(last) + len(body)
            if total == size:
                break
            size = total
        raw = version + enc + last + bytes(body)
        cs.stream_write(stream, raw, len(raw), path)
        return obj


TAGGED_GTID_FIELDS = ["message" / _TaggedGtidMessage()]
