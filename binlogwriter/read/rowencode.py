"""Compiled row-image encoders: one per table definition and image, built once (format.md §13).

The mirror of :mod:`binlogwriter.read.rowdecode`. The declarative encoder
(:meth:`binlogwriter.values.row.RowImageCodec.encode`) loops over the table's columns and calls
each present column's bound codec. Here, for each (table definition, present-columns bitmap)
pair, Python source is generated once and compiled:

* the null bitmap over the present columns and its padding bits are computed as the
  declarative encoder computes them;
* runs of consecutive integer columns other than MEDIUMINT are packed with one precomputed
  ``struct`` format when none of them is NULL — the integer codecs pack each value with the
  same one-letter little-endian format, so the run's bytes are theirs concatenated;
* every other column calls its bound codec's ``encode`` (the closure the declarative path
  calls), so those bytes are the declarative path's by construction.

An encoder takes the values of the **present** columns only (the compact shape the compiled
decoders give) and the null-bitmap padding. On anything unusual — a NULL in a NOT NULL
column, ABSENT, a value a codec refuses — it re-runs the declarative encoder, so the bytes
and the typed errors are the same (property-tested in tests/read/test_rowencode_props.py).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from binlogwriter.read.canonical import fixed_rule, string_rule
from binlogwriter.values.base import ABSENT, ColumnDesc
from binlogwriter.values.registry import bind_column
from binlogwriter.values.row import row_codec

__all__ = ["TableEncoder", "table_encoder"]

_STRUCT_INT = {1: "b", 2: "h", 3: "i", 8: "q"}


def _int_letter(col: ColumnDesc) -> str | None:
    """The struct letter the integer codec packs this column with (values.md §2), or None."""
    letter = _STRUCT_INT.get(col.type_code)
    if letter is None:
        return None
    return letter.upper() if col.unsigned else letter


class TableEncoder:
    """Row-image encoders of one table definition, compiled per present-columns bitmap."""

    __slots__ = ("cols", "_bound", "_letters", "_images", "_reference", "verifiers")

    def __init__(self, cols: Sequence[ColumnDesc]) -> None:
        self.cols = tuple(cols)
        self._bound = [bind_column(c) for c in self.cols]
        self._letters = [_int_letter(c) for c in self.cols]
        self._images: dict[tuple, Any] = {}
        self._reference = row_codec(self.cols)
        self.verifiers: dict[tuple, Any] = {}
        """:func:`image_verifier` by present-columns bitmap."""

    def image(self, present: Sequence[bool]):
        """``encode(values, null_pad) -> bytes`` for this bitmap; ``values`` are those of the
        present columns only, in column order."""
        key = tuple(present)
        fn = self._images.get(key)
        if fn is None:
            if len(key) != len(self.cols):
                from binlogwriter.errors import ValueEncodeError

                raise ValueEncodeError(f"row image needs {len(self.cols)} present flags, got {len(key)}")
            fn = self._images[key] = self._compile(key)
        return fn

    def _compile(self, present: tuple):
        idx = [i for i, p in enumerate(present) if p]
        k = len(idx)
        nb = (k + 7) >> 3
        rem = k & 7
        ref = self._reference
        width = len(present)

        def fallback(vals: Sequence[Any], pad: int) -> bytes:
            full: list[Any] = [ABSENT] * width
            if len(vals) != k:
                return ref.encode(present, vals, pad)  # the declarative width error
            for r, i in enumerate(idx):
                full[i] = vals[r]
            return ref.encode(present, full, pad)

        env: dict[str, Any] = {"_fallback": fallback, "_ABSENT": ABSENT}
        lines = ["def encode(vals, pad):", "  try:"]
        if k:
            lines.append(f"    {''.join(f'v{r}, ' for r in range(k))}= vals")
        else:
            lines.append("    if len(vals):")
            lines.append("      raise ValueError")
        lines.append("    bits = 0")
        for r, i in enumerate(idx):
            if self.cols[i].nullable:
                lines.append(f"    if v{r} is None:")
                lines.append(f"      bits |= {1 << r}")
            else:
                lines.append(f"    if v{r} is None:")
                lines.append("      raise ValueError")
        if rem:
            mask = (0xFF << rem) & 0xFF
            lines.append("    if pad:")
            lines.append(f"      bits |= ({mask} if pad == -1 else pad & {mask}) << {8 * (nb - 1)}")
        lines.append(f"    out = [bits.to_bytes({nb}, 'little')]")
        j = 0
        while j < k:
            if self._letters[idx[j]] is not None:
                run = [j]
                while j + len(run) < k and self._letters[idx[j + len(run)]] is not None:
                    run.append(j + len(run))
                fmt = struct.Struct("<" + "".join(self._letters[idx[r]] for r in run))
                env[f"_s{j}"] = fmt.pack
                mask = sum(1 << r for r in run)
                lines.append(f"    if not bits & {mask}:")
                lines.append(f"      out.append(_s{j}({', '.join(f'v{r}' for r in run)}))")
                lines.append("    else:")
                for r in run:
                    env[f"_e{r}"] = self._bound[idx[r]].encode
                    lines.append(f"      if v{r} is not None:")
                    lines.append(f"        out.append(_e{r}(v{r}))")
                j += len(run)
                continue
            env[f"_e{j}"] = self._bound[idx[j]].encode
            lines.append(f"    if v{j} is not None:")
            lines.append(f"      if v{j} is _ABSENT:")
            lines.append("        raise ValueError")
            lines.append(f"      out.append(_e{j}(v{j}))")
            j += 1
        lines.append("    return b''.join(out)")
        lines.append("  except Exception:")
        lines.append("    return _fallback(vals, pad)")
        code = compile("\n".join(lines), f"<row encoder {self.cols[0].table if self.cols else ''!r}>", "exec")
        exec(code, env)  # noqa: S102 - source generated above from column types only
        return env["encode"]


_ENCODERS: dict[tuple, TableEncoder] = {}


def table_encoder(cols: Sequence[ColumnDesc]) -> TableEncoder:
    """The (cached, by definition) :class:`TableEncoder` of ``cols``."""
    key = tuple(cols)
    enc = _ENCODERS.get(key)
    if enc is None:
        if len(_ENCODERS) > 1024:
            _ENCODERS.clear()
        enc = _ENCODERS[key] = TableEncoder(key)
    return enc


def _json_decoder(reference: Any, lb: int):
    """A JSON column's ``decode(buf, pos)``: the fast reader (json_fast), the codec when it
    refuses — the codec's values either way (tests/values/test_json_fast_props.py)."""
    from binlogwriter.values.json_fast import decode_json_at
    from binlogwriter.values.types import JSON_NULL

    def decode(buf: Any, pos: int) -> tuple[Any, int]:
        s = pos + lb
        e = s + int.from_bytes(buf[pos:s], "little")
        if e == s or e > len(buf) or s > len(buf):
            return reference(buf, pos)
        try:
            v = decode_json_at(buf, s, e)
        except Exception:  # noqa: BLE001 - refused: the codec decides
            return reference(buf, pos)
        return (JSON_NULL if v is None else v), e
    return decode


_OK_MAX = 4096
"""Entries of one column's set of value bytes known to re-encode to themselves."""


def image_verifier(cols: Sequence[ColumnDesc], present: Sequence[bool]):
    """``verify(buf, pos) -> end`` for one row image of ``cols``: the position after the
    image when decoding and encoding it again gives its bytes back, -1 (or an exception)
    when not shown (format.md §13).

    The image's bytes are its null bitmap then each non-NULL present column's value bytes,
    and the encoder writes each value from that value alone, so the image re-encodes to
    itself when its bitmap does (its NULL bits are the decoded Nones and its padding is
    kept; a NULL bit on a NOT NULL column is not shown here) and every value does. Integer
    values always do (``struct`` both ways; MEDIUMINT three LE bytes); every other value is
    decoded by its codec and encoded again, and fixed-size values, length-prefixed strings
    and binary JSON documents whose bytes came back are remembered by their bytes (up to
    2 KiB each), per column (a pure function of those bytes)."""
    from binlogwriter.read.rowdecode import table_decoder

    enc = table_encoder(cols)
    key = tuple(present)
    hit = enc.verifiers.get(key)
    if hit is not None:
        return hit
    dec = table_decoder(cols)
    cols = dec.cols
    idx = [i for i, p in enumerate(present) if p]
    k = len(idx)
    nb = (k + 7) >> 3
    env: dict[str, Any] = {}
    lines = ["def verify(buf, pos):"]
    if nb == 1:
        lines.append("  bits = buf[pos]")
    elif nb:
        lines.append(f"  bits = int.from_bytes(buf[pos:pos + {nb}], 'little')")
    else:
        lines.append("  bits = 0")
    lines.append(f"  pos += {nb}")
    notnull = sum(1 << r for r, i in enumerate(idx) if not cols[i].nullable)
    if notnull:
        lines += [f"  if bits & {notnull}:", "    return -1"]
    for r, i in enumerate(idx):
        lines += _column_lines(r, i, cols[i], enc, dec, env)
    lines += ["  if pos > len(buf):", "    return -1", "  return pos"]
    code = compile("\n".join(lines), f"<row verifier {cols[0].table if cols else ''!r}>", "exec")
    exec(code, env)  # noqa: S102 - source generated above from column types only
    if len(enc.verifiers) >= 256:
        enc.verifiers.clear()
    enc.verifiers[key] = env["verify"]
    return env["verify"]


def _column_lines(r: int, i: int, col: ColumnDesc, enc: TableEncoder, dec: Any, env: dict[str, Any]) -> list[str]:
    """The verifier's lines for the ``r``-th present column (column ``i`` of the table) when
    its bit says it is not NULL, its helpers put in ``env``: an integer is skipped (it always
    re-encodes); a value with an exact rule on its bytes is checked by it; a short string by
    the sufficient rule, else (and every other value) by :func:`_codec_lines`."""
    lines = [f"  if not bits >> {r} & 1:"]
    letter = enc._letters[i]
    if letter is not None or col.type_code == 9:
        return lines + [f"    pos += {struct.calcsize('<' + letter) if letter else 3}"]
    env[f"_d{r}"] = dec._bound[i].decode
    env[f"_e{r}"] = enc._bound[i].encode
    dec_rule = fixed_rule(col)
    if dec_rule is not None:  # exact: the bytes decide (canonical.py)
        env[f"_h{r}"] = dec_rule[1]
        return lines + [f"    e = pos + {dec_rule[0]}", f"    if not _h{r}(buf[pos:e]):", "      return -1",
                        "    pos = e"]
    rule = string_rule(col)
    ind = "    "
    if rule is not None:  # sufficient: a short value (canonical.py); else the codec decides
        size_of = "buf[pos]" if rule.lb == 1 else f"int.from_bytes(buf[pos:pos + {rule.lb}], 'little')"
        lines += [f"    n = {size_of}", f"    e = pos + {rule.lb} + n"]
        cond = [f"n <= {rule.max_len}"]
        if rule.pad >= 0:
            cond.append(f"(not n or buf[e - 1] != {rule.pad})")
        if rule.ascii:
            cond.append(f"buf[pos + {rule.lb}:e].isascii()")
        lines += [f"    if {' and '.join(cond)}:", "      pos = e", "    else:"]
        ind = "      "
    return lines + [ind + b for b in _codec_lines(r, i, col, dec, env)]


def _codec_lines(r: int, i: int, col: ColumnDesc, dec: Any, env: dict[str, Any]) -> list[str]:
    """The lines checking the ``r``-th present column's value by its codec: decoded and
    encoded again. Fixed-size values, length-prefixed strings and binary JSON documents whose
    bytes came back are remembered by their bytes (up to 2 KiB each, at most :data:`_OK_MAX`)."""
    from binlogwriter.read.rowdecode import json_lb

    size = dec._memo[i]
    lb = json_lb(col)
    if lb:
        env[f"_d{r}"] = _json_decoder(dec._bound[i].decode, lb)
    elif dec._strings[i] is not None:  # a length-prefixed string (plain_string_layout)
        lb = dec._strings[i][0]
    if not (size or lb):
        return ["p0 = pos", f"v, pos = _d{r}(buf, pos)", f"if _e{r}(v) != buf[p0:pos]:", "  return -1"]
    env[f"_ok{r}"] = set()
    if size:
        body = [f"e = pos + {size}"]
    else:
        body = [f"e = pos + {lb} + int.from_bytes(buf[pos:pos + {lb}], 'little')"]
    return body + ["k = buf[pos:e]", f"if k not in _ok{r}:", f"  v, e = _d{r}(buf, pos)",
                   f"  if _e{r}(v) != k:", "    return -1",
                   f"  if len(_ok{r}) >= {_OK_MAX}:", f"    _ok{r}.clear()",
                   "  if len(k) <= 2048:", f"    _ok{r}.add(k)", "pos = e"]


__all__ += ["image_verifier"]
