"""numpy structured dtypes derived from the construct declarations (nothing declared twice).

:func:`fixed_dtype` walks a list of construct fields (``"name" / subcon``) and maps each
fixed-size field to a numpy field of the same width at the same offset: construct's
``FormatField`` (``Int8ul`` … ``Int64sl``) to the numpy type of the same struct format,
``Bytes(n)`` and ``BytesInteger(n)`` (6-byte table ids, UUIDs through their adapter) to
``n`` raw bytes. ``IfMore`` parts (format.md §8: optional trailing GTID fields) count as
present. A field whose width is not fixed gives None: such a layout has no dtype.

``HEADER_DTYPE`` is the 19-byte common header (format.md §3) as declared in
:mod:`binlogwriter.layouts.header`; :func:`post_header_dtype` the fixed post-header of an
event type (the first ``n_post`` fields of its registered layout, format.md §4).
"""

from __future__ import annotations

import struct
from functools import lru_cache

import construct as cs
import numpy as np

from binlogwriter.events.table import declared_fields
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts.header import HEADER_SIZE, Header

__all__ = ["fixed_dtype", "field_dtype", "HEADER_DTYPE", "post_header_dtype", "int_bytes"]


def field_dtype(subcon: cs.Construct) -> np.dtype | None:
    """numpy dtype of one fixed-width construct (None: variable width)."""
    while True:
        if isinstance(subcon, cs.Renamed):
            subcon = subcon.subcon
        elif type(subcon).__name__ == "_IfMore" or isinstance(subcon, cs.Adapter):
            subcon = subcon.subcon
        else:
            break
    if isinstance(subcon, cs.FormatField):
        # struct codes mean C sizes; numpy's mean the platform's: map by width and kind
        code, size = subcon.fmtstr[-1], struct.calcsize(subcon.fmtstr)
        kind = "f" if code in "efd" else ("u" if code.isupper() or code == "B" else "i")
        return np.dtype(f"{'<' if subcon.fmtstr[0] in '<=' else '>'}{kind}{size}")
    if isinstance(subcon, cs.BytesInteger):
        if not isinstance(subcon.length, int) or not subcon.swapped:
            return None
        return np.dtype(("V", subcon.length))
    if isinstance(subcon, cs.Bytes) and isinstance(subcon.length, int):
        return np.dtype(("V", subcon.length))
    return None


def fixed_dtype(fields: list) -> np.dtype | None:
    """Structured dtype of consecutive fixed-width fields, offsets as declared (packed)."""
    names, formats, offsets = [], [], []
    off = 0
    for f in fields:
        name = getattr(f, "name", None)
        dt = field_dtype(f)
        if name is None or dt is None:
            return None
        names.append(name)
        formats.append(dt)
        offsets.append(off)
        off += dt.itemsize
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": off})


HEADER_DTYPE: np.dtype = fixed_dtype(list(Header.subcons))  # type: ignore[assignment]
"""The common event header (format.md §3), 19 bytes, from ``layouts.header.Header``."""
assert HEADER_DTYPE is not None and HEADER_DTYPE.itemsize == HEADER_SIZE


@lru_cache(maxsize=256)
def post_header_dtype(type_code: int, fmt: BinlogFormat) -> np.dtype | None:
    """The fixed post-header of ``type_code`` under ``fmt`` (first ``n_post`` fields of its
    registered layout); None when it is not fixed-width or the FDE declares a longer one."""
    declared = declared_fields(type_code, fmt)
    if declared is None:
        return None
    fields, known, n_post = declared
    if known is not None and fmt.post_header_len(type_code) != known:
        return None
    return fixed_dtype(fields[:n_post])


def int_bytes(values: np.ndarray, width: int) -> np.ndarray:
    """Unsigned little-endian integers as an (n, width) uint8 array (for ``V`` fields such as
    6-byte table ids)."""
    v = np.ascontiguousarray(values, dtype="<u8")
    return v.view(np.uint8).reshape(-1, 8)[:, :width]
