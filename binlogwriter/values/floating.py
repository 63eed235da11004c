"""The floating family: FLOAT DOUBLE (values.md §1).

FLOAT (4): ``float``. An encoded float is rounded to the nearest float32 (round half to even,
like the server's C cast); the decoded value is that float32 widened to a Python float.
NaN and ±inf are refused (the server refuses them), as is a finite value beyond
±3.4028234663852886e38. DOUBLE (5): ``float``, exact. ``int`` is accepted for both.
UNSIGNED FLOAT/DOUBLE refuse negative values.
"""

from __future__ import annotations

import math
import numbers
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs
import numpy as np

from binlogwriter.values._common import (
    Bound,
    Codec,
    Fixed,
    decode_error,
    describe,
    register,
    value_error,
)
from binlogwriter.values.base import ColumnDesc

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "FloatCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "floating"
SQL_TYPES = ("FLOAT", "DOUBLE")
TYPE_CODES = (4, 5)

_FLT_MAX = 3.4028234663852886e38


@register
class FloatCodec(Codec):
    """FLOAT (4) and DOUBLE (5): IEEE-754 little-endian; metadata = pack length (values.md §1)."""

    type_codes = (4, 5)
    meta_layout = cs.Struct("pack_length" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        self.parse_meta(col)
        is_float = col.type_code == 4
        width = 4 if is_float else 8
        sql = ("FLOAT" if is_float else "DOUBLE") + (" UNSIGNED" if col.unsigned else "")
        st = struct.Struct("<f" if is_float else "<d")
        pack, unpack_from = st.pack, st.unpack_from
        unsigned = col.unsigned

        def encode(value: Any) -> bytes:
            if type(value) is float:
                f = value
            elif isinstance(value, numbers.Real) and not isinstance(value, bool):
                try:
                    f = float(value)
                except OverflowError:
                    raise value_error(col, sql, f"{value} is out of range") from None
            else:
                raise value_error(col, sql, f"needs a float or int, got {describe(value)}")
            if not math.isfinite(f):
                raise value_error(col, sql, f"cannot hold {value!r} (NaN and infinity are not stored)")
            if unsigned and f < 0:
                raise value_error(col, sql, f"UNSIGNED column cannot hold negative {value!r}")
            try:
                return pack(f)
            except OverflowError:
                raise value_error(col, sql, f"holds at most ±{_FLT_MAX!r}, got {value!r}") from None

        def encode_many(values: list) -> list | None:
            # IEEE-754 little-endian; float32 by round-to-nearest-even like the scalar C cast
            if set(map(type, values)) != {float}:
                return None
            return encode_floats(np.asarray(values, dtype=np.float64))

        def encode_array(kind: str, data: Any, meta: Any) -> list | None:
            return encode_floats(data) if kind == "float" and data.dtype == np.float64 else None

        def encode_floats(a: np.ndarray) -> list | None:
            if not np.isfinite(a).all() or (unsigned and (a < 0).any()):
                return None
            b = a.astype("<f4" if is_float else "<f8")
            if is_float and not np.isfinite(b).all():
                return None
            return [Fixed(b.view(np.uint8).reshape(-1, width))]

        def decode(buf: Any, pos: int) -> tuple[float, int]:
            try:
                return unpack_from(buf, pos)[0], pos + width
            except struct.error:
                raise decode_error(col, f"{sql} needs {width} bytes at {pos}") from None

        return Bound(col, sql, encode, decode, width, "float", encode_many, encode_array)


# -- schema -> binlog (values.md §1) ----------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """FLOAT 4, DOUBLE 5 (values.md §1)."""
    return 4 if col.type == "FLOAT" else 5


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The pack length: 4 or 8 (values.md §1)."""
    return b"\x04" if col.type == "FLOAT" else b"\x08"


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def _c_double(x: float, spec: str) -> str:
    """C printf of a double; glibc prints ``-nan`` for a NaN with the sign bit set."""
    if math.isnan(x):
        text = "-nan" if math.copysign(1.0, x) < 0 else "nan"
        return text.ljust(20) if spec == "%-20g" else text
    return spec % x


def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """FLOAT ``%-20g`` of the float32, DOUBLE ``%-.20g``."""
    if col.type_code == 4:
        return lambda v: _c_double(v, "%-20g")
    return lambda v: _c_double(v, "%-.20g")


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: float32 / float64."""
    import pyarrow as pa

    return pa.float32() if col.type_code == 4 else pa.float64()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def _f32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """FLOAT widened from float32, DOUBLE as is."""
    if col.type == "FLOAT":
        return lambda v: _f32(float(v))
    return float


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type (``typestr`` of log_event_print_value)."""
    return {4: "FLOAT", 5: "DOUBLE"}.get(type_code)
