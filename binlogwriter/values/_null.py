"""The NULL type (6): always ``None``; it has no bytes (values.md §1). No SQL type of the
schema model has it, so it belongs to no family; the registry imports it for its codec."""

from __future__ import annotations

from typing import Any

import construct as cs

from binlogwriter.values._common import Bound, Codec, describe, register, value_error
from binlogwriter.values.base import ColumnDesc

__all__ = ["NullCodec"]

TYPE_CODES = (6,)


@register
class NullCodec(Codec):
    """The NULL type (6): no bytes; the value is always ``None``."""

    type_codes = (6,)
    meta_layout = cs.Struct()

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)

        def encode(value: Any) -> bytes:
            if value is not None:
                raise value_error(col, "NULL", f"a NULL-type column holds only None, got {describe(value)}")
            return b""

        def decode(buf: Any, pos: int) -> tuple[None, int]:
            return None, pos

        return Bound(col, "NULL", encode, decode, 0, "None")
