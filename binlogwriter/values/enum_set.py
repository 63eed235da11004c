"""The enum_set family: ENUM SET, type 254 with the real type in the metadata (values.md §5, §6).

ENUM → the member ``str``; index 0 (the invalid-value entry) → ``''``; ``int`` index when the
members are unknown (``ColumnDesc.enum_values`` None) or the index is past the last member.
Encoders take a member ``str`` (exact match) or an ``int`` index.
SET → ``frozenset`` of member ``str``; ``int`` bitmask when the members are unknown or a bit
has no member. Encoders take any iterable of members, a comma-separated ``str``, or an
``int`` bitmask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from binlogwriter.errors import SchemaError
from binlogwriter.values._common import (
    Bound,
    Codec,
    decode_error,
    describe,
    register,
    value_error,
)
from binlogwriter.values._strings import (
    STRING_META,
    parse_string_meta,
)
from binlogwriter.values._text import bit_string
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "EnumCodec", "SetCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "enum_set"
SQL_TYPES = ("ENUM", "SET")
TYPE_CODES = (247, 248)  # logged as 254 with the real type in metadata[0] (values.md §5)
# no vectorised encoder: ENUM/SET values go through the scalar encoders (one dict lookup each);
# row images fall back to them column by column (values/row.py)


@register
class EnumCodec(Codec):
    """ENUM: type 254 with metadata ``f7 <storage 1|2>``; value = 1-based index, LE (values.md §6)."""

    type_codes = (247,)
    meta_layout = STRING_META

    def bind(self, col: ColumnDesc) -> Bound:
        return bind_enum(col, self.parse_meta(col).length)


@register
class SetCodec(Codec):
    """SET: type 254 with metadata ``f8 <storage 1,2,3,4,8>``; value = LE bitmask (values.md §6)."""

    type_codes = (248,)
    meta_layout = STRING_META

    def bind(self, col: ColumnDesc) -> Bound:
        return bind_set(col, self.parse_meta(col).length)


def _members_text(members: tuple[str, ...]) -> str:
    shown = ",".join(repr(m) for m in members[:5])
    return shown + (f",… ({len(members)} members)" if len(members) > 5 else "")


def _distinct(members: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """ENUM/SET members, or None (values as int index / bitmask) when two members have the
    same name: no server accepts that, and a name would not say which index it stands for."""
    if members is not None and len(set(members)) != len(members):
        return None
    return members


def bind_enum(col: ColumnDesc, storage: int) -> Bound:
    if storage not in (1, 2):
        raise SchemaError(f"ENUM storage must be 1 or 2 bytes, metadata says {storage}"
                          f" - at {col.table}.{col.name}")
    members = _distinct(col.enum_values)
    sql = f"ENUM({_members_text(members)})" if members is not None else "ENUM"
    index = {m: i + 1 for i, m in enumerate(members)} if members is not None else {}
    limit = len(members) if members is not None else (1 << (8 * storage)) - 1
    zero: Any = 0 if "" in index else ""  # index 0 read back: '' unless that names a member

    def encode(value: Any) -> bytes:
        if isinstance(value, str):
            i = index.get(value)
            if i is None:
                if value == "":
                    i = 0
                elif members is None:
                    raise value_error(col, sql, f"members unknown: pass the int index, got {value!r}")
                else:
                    raise value_error(col, sql, f"{value!r} is not a member")
        elif isinstance(value, int) and not isinstance(value, bool):
            i = value
            if not 0 <= i <= limit:
                raise value_error(col, sql, f"index {i} is out of range 0..{limit}")
        else:
            raise value_error(col, sql, f"needs a member str or int index, got {describe(value)}")
        return i.to_bytes(storage, "little")

    def decode(buf: Any, pos: int) -> tuple[Any, int]:
        end = pos + storage
        if end > len(buf):
            raise decode_error(col, f"ENUM needs {storage} bytes at {pos}")
        i = buf[pos] if storage == 1 else buf[pos] | buf[pos + 1] << 8
        if members is None:
            return i, end
        if i == 0:  # the server's value for an invalid one (values.md §5); int 0 when '' is a member too
            return zero, end
        if i <= len(members):
            return members[i - 1], end
        return i, end

    return Bound(col, sql, encode, decode, storage, "str | int")


def bind_set(col: ColumnDesc, storage: int) -> Bound:
    if storage not in (1, 2, 3, 4, 8):
        raise SchemaError(f"SET storage must be 1, 2, 3, 4 or 8 bytes, metadata says {storage}"
                          f" - at {col.table}.{col.name}")
    members = _distinct(col.set_values)
    if members is not None and len(members) > 8 * storage:
        raise SchemaError(f"SET with {len(members)} members does not fit {storage} bytes"
                          f" - at {col.table}.{col.name}")
    sql = f"SET({_members_text(members)})" if members is not None else "SET"
    bit = {m: 1 << i for i, m in enumerate(members)} if members is not None else {}
    nbits = len(members) if members is not None else 8 * storage

    def encode(value: Any) -> bytes:
        if isinstance(value, int) and not isinstance(value, bool):
            mask = value
            if not 0 <= mask < (1 << nbits):
                raise value_error(col, sql, f"bitmask {mask:#x} has bits beyond the {nbits} members")
        else:
            if isinstance(value, str):
                items: Iterable[Any] = value.split(",") if value else ()
            elif isinstance(value, set | frozenset | list | tuple):
                items = value
            else:
                raise value_error(col, sql, f"needs a set of members, a str or an int bitmask, "
                                            f"got {describe(value)}")
            if members is None:
                raise value_error(col, sql, "members unknown: pass the int bitmask")
            mask = 0
            for item in items:
                b = bit.get(item) if isinstance(item, str) else None
                if b is None:
                    raise value_error(col, sql, f"{item!r} is not a member")
                mask |= b
        return mask.to_bytes(storage, "little")

    def decode(buf: Any, pos: int) -> tuple[Any, int]:
        end = pos + storage
        if end > len(buf):
            raise decode_error(col, f"SET needs {storage} bytes at {pos}")
        mask = int.from_bytes(buf[pos:end], "little")
        if members is None or mask >> len(members):
            return mask, end
        return frozenset(m for i, m in enumerate(members) if mask >> i & 1), end

    return Bound(col, sql, encode, decode, storage, "frozenset[str] | int")


# -- schema -> binlog (values.md §1, §5) --------------------------------------------------

def _set_storage(n: int) -> int:
    b = (n + 7) // 8
    return 8 if b > 4 else max(b, 1)


def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """STRING 254 (values.md §5)."""
    return 254


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """``[real type, storage bytes]``: ENUM 1 or 2, SET 1, 2, 3, 4 or 8 (values.md §5)."""
    if col.type == "ENUM":
        return bytes((247, 1 if len(col.members) <= 255 else 2))
    return bytes((248, _set_storage(len(col.members))))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """ENUM as its index; SET as a bit string ``b'…'`` (bytes in storage order, least
    significant byte first)."""
    meta = bytes(col.meta)
    real, length = parse_string_meta(meta)
    if real == 247:
        members = {m: i + 1 for i, m in enumerate(col.enum_values or ())}
        # the index the encoder writes for the value (values/enum_set.py encode): a member's, "" → 0
        return lambda v: str(v if isinstance(v, int) else members.get(v, 0))
    if real == 248:
        nbytes = length
        bit = {m: 1 << i for i, m in enumerate(col.set_values or ())}

        def set_text(v: Any) -> str:
            mask = v if isinstance(v, int) else sum(bit[m] for m in v)
            return bit_string(mask.to_bytes(nbytes, "little"), nbytes * 8)
        return set_text
    raise ValueError(f"Don't know how to handle column type: {col.type_code} meta: {meta.hex()}")


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: string, or the index (uint16)
    / bitmask (uint64) when the members are unknown."""
    import pyarrow as pa

    if parse_string_meta(bytes(col.meta))[0] == 247:
        return pa.string() if col.enum_values is not None else pa.uint16()
    return pa.string() if col.set_values is not None else pa.uint64()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """ENUM as its member; SET as its members in definition order, comma-separated."""
    if col.type == "ENUM":
        return str
    order = {m: i for i, m in enumerate(col.members)}
    return lambda v: ",".join(sorted(v, key=order.__getitem__))


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``ENUM(1 byte)`` / ``ENUM(2 bytes)`` / ``SET(n bytes)`` from the
    storage size in the metadata's low byte; ValueError (printed, listing stops) for an ENUM
    size mysqlbinlog does not know."""
    n = meta & 0xFF
    if type_code == 248:
        return f"SET({n} bytes)"
    if n in (1, 2):
        return "ENUM(1 byte)" if n == 1 else "ENUM(2 bytes)"
    raise ValueError(f"!! Unknown ENUM packlen={n}")
