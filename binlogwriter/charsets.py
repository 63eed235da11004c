"""Collation ids <-> charsets, mbmaxlen and Python codecs.

Binlogs never name a charset, only a collation id (Query ``Q_CHARSET_CODE``, Table_map
DEFAULT/COLUMN_CHARSET). Rules implemented here are those of
``docs/charsets.md``: ids are keyed per flavor family (MySQL 8.0.30+ names,
MariaDB 10.11 names incl. its uca1400 ids >= 2048); ``mbmaxlen`` is per charset; the
``utf8``/``utf8mb3`` spelling is normalised to ``utf8mb3``; MySQL's utf8mb4 default is
255 (utf8mb4_0900_ai_ci), MariaDB's is 45 (utf8mb4_general_ci).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from functools import cache

from binlogwriter import _charset_maps as _maps
from binlogwriter import _collations as _data
from binlogwriter.errors import SchemaError
from binlogwriter.format import flavor_family

__all__ = [
    "Collation",
    "collation",
    "collation_by_name",
    "default_collation",
    "charset_mbmaxlen",
    "charset_codec",
    "BINARY_COLLATION",
    "encode_in_charset",
    "decode_in_charset",
    "BMP_ONLY_CHARSETS",
]

BINARY_COLLATION = 63
BMP_ONLY_CHARSETS = frozenset({"utf8mb3", "ucs2"})
"""Charsets that hold the Basic Multilingual Plane only: no character above U+FFFF (utf8mb3
is at most 3 bytes a character; ucs2 one 16-bit unit, no surrogate pairs), although Python's
codecs for them (utf-8, utf-16-be) would encode one."""


@dataclass(frozen=True, slots=True)
class Collation:
    """One collation: its id, name, charset, the charset's mbmaxlen and Python codec."""

    id: int
    name: str
    charset: str
    mbmaxlen: int
    codec: str | None
    is_default: bool

    @property
    def is_binary(self) -> bool:
        return self.charset == "binary"

    def encode(self, text: str) -> bytes:
        """Encode ``text`` in this charset (latin1 = cp1252 with its 5 holes kept, L1)."""
        if self.codec is None:
            raise UnicodeEncodeError(self.charset, text, 0, len(text), "no Python codec for charset")
        if self.charset == "latin1":
            return _latin1_encode(text)
        return text.encode(self.codec)

    def decode(self, data: bytes) -> str:
        """Decode bytes stored in this charset to text."""
        if self.codec is None:
            raise UnicodeDecodeError(self.charset, bytes(data), 0, len(data), "no Python codec for charset")
        if self.charset == "latin1":
            return _latin1_decode(data)
        return bytes(data).decode(self.codec)


_LATIN1_HOLES = {0x81, 0x8D, 0x8F, 0x90, 0x9D}


def _latin1_decode(data: bytes) -> str:
    # MySQL latin1 = cp1252 plus the 5 undefined positions mapped to U+0081... (charsets.md L1)
    return "".join(chr(b) if b in _LATIN1_HOLES else bytes((b,)).decode("cp1252") for b in data) \
        if any(b in _LATIN1_HOLES for b in data) else bytes(data).decode("cp1252")


def _latin1_encode(text: str) -> bytes:
    try:
        return text.encode("cp1252")
    except UnicodeEncodeError:
        out = bytearray()
        for i, ch in enumerate(text):
            if ord(ch) in _LATIN1_HOLES:
                out.append(ord(ch))
            else:
                try:
                    out += ch.encode("cp1252")
                except UnicodeEncodeError as exc:
                    raise UnicodeEncodeError("latin1", text, i, i + 1, exc.reason) from None
        return bytes(out)


def _normalise(name: str) -> str:
    name = name.lower()
    if name == "utf8":
        return "utf8mb3"
    if name.startswith("utf8_"):
        return "utf8mb3_" + name[5:]
    return name


@cache
def _tables(family: str) -> tuple[dict[int, Collation], dict[str, Collation]]:
    ids = _data.MARIADB1011 if family == "mariadb" else _data.MYSQL80
    defaults = _data.MARIADB1011_DEFAULTS if family == "mariadb" else _data.MYSQL80_DEFAULTS
    by_id: dict[int, Collation] = {}
    by_name: dict[str, Collation] = {}
    for cid, (name, cs) in ids.items():
        c = Collation(cid, name, cs, _data.CHARSETS[cs][0], charset_codec(cs), defaults.get(cs) == name)
        by_id[cid] = c
        by_name.setdefault(name, c)
    return by_id, by_name


def collation(cid: int, flavor: str = "mysql80") -> Collation:
    """The collation with id ``cid`` for ``flavor``; falls back to the other family's table.

    Raises ``SchemaError`` for an id neither server knows.
    """
    fam = flavor_family(flavor)
    for f in (fam, "mysql" if fam == "mariadb" else "mariadb"):
        c = _tables(f)[0].get(cid)
        if c is not None:
            return c
    raise SchemaError(f"unknown collation id {cid}")


def find_collation(cid: int, flavor: str = "mysql80") -> Collation | None:
    """Like :func:`collation` but returns None for an unknown id."""
    try:
        return collation(cid, flavor)
    except SchemaError:
        return None


def collation_by_name(name: str, flavor: str = "mysql80") -> Collation:
    """The collation called ``name`` (``utf8_*`` accepted as ``utf8mb3_*``)."""
    n = _normalise(name)
    c = _tables(flavor_family(flavor))[1].get(n)
    if c is None:
        raise SchemaError(f"unknown collation {name!r} for {flavor}")
    return c


def default_collation(charset: str, flavor: str = "mysql80") -> Collation:
    """The default collation of ``charset`` on ``flavor`` (utf8mb4: 255 MySQL, 45 MariaDB)."""
    cs = _normalise(charset)
    defaults = _data.MARIADB1011_DEFAULTS if flavor_family(flavor) == "mariadb" else _data.MYSQL80_DEFAULTS
    name = defaults.get(cs)
    if name is None:
        raise SchemaError(f"unknown character set {charset!r} for {flavor}")
    return collation_by_name(name, flavor)


def charset_mbmaxlen(charset: str) -> int:
    """Maximum bytes per character of ``charset``."""
    cs = _normalise(charset)
    if cs not in _data.CHARSETS:
        raise SchemaError(f"unknown character set {charset!r}")
    return _data.CHARSETS[cs][0]


def charset_codec(charset: str) -> str | None:
    """The Python codec of ``charset`` as the server reads it (None: binary, raw bytes only):
    Python's own codec, or one of ours (:func:`_server_codec`) where Python has none or its
    differs from the server (docs/charsets.md, "Characters the server holds")."""
    cs = _normalise(charset)
    if cs in _maps.SINGLE_BYTE or cs in _maps.DIFFERS or cs in _maps.DECODED_OTHERWISE:
        return _CODEC_PREFIX + cs
    return _maps.BASE.get(cs, _data.CHARSETS[cs][1])


_CODEC_PREFIX = "binlogwriter_"


def _server_codec(name: str) -> codecs.CodecInfo | None:
    """Codecs (registered with :func:`codecs.register`) for the charsets where Python's codec
    is missing or disagrees with the server, from the server's own maps measured by
    tools/charset_maps.py (binlogwriter/_charset_maps.py):

    * a one-byte charset Python lacks (armscii8, dec8, geostd8, hp8, keybcs2, swe7) is a
      charmap codec over the server's table (a byte the server has no character for decodes
      as an error, and no character encodes to it; :func:`_first_bytes`);
    * a one-byte charset whose Python codec reads some bytes otherwise (greek, hebrew, cp866,
      koi8u, cp1256, tis620 …) is the same: every one-byte charset but latin1 and ascii;
    * a multi-byte charset decodes with the Python codec that reads it as the server does
      (``BASE``: MariaDB's euckr is cp949, eucjpms reads as euc_jp), refuses to encode the
      characters the server reads back as others (sjis's ``¥`` is 0x5C, which the server reads
      as ``\\``) — stored, they would not be the value written — and refuses to decode the
      few codes Python reads as another character (:func:`_refuse_codes`)."""
    if not name.startswith(_CODEC_PREFIX):
        return None
    cs = name[len(_CODEC_PREFIX):]
    if cs in _maps.SINGLE_BYTE:
        table = _first_bytes(_maps.SINGLE_BYTE[cs])
        enc_table = codecs.charmap_build(table)

        def encode(text: str, errors: str = "strict") -> tuple[bytes, int]:
            return codecs.charmap_encode(text, errors, enc_table)

        def decode(data: bytes, errors: str = "strict") -> tuple[str, int]:
            return codecs.charmap_decode(data, errors, table)

        return codecs.CodecInfo(encode, decode, name=name)
    if cs not in _maps.DIFFERS and cs not in _maps.DECODED_OTHERWISE:
        return None
    base = codecs.lookup(_maps.BASE.get(cs) or _data.CHARSETS[cs][1])  # type: ignore[arg-type]
    refused = frozenset(chr(c) for a, b in _maps.DIFFERS.get(cs, ()) for c in range(a, b + 1))
    other = _maps.DECODED_OTHERWISE.get(cs, ())

    def encode_checked(text: str, errors: str = "strict") -> tuple[bytes, int]:
        if not refused.isdisjoint(text):
            i = next(i for i, ch in enumerate(text) if ch in refused)
            raise UnicodeEncodeError(cs, text, i, i + 1, "the server reads these bytes as another character")
        return base.encode(text, errors)

    def decode_checked(data: bytes, errors: str = "strict") -> tuple[str, int]:
        data = bytes(data)
        if any(code in data for code in other):
            _refuse_codes(cs, base.name, data, other)
        return base.decode(data, errors)

    return codecs.CodecInfo(encode_checked, decode_checked, name=name)


def _refuse_codes(charset: str, codec: str, data: bytes, codes: tuple[bytes, ...]) -> None:
    """UnicodeDecodeError where ``data`` holds, as a character of its own, a code that Python's
    ``codec`` reads as another character than the server (``DECODED_OTHERWISE``: sjis 0x815F
    is ``\\`` on the server, ``＼`` in Python); such a value is read as bytes, nothing lost.
    Codes are found character by character (a code's bytes inside two others are not it)."""
    dec = codecs.getincrementaldecoder(codec)()
    start = 0
    for i in range(len(data)):
        try:
            done = dec.decode(data[i:i + 1])
        except UnicodeDecodeError:
            return  # not text of the charset: the caller's decode says so
        if done:
            if data[start:i + 1] in codes:
                raise UnicodeDecodeError(charset, data, start, i + 1, "the server reads this code as another character")
            start = i + 1


def _first_bytes(table: str) -> str:
    """A server decoding table with each character kept at its first byte only: armscii8 reads
    0xA5 as ``)`` as well as 0x29. A character encodes to that first byte, and the later
    bytes decode as errors, so text decoded from any bytes encodes back to the same bytes (the
    later bytes come back as ``bytes``: binlogwriter/values/_strings.py)."""
    seen: set[str] = set()
    out = []
    for ch in table:
        out.append("\ufffe" if ch in seen else ch)
        seen.add(ch)
    return "".join(out)


codecs.register(_server_codec)


def encode_in_charset(text: str, coll: Collation | None) -> bytes:
    """Encode ENUM/SET member text in a column charset; binary keeps the client's utf8."""
    if coll is None or coll.charset == "binary":
        return text.encode("utf-8")
    return coll.encode(text)


def decode_in_charset(data: bytes, coll: Collation | None) -> str:
    """Inverse of :func:`encode_in_charset` (undecodable bytes -> surrogate escapes)."""
    if coll is None or coll.charset == "binary":
        return data.decode("utf-8", "surrogateescape")
    try:
        return coll.decode(data)
    except (UnicodeDecodeError, LookupError):
        return data.decode("utf-8", "surrogateescape")
