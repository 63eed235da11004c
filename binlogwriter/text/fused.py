"""The ``###`` text of a rows event straight from its row bytes: one function per table
definition and kind of event (column bitmaps), compiled once (issue 11, ``inspect -vv``).

The reference is two steps: the compiled row decoder (:mod:`binlogwriter.read.rowdecode`,
proven equal to the declarative row codec) gives each image's values, then the table's
``###`` printer (:class:`binlogwriter.text.rows.ImagePrinter`) prints them. Here the two are
fused into one generated loop over the rows part of the event (format.md §13: per row the null
bitmap of the present columns, then their non-NULL values in column order):

* each column is read by the very source lines the row decoder generates for it (struct runs
  for fixed-width integers, inline strings, the JSON reader, the bound codec), so the values
  are the decoder's values;
* each value is printed by the printer's own pieces: the ``###   @N=`` head, the renderer of
  its type family and the constant ``/* TYPE meta=… nullable=… is_null=0 */`` tail (``NULL``
  with its ``is_null=1`` tail for a NULL), the common cases inline as the printer has them;
* a column whose value is a pure function of a fixed number of bytes (DECIMAL, DATE, YEAR,
  BIT, TIMESTAMP2, DATETIME2, TIME2, ENUM/SET: the decoder's memo rule) is printed from a
  per-column memo of *text* by those bytes (cleared when full: memory stays flat), decoded
  and rendered only on a miss;
* a TINYINT is printed from a table of its 256 texts by its byte; a value whose text is its
  stored bytes quoted (plain strings, GEOMETRY) is quoted inline, escaped by one C pass;
  DECIMAL's text on a memo miss is made from its digit groups (inline_values.py);
* no tuple of values, no call per row or value beyond the renderers the printer calls.

Anything malformed raises (a cut image, an invalid value the inline readers refuse, a
renderer's ValueError): the caller then takes the reference path, which gives the text or
the located error. A property test (tests/text/test_text_fused_props.py) holds the text equal to
the reference's for random schemas × every column type × flavor × image × NULLs.
"""

from __future__ import annotations

import codecs
import struct
from typing import Any

from binlogwriter.read.inline_values import decimal_text_lines, miss_lines
from binlogwriter.read.rowdecode import MEMO_MAX, TableDecoder
from binlogwriter.values._text import BYTES_MARIADB, BYTES_MYSQL, ESCAPED_MARIADB, ESCAPED_MYSQL
from binlogwriter.values.integer import TEXT_HALF
from binlogwriter.values.json_fast import decode_json_at
from binlogwriter.values.temporal_fast import fast_temporal_decoder
from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    FRACTIONS,
    datetime2_size,
    datetime_parts_source,
    timestamp2_size,
)

__all__ = ["compile_rows_text"]

_COMPILED = [0]
_MEMO_BYTES = 512
"""Largest JSON document whose text is memoised (memos hold at most _MEMO_MAX texts each)."""
_ESCAPES = {"mariadb": ESCAPED_MARIADB, "mysql": ESCAPED_MYSQL}
"""Family -> the bytes quote_bytes escapes."""
_TABLES = {"mariadb": BYTES_MARIADB, "mysql": BYTES_MYSQL}
"""Family -> quote_bytes' text of each byte (a byte, or its escape)."""


class _Source:
    """The generated source and its environment (names bound into the compiled function)."""

    def __init__(self, dec: TableDecoder, pr: Any) -> None:
        self.dec, self.pr = dec, pr
        self.env: dict[str, Any] = {"Q": "'", "_IE": IndexError}
        self.n = 0  # columns named so far (one name space for both images of an UPDATE)

    def image(self, present: tuple, ind: str) -> tuple[list[str], str]:
        """(lines reading one image at ``pos`` into text pieces, f-string of its text)."""
        dec, env = self.dec, self.env
        idx = [i for i, p in enumerate(present) if p]
        k = len(idx)
        nb = (k + 7) >> 3
        base = self.n
        self.n += k
        # the null bitmap as one small int per byte (bit r of the image: byte r >> 3, bit r & 7)
        if nb == 1:
            lines = [f"{ind}b0 = buf[pos]", f"{ind}pos += 1"]
        elif nb:
            lines = [f"{ind}{', '.join(f'b{x}' for x in range(nb))}, = buf[pos:pos + {nb}]", f"{ind}pos += {nb}"]
        else:
            lines = []
        text = []
        tables = [_int_table(dec, self.pr, i) for i in idx]  # TINYINT: its text by its byte
        j = 0
        while j < k:
            letter = dec._letters[idx[j]] if tables[j] is None else None
            run = [j]
            if letter is not None:
                while j + len(run) < k and dec._letters[idx[j + len(run)]] is not None and tables[j + len(run)] is None:
                    run.append(j + len(run))
            if len(run) > 1:  # the decoder's struct run: one unpack when none is NULL
                fmt = struct.Struct("<" + "".join(dec._letters[idx[r]] for r in run))
                env[f"_s{base + j}"] = fmt.unpack_from
                names = ", ".join(f"v{base + r}" for r in run)
                masks: dict[int, int] = {}
                for r in run:
                    masks[r >> 3] = masks.get(r >> 3, 0) | 1 << (r & 7)
                test = " | ".join(f"b{x} & {m}" for x, m in masks.items())
                lines += [f"{ind}if not ({test}):",
                          f"{ind}  {names}, = _s{base + j}(buf, pos)", f"{ind}  pos += {fmt.size}",
                          f"{ind}else:"]
                for r in run:
                    lines += self._read(r, base + r, idx[r], ind + "  ")
            elif tables[j] is not None:  # TINYINT: its text (value and tail) by its byte
                g = base + j
                env[f"_tt{g}"], env[f"N{g}"] = tables[j], self.pr._column(idx[j])[3]
                lines += [f"{ind}if {_bit(j)}:", f"{ind}  p{g} = N{g}", f"{ind}else:",
                          f"{ind}  p{g} = _tt{g}[buf[pos]]", f"{ind}  pos += 1"]
            else:
                lines += self._read(j, base + j, idx[j], ind)
            for r in run:
                text.append(self._text(r, base + r, idx[r]))
            j += len(run)
        lines += [f"{ind}if pos > end_:", f"{ind}  raise _IE('row image runs past the end of the rows data')"]
        return lines, "".join(text)

    def _read(self, r: int, g: int, i: int, ind: str) -> list[str]:
        """Lines reading column ``i`` (bit ``r`` of the null bitmap) into ``v<g>``, or for a
        memoised column its text piece ``p<g>``."""
        dec, env = self.dec, self.env
        size = dec._memo[i]
        lb = dec._json[i]
        if lb:  # binary JSON: its text memoised by its length and bytes, read by the decoder's lines
            head, fn, tail, null = self.pr._column(i)
            # one memo per column, shared by both images of an UPDATE and every bitmap (an
            # unchanged document prints from the before image's text)
            memo = self.pr._blocks.get(("fused-json", i))
            if memo is None:
                memo = self.pr._blocks[("fused-json", i)] = {}
            env[f"_t{g}"], env[f"F{g}"], env[f"T{g}"], env[f"N{g}"] = memo, fn, tail, null
            lines = dec._one(env, g, i, ind + "  ")
            if lines[0] != f"{ind}  if bits >> {g} & 1:" or lines[2] != f"{ind}  else:":
                raise RuntimeError("unexpected row decoder lines")  # the shape _one writes
            # the fast reader itself, not its memo of values: the text is memoised here, and
            # the memo's fresh copy of each document is not needed to print it
            env[f"_jf{g}"] = decode_json_at
            return [f"{ind}if {_bit(r)}:", f"{ind}  p{g} = N{g}", f"{ind}else:",
                    f"{ind}  e = pos + {lb} + int.from_bytes(buf[pos:pos + {lb}], 'little')",
                    f"{ind}  k = buf[pos:e] if e - pos <= {_MEMO_BYTES} else None",  # small documents only
                    f"{ind}  p{g} = _t{g}.get(k)", f"{ind}  if p{g} is None:",
                    *lines[3:],  # the value (the NULL case is above)
                    f"{ind}    p{g} = F{g}(v{g}) + T{g}",
                    f"{ind}    if k is not None:",
                    f"{ind}      if len(_t{g}) >= {MEMO_MAX}:", f"{ind}        _t{g}.clear()",
                    f"{ind}      _t{g}[k] = p{g}", f"{ind}  else:", f"{ind}    pos = e"]
        stored = _stored_layout(dec, self.pr, i)
        if stored is not None:
            # a length-prefixed value whose text is its stored bytes quoted (the renderer's
            # own rule), inline when there is nothing to escape, else escaped byte by byte
            # by one C pass over the bytes read as Latin-1 (quote_bytes' table)
            lb, pad, least = stored
            env[f"N{g}"], env[f"T{g}"] = self.pr._column(i)[3], self.pr._column(i)[2]
            fam = self.pr.family
            env["_esc"], env["_bt"], env["_cm"] = _ESCAPES.get(fam, ESCAPED_MYSQL), _TABLES.get(fam, BYTES_MYSQL), \
                codecs.charmap_decode
            n = ("buf[pos]" if lb == 1 else "buf[pos] | buf[pos + 1] << 8" if lb == 2
                 else f"int.from_bytes(buf[pos:pos + {lb}], 'little')")
            lines = [f"{ind}if {_bit(r)}:", f"{ind}  p{g} = N{g}", f"{ind}else:",
                     f"{ind}  n = {n}", f"{ind}  s = pos + {lb}", f"{ind}  pos = s + n", f"{ind}  k = buf[s:pos]"]
            if least:  # GEOMETRY: its 4-byte SRID at least (the codec refuses less)
                lines.append(f"{ind}  if n < {least}: raise ValueError('short')")
            if len(pad) == 1:  # a CHAR's logged trailing pad: the codec refuses it (rowdecode.py)
                lines.append(f"{ind}  if n and buf[pos - 1] == {pad[0]}: raise ValueError('pad')")
            elif pad:
                lines.append(f"{ind}  if n and k[-{len(pad)}:] == {pad!r}: raise ValueError('pad')")
            return lines + [f"{ind}  if len(k.translate(None, _esc)) == n:",  # no byte to escape
                            f"{ind}    p{g} = f\"'{{k.decode('utf-8', 'surrogateescape')}}'{{T{g}}}\"",
                            f"{ind}  else:",
                            f"{ind}    p{g} = f\"'{{_cm(k, 'strict', _bt)[0].encode('latin-1')"
                            f".decode('utf-8', 'surrogateescape')}}'{{T{g}}}\""]
        if not size:
            # the decoder's own lines, its names numbered by ``g`` (unique across both images
            # of an UPDATE), its null test on bit ``r`` of this image's bitmap
            lines = dec._one(env, g, i, ind)
            if lines[0] != f"{ind}if bits >> {g} & 1:":
                raise RuntimeError("unexpected row decoder lines")  # the shape _one writes
            lines[0] = f"{ind}if {_bit(r)}:"
            return lines
        # a fixed-size value: its text memoised by its bytes, made by the column's miss function
        env[f"_t{g}"], env[f"_m{g}"] = _miss(dec, self.pr, i)
        env[f"N{g}"] = self.pr._column(i)[3]
        return [f"{ind}if {_bit(r)}:", f"{ind}  p{g} = N{g}", f"{ind}else:",
                f"{ind}  e = pos + {size}", f"{ind}  k = buf[pos:e]", f"{ind}  p{g} = _t{g}.get(k)",
                f"{ind}  if p{g} is None:", f"{ind}    p{g} = _m{g}(buf, pos, k)", f"{ind}  pos = e"]

    def _text(self, r: int, g: int, i: int) -> str:
        """The f-string piece of column ``i``: head, then its text (the printer's, inline as
        :meth:`_ImagePrinter._compile` has it)."""
        env, pr = self.env, self.pr
        head, fn, tail, null = pr._column(i)
        if not head.isascii() or not head.isprintable() or any(c in head for c in "{}\\\"'"):
            raise ValueError(f"column head {head!r} is not a plain literal")  # never: "###   @N="
        if f"_tt{g}" in env or self.dec._memo[i] or self.dec._json[i] or _stored_layout(self.dec, pr, i):
            return f"\\n{head}{{p{g}}}"
        env[f"F{g}"], env[f"T{g}"], env[f"N{g}"] = fn, tail, null
        a = f"v{g}"
        return f"\\n{head}{{N{g} if {a} is None else {pr.value_expr(i, a, g, env)}}}"


def _int_table(dec: TableDecoder, pr: Any, i: int) -> tuple[str, ...] | None:
    """The 256 texts (value and tail) of TINYINT column ``i`` by its byte, as the f-string
    of :meth:`_Source._text` prints its value, or None for any other column."""
    col = dec.cols[i]
    if dec._letters[i] not in ("b", "B") or pr.types[i] != col.type_code:
        return None
    key = ("fused-tinyint", i)
    hit = pr._blocks.get(key)
    if hit is None:
        head, fn, tail, null = pr._column(i)
        # columns whose renderers are one function (same code, same closure values) and whose
        # tails are equal share one table (a wide table of TINYINTs builds it once)
        try:
            shared = (dec._letters[i], col.type_code, tail, fn.__code__,
                      tuple(c.cell_contents for c in fn.__closure__ or ()))
            hash(shared)
        except Exception:  # noqa: BLE001 - not a plain function: its own table
            shared = None
        hit = _TINY.get(shared) if shared is not None else None
        if hit is None:
            half = TEXT_HALF[col.type_code]
            values = range(256) if dec._letters[i] == "B" else [(x ^ 128) - 128 for x in range(256)]
            try:
                hit = tuple(str(v) + tail if 0 <= v < half else fn(v) + tail for v in values)
            except Exception:  # noqa: BLE001 - a renderer refusing a value: the general lines
                hit = ()
            if shared is not None:
                if len(_TINY) >= 64:
                    _TINY.clear()
                _TINY[shared] = hit
        pr._blocks[key] = hit
    return hit or None


_TINY: dict[tuple, tuple[str, ...]] = {}
"""TINYINT text tables by (struct letter, type, tail, renderer code and closure values)."""


def _stored_layout(dec: TableDecoder, pr: Any, i: int) -> tuple[int, bytes, int] | None:
    """(length bytes, refused trailing pad, least length) of column ``i`` when its value is a
    little-endian length then that many bytes whose text is those bytes quoted, else None:
    a plain string (values/strings.plain_string_layout, the renderer's ``quotes_stored_bytes``)
    or a renderer's own ``stored_layout`` (GEOMETRY: SRID and WKB as stored, values.md §8)."""
    fn = pr._column(i)[1]
    string = dec._strings[i]
    if string is not None and getattr(fn, "quotes_stored_bytes", False):
        return string[0], dec._pads[i], 0
    layout = getattr(fn, "stored_layout", None)
    if layout is not None and dec.cols[i].type_code == 255 and 1 <= layout[0] <= 4:
        return layout[0], b"", layout[1]
    return None


def _bit(r: int) -> str:
    """The test of bit ``r`` of an image's null bitmap (1: NULL), on its byte ``b<r >> 3>``."""
    return f"b{r >> 3} & {1 << (r & 7)}"


def _miss(dec: TableDecoder, pr: Any, i: int) -> tuple[dict, Any]:
    """(memo, ``miss(buf, pos, k) -> text``) of fixed-size column ``i``: its text (value
    and ``-vv`` tail) from its bytes ``k`` at ``pos``, kept in the memo (cleared when
    full); compiled once per column and printer, shared by every image."""
    key = ("fused-miss", i)
    hit = pr._blocks.get(key)
    if hit is not None:
        return hit
    col, size = dec.cols[i], dec._memo[i]
    head, fn, tail, null = pr._column(i)
    decode = dec._bound[i].decode
    if col.type_code in (17, 18) and len(col.meta) == 1:
        decode = fast_temporal_decoder(col.type_code, col.meta[0], decode) or decode
    memo: dict = {}
    env: dict[str, Any] = {"_d0": decode, "_t0": memo, "F0": fn, "T0": tail, "Q": "'", "_IE": IndexError}
    slow = ["v0, e = _d0(buf, pos)", f"if e != pos + {size}:", "  raise _IE('value size')", "p0 = F0(v0) + T0"]
    lines = _temporal_text(col, 0, size, slow, env)
    if lines is None:  # DECIMAL: its text from its digit groups
        lines = decimal_text_lines(col, 0, "", env, slow)
    if lines is None:  # the decoder's inline reader (or the codec), then the renderer
        lines = [line[2:] for line in miss_lines(col, 0, "  ", env) or []] or ["v0, e = _d0(buf, pos)"]
        lines += slow[1:]
    src = ["def miss(buf, pos, k):", f"  e = pos + {size}", *["  " + line for line in lines],
           f"  if len(_t0) >= {MEMO_MAX}:", "    _t0.clear()", "  _t0[k] = p0", "  return p0"]
    exec(compile("\n".join(src), f"<### text of {col.table}.{col.name}>", "exec"), env)  # noqa: S102
    hit = pr._blocks[key] = (memo, env["miss"])
    return hit


def compile_rows_text(dec: TableDecoder, pr: Any, present: tuple, after: tuple | None) -> Any:
    """``rows(buf, pos, end, pre, mid) -> list[str]``: per row of the rows part ``buf[pos:end]``,
    ``pre`` then the ``###   @N=…`` lines of its image, and for an UPDATE (``after`` given)
    ``mid`` then the after image's lines: exactly the text ``_ImagePrinter.block`` of ``pr``
    gives the values the decoder ``dec`` (of the printer's columns) reads. Raises on anything
    the reference path must handle. Compiled once per printer and bitmaps."""
    key = ("fused-rows", present, after)
    fn = pr._blocks.get(key)
    if fn is not None:
        return fn
    src = _Source(dec, pr)
    body, text = src.image(present, "    ")
    if after is not None:
        lines2, text2 = src.image(after, "    ")
        body += [f'    tb_ = f"{{pre}}{text}"', *lines2, f'    app(tb_ + f"{{mid}}{text2}")']
    else:
        body.append(f'    app(f"{{pre}}{text}")')
    lines = ["def rows(buf, pos, end_, pre, mid):", "  out = []", "  app = out.append",
             "  while pos < end_:", *body, "  return out"]
    table = dec.cols[0].table if dec.cols else ""
    _COMPILED[0] += 1
    name = f"<### rows of {table!r} #{_COMPILED[0]}>"  # one name per function: profiles tell them apart
    exec(compile("\n".join(lines), name, "exec"), src.env)  # noqa: S102 - from column types only
    if len(pr._blocks) >= MEMO_MAX // 8:  # all caches: memory stays flat with many bitmaps
        pr._blocks.clear()
    fn = pr._blocks[key] = src.env["rows"]
    return fn


_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _temporal_text(col: Any, g: int, size: int, slow: list[str], env: dict) -> list[str] | None:
    """Lines setting ``p<g>`` to the text of a TIMESTAMP2 / DATETIME2 value straight from its
    bytes ``k`` (values.md §4; the text of ``values/timestamp.py`` / ``values/datetime.py``
    renderers), in the common case the decoder's inline reader takes (read/inline_values.py:
    a valid date, a fraction below one second, a non-zero TIMESTAMP); ``slow`` (decode, then
    render) otherwise. None for other columns."""
    code, meta = col.type_code, bytes(col.meta)
    if code not in (17, 18) or len(meta) != 1 or not 0 <= meta[0] <= 6:
        return None
    fsp = meta[0]
    fb, mul, limit = FRACTIONS[fsp][:3]
    if size != (datetime2_size if code == 18 else timestamp2_size)(fsp):
        return None
    sh = 8 * fb
    frac = "''"
    if fsp:  # _text._frac of the microseconds
        us = f"(x_ & {(1 << sh) - 1})" + (f" * {mul}" if mul != 1 else "")
        frac = f"'.' + str({us} // {10 ** (6 - fsp)}).zfill({fsp})"
    bad = f" or x_ & {(1 << sh) - 1} > {limit}" if fb else ""
    lines = [f"if len(k) != {size}:", *["  " + x for x in slow], "else:", "  x_ = int.from_bytes(k, 'big')"]
    if code == 17:  # seconds since the epoch as C's %d of 32 bits
        lines += [f"  sec_ = x_ >> {sh}" if sh else "  sec_ = x_", f"  if sec_ == 0{bad}:",
                  *["    " + x for x in slow], "  else:",
                  f"    p{g} = str(sec_ - 4294967296 if sec_ >= 2147483648 else sec_) + {frac} + T{g}"]
        return lines
    env["_MD"] = _MONTH_DAYS
    lines += [f"  ip_ = (x_ >> {sh}) - {DATETIME2_BIAS}", f"  y_, mo_, d_, h_, mi_, s_ = {datetime_parts_source('ip_')}",
              f"  if ip_ < 0{bad} or not (0 < y_ <= 9999 and 0 < mo_ and 0 < d_ <= _MD[mo_] and h_ < 24"
              " and mi_ < 60 and s_ < 60):",
              *["    " + x for x in slow], "  else:",
              f"    p{g} = f\"'{{y_:04d}}-{{mo_:02d}}-{{d_:02d}} {{h_:02d}}:{{mi_:02d}}:{{s_:02d}}\" + {frac} + Q + T{g}"]
    return lines
