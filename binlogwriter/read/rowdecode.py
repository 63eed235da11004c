"""Compiled row-image decoders: one per table definition and image, built once (format.md §13).

A row image is the null bitmap over the columns present in the image (LSB first, 1 = NULL)
then the values of the present non-NULL columns in column order. The declarative reader
(:class:`binlogwriter.values.row.RowImageCodec`) loops over columns and calls each column's
bound codec. Here, for each (table definition, present-columns bitmap) pair, Python source
is generated once and compiled:

* runs of consecutive fixed-width struct-able columns (integers other than MEDIUMINT, FLOAT,
  DOUBLE) are read with one precomputed ``struct`` format when none of them is NULL in the
  row (one bit test), else column by column;
* every other column calls its bound codec's ``decode`` (the same closure the declarative
  path calls), so values are the declarative path's values by construction.

A decoder returns the values of the **present** columns only (``None`` = NULL), the raw
null-bitmap padding bits and the position after the image. On any malformed input it
re-runs the declarative decoder so errors are the same typed, located ones.

:func:`decode_rows_body` reads a whole rows event's post-header and body (format.md §13:
table id, flags, v2 extra info, width, the column bitmaps, then the row images; MariaDB
compressed variants compress the rows part) without construct.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from binlogwriter.errors import DecodeError
from binlogwriter.layouts.rows import no_image_columns
from binlogwriter.read.inline_values import miss_lines
from binlogwriter.read.rowsheader import RowsBody, parse_rows_header  # noqa: F401 - re-exported
from binlogwriter.values._strings import char_pad, parse_string_meta, plain_string_layout
from binlogwriter.values.base import ABSENT, ColumnDesc
from binlogwriter.values.json_binary import JsonKeptArray, JsonKeptObject
from binlogwriter.values.json_fast import memo_json_reader
from binlogwriter.values.registry import bind_column
from binlogwriter.values.row import row_codec
from binlogwriter.values.temporal_fast import fast_temporal_decoder

__all__ = ["AS_DICT", "TableDecoder", "table_decoder", "RowsBody", "parse_rows_header", "decode_rows_body"]

_COMPACT = object()
"""``fill`` default of :meth:`TableDecoder.image`: present columns only."""
AS_DICT = object()
"""``fill`` of :meth:`TableDecoder.image` for a dict of the present columns by name."""

FALLBACKS = [0]
"""How many images the declarative decoder re-read (malformed input); tests watch it."""

# binlog type -> struct letter (signed); unsigned takes the upper case letter
_STRUCT_INT = {1: "b", 2: "h", 3: "i", 8: "q"}
_STRUCT_FLOAT = {4: "f", 5: "d"}


def _struct_letter(col: ColumnDesc) -> str | None:
    if col.type_code in _STRUCT_INT:
        letter = _STRUCT_INT[col.type_code]
        return letter.upper() if col.unsigned else letter
    if col.type_code in _STRUCT_FLOAT and len(col.meta) == 1:
        return _STRUCT_FLOAT[col.type_code]
    return None


class TableDecoder:
    """Row-image decoders of one table definition, compiled per present-columns bitmap.
    Size: the per-column tables the compiled decoders are built from and the compiler reading them."""

    __slots__ = ("cols", "names", "_bound", "_letters", "_strings", "_pads", "_images", "_reference", "_memo",
                 "_caches", "_json", "_json_readers")

    def __init__(self, cols: Sequence[ColumnDesc]) -> None:
        self.cols = tuple(cols)
        self.names = tuple(c.name for c in self.cols)
        self._bound = [bind_column(c) for c in self.cols]
        self._letters = [_struct_letter(c) for c in self.cols]
        self._strings = [plain_string_layout(c) for c in self.cols]
        self._pads = [char_pad(c) if s is not None else b"" for c, s in zip(self.cols, self._strings, strict=True)]
        self._memo = [_memo_size(c, b) for c, b in zip(self.cols, self._bound, strict=True)]
        self._caches: list[dict] = [{} for _ in self.cols]
        self._json = [json_lb(c) for c in self.cols]
        self._json_readers = [memo_json_reader() if lb else None for lb in self._json]
        self._images: dict[tuple, Any] = {}
        self._reference = row_codec(self.cols)

    def image(self, present: Sequence[bool], fill: Any = _COMPACT):
        """``decode(buf, pos) -> (values, null pad, pos)`` for this bitmap; ``buf`` must be
        ``bytes``. Values are those of the present columns only, or with ``fill`` full width
        (``fill`` standing for each column not in the image: ABSENT, None, …), or with
        ``fill=AS_DICT`` a dict of the present columns by name (names must be known)."""
        key = (tuple(present), fill)
        fn = self._images.get(key)
        if fn is None:
            if len(key[0]) != len(self.cols):
                raise DecodeError(f"row image needs {len(self.cols)} present flags, got {len(key[0])}")
            fn = self._compile(key[0], fill)
            self._images[key] = fn
        return fn

    def decode_full(self, present: Sequence[bool], buf: Any, pos: int) -> tuple[tuple, int, int]:
        """The declarative path's shape: (full-width values with ABSENT, pad, position)."""
        return self.image(present, ABSENT)(bytes(buf) if not isinstance(buf, bytes) else buf, pos)

    def _compile(self, present: tuple, fill: Any):
        idx = [i for i, p in enumerate(present) if p]
        k = len(idx)
        nb = (k + 7) >> 3
        rem = k & 7
        ref = self._reference
        names = self.names

        def fallback(buf: Any, pos: int) -> tuple[tuple, int, int]:
            FALLBACKS[0] += 1
            full, pad, pos = ref.decode(present, buf, pos)
            if fill is AS_DICT:
                return {n: v for n, v in zip(names, full, strict=True) if v is not ABSENT}, pad, pos
            if fill is _COMPACT:
                return tuple(v for v in full if v is not ABSENT), pad, pos
            return tuple(fill if v is ABSENT else v for v in full), pad, pos

        env: dict[str, Any] = {"_fallback": fallback, "_fill": fill}
        lines = ["def decode(buf, pos):", "  try:"]
        if nb == 0:
            lines.append("    bits = 0")
        elif nb == 1:
            lines.append("    bits = buf[pos]")
        else:
            lines.append(f"    bits = int.from_bytes(buf[pos:pos + {nb}], 'little')")
        lines.append(f"    pad = buf[pos + {nb - 1}] & {(0xFF << rem) & 0xFF}" if rem else "    pad = 0")
        if nb:
            lines.append(f"    pos += {nb}")
        # group the present columns into runs of struct-able columns
        j = 0
        while j < k:
            letter = self._letters[idx[j]]
            if letter is not None:
                run = [j]
                while j + len(run) < k and self._letters[idx[j + len(run)]] is not None:
                    run.append(j + len(run))
                if len(run) > 1:
                    fmt = struct.Struct("<" + "".join(self._letters[idx[r]] for r in run))
                    env[f"_s{j}"] = fmt.unpack_from
                    mask = sum(1 << r for r in run)
                    names = ", ".join(f"v{r}" for r in run)
                    lines.append(f"    if not bits & {mask}:")
                    lines.append(f"      {names}, = _s{j}(buf, pos)")
                    lines.append(f"      pos += {fmt.size}")
                    lines.append("    else:")
                    for r in run:
                        lines += self._one(env, r, idx[r], "      ")
                    j += len(run)
                    continue
            lines += self._one(env, j, idx[j], "    ")
            j += 1
        lines.append("    if pos > len(buf):")
        lines.append("      raise IndexError('row image runs past the end of the rows data')")
        if fill is AS_DICT:
            tup = None
            lines.append("    return {" + "".join(f"{self.names[i]!r}: v{r}, " for r, i in enumerate(idx))
                         + "}, pad, pos")
        elif fill is _COMPACT:
            tup = "".join(f"v{r}, " for r in range(k))
        else:
            where = {i: r for r, i in enumerate(idx)}
            tup = "".join(f"v{where[i]}, " if i in where else "_fill, " for i in range(len(present)))
        if tup is not None:
            lines.append(f"    return ({tup}), pad, pos")
        lines.append("  except Exception:")
        lines.append("    return _fallback(buf, pos0)")
        src = "\n".join(lines)
        # keep the start position for the fallback
        src = src.replace("def decode(buf, pos):\n", "def decode(buf, pos):\n  pos0 = pos\n", 1)
        code = compile(src, f"<row decoder {self.cols[0].table if self.cols else ''!r}>", "exec")
        exec(code, env)  # noqa: S102 - source generated above from column types only
        return env["decode"]

    def _one(self, env: dict, r: int, i: int, ind: str) -> list[str]:
        null = [f"{ind}if bits >> {r} & 1:", f"{ind}  v{r} = None", f"{ind}else:"]
        string = self._strings[i]
        if string is not None:  # length-prefixed bytes, decoded inline (plain_string_layout)
            lb, codec = string
            head = list(null)
            if lb == 1:
                head.append(f"{ind}  n = buf[pos]")
            elif lb == 2:
                head.append(f"{ind}  n = buf[pos] | buf[pos + 1] << 8")
            else:
                head.append(f"{ind}  n = int.from_bytes(buf[pos:pos + {lb}], 'little')")
            head += [f"{ind}  s = pos + {lb}", f"{ind}  pos = s + n", f"{ind}  v{r} = buf[s:pos]"]
            pad = self._pads[i]
            if len(pad) == 1:  # a CHAR's logged trailing pad: the bound decoder refuses it
                head.append(f"{ind}  if n and buf[pos - 1] == {pad[0]}: raise ValueError('pad')")
            elif pad:
                head.append(f"{ind}  if n and v{r}[-{len(pad)}:] == {pad!r}: raise ValueError('pad')")
            if codec is not None:
                head += [f"{ind}  try:", f"{ind}    v{r} = v{r}.decode({codec!r})",
                         f"{ind}  except ValueError:", f"{ind}    pass"]
            return head
        col = self.cols[i]
        letter = self._letters[i]
        if letter in ("b", "B"):  # TINYINT: one byte (values.md §2)
            return null + [f"{ind}  v{r} = buf[pos]" if letter == "B" else f"{ind}  v{r} = (buf[pos] ^ 128) - 128",
                           f"{ind}  pos += 1"]
        if letter is not None:  # one struct value (a NULL in its run)
            st = struct.Struct("<" + letter)
            env[f"_u{r}"] = st.unpack_from
            return null + [f"{ind}  v{r}, = _u{r}(buf, pos)", f"{ind}  pos += {st.size}"]
        if col.type_code == 9:  # MEDIUMINT: 3 bytes LE (values.md §2)
            return null + [f"{ind}  e = pos + 3", f"{ind}  if e > len(buf):", f"{ind}    raise IndexError",
                           f"{ind}  v{r} = int.from_bytes(buf[pos:e], 'little', signed={not col.unsigned})",
                           f"{ind}  pos = e"]
        env[f"_d{r}"] = self._bound[i].decode
        size = self._memo[i]
        if size:  # a pure function of its fixed-size bytes, immutable value: memoised by bytes
            env[f"_c{r}"] = self._caches[i]
            if col.type_code in (17, 18) and len(col.meta) == 1:  # misses: the fast reader
                env[f"_d{r}"] = fast_temporal_decoder(col.type_code, col.meta[0], self._bound[i].decode) \
                    or self._bound[i].decode
            miss = miss_lines(col, r, ind + "    ", env) or [f"{ind}    v{r}, e = _d{r}(buf, pos)"]
            return null + [f"{ind}  e = pos + {size}", f"{ind}  k = buf[pos:e]", f"{ind}  v{r} = _c{r}.get(k)",
                           f"{ind}  if v{r} is None:", *miss,
                           f"{ind}    if len(_c{r}) >= {MEMO_MAX}:", f"{ind}      _c{r}.clear()",
                           f"{ind}    _c{r}[k] = v{r}", f"{ind}  pos = e"]
        lb = self._json[i]
        if lb:  # binary JSON: the fast reader (json_fast), the codec when it refuses
            env["_JKO"], env["_JKA"] = JsonKeptObject, JsonKeptArray
            env[f"_jf{r}"] = self._json_readers[i]
            return null + [f"{ind}  s = pos + {lb}", f"{ind}  n = int.from_bytes(buf[pos:s], 'little')",
                           f"{ind}  e = s + n", f"{ind}  if n == 0 or e > len(buf) or s > len(buf):",
                           f"{ind}    v{r}, e = _d{r}(buf, pos)",
                           f"{ind}  else:", f"{ind}    try:", f"{ind}      v{r} = _jf{r}(buf, s, e)",
                           f"{ind}    except Exception:", f"{ind}      v{r}, e = _d{r}(buf, pos)",
                           f"{ind}    else:", f"{ind}      t = type(v{r})",
                           # as the codec: a container keeps its bytes (JsonKept*), a scalar
                           # document is checked for its shortest form by the codec itself
                           f"{ind}      if t is dict or t is list:",
                           f"{ind}        v{r} = (_JKO if t is dict else _JKA)(v{r})",
                           f"{ind}        v{r}.binary = bytes(buf[s:e])",
                           f"{ind}      else:", f"{ind}        v{r}, e = _d{r}(buf, pos)",
                           f"{ind}  pos = e"]
        return null + [f"{ind}  v{r}, pos = _d{r}(buf, pos)"]


MEMO_MAX = 4096
"""Entries of one column's memo of decoded values (cleared when full: memory stays flat)."""
_MEMO_TYPES = frozenset((246, 10, 14, 13, 16, 17, 18, 19))
"""DECIMAL, DATE, YEAR, BIT, TIMESTAMP2, DATETIME2, TIME2: fixed size, immutable values."""


def _memo_size(col: ColumnDesc, bound: Any) -> int:
    """Byte size of a column whose decoded value may be memoised by its bytes, else 0: a
    fixed-size value that is a pure function of those bytes and immutable (Decimal, date,
    datetime, timedelta, int, MysqlDate/MysqlDateTime, ENUM str, SET frozenset)."""
    size = bound.fixed_size
    if not size:
        return 0
    if col.type_code in _MEMO_TYPES:
        return size
    if col.type_code in (253, 254):
        try:
            real, _ = parse_string_meta(col.meta)
        except Exception:  # noqa: BLE001 - the codec reports bad metadata
            return 0
        return size if real in (247, 248) else 0
    return 0


def json_lb(col: ColumnDesc) -> int:
    if col.type_code == 245 and len(col.meta) == 1 and 1 <= col.meta[0] <= 4:
        return col.meta[0]
    return 0


_DECODERS: dict[tuple, TableDecoder] = {}


def table_decoder(cols: Sequence[ColumnDesc]) -> TableDecoder:
    """The (cached, by definition) :class:`TableDecoder` of ``cols``."""
    key = tuple(cols)
    dec = _DECODERS.get(key)
    if dec is None:
        if len(_DECODERS) > 1024:
            _DECODERS.clear()
        dec = _DECODERS[key] = TableDecoder(key)
    return dec


def decode_rows_body(type_code: int, body: bytes, cols: Sequence[ColumnDesc],
                     table_id_size: int = 6) -> tuple[RowsBody, list]:
    """(header, rows) of a rows event: rows as the declarative path gives them — full-width
    tuples with ABSENT (WRITE/DELETE) or (before, after) pairs (UPDATE) — plus null pads.

    Returns ``(header, [(values, pad), ...])`` for WRITE/DELETE and
    ``(header, [((before, pb), (after, pa)), ...])`` for UPDATE."""
    h = parse_rows_header(type_code, body, table_id_size)
    dec = table_decoder(cols)
    buf = h.rows
    n = len(buf)
    pos = 0
    out = []
    once = n == 0 and no_image_columns(h.present, h.after)  # one row of 0-byte images
    if h.after is not None:
        while pos < n or once:
            once = False
            b, pb, pos = dec.decode_full(h.present, buf, pos)
            a, pa, pos = dec.decode_full(h.after, buf, pos)
            out.append(((b, pb), (a, pa)))
    else:
        while pos < n or once:
            once = False
            v, pad, pos = dec.decode_full(h.present, buf, pos)
            out.append((v, pad))
    return h, out
