"""String families (text in the column's charset, binary strings as ``0x`` hex, ENUM/SET, JSON, GEOMETRY WKB): a consumer value -> canonical candidates."""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from binlogwriter.compare._numbers import is_int
from binlogwriter.compare._results import (
    BINARY,
    HEX,
    TEXTY,
    JsonDoc,
    Reject,
    WkbOnly,
    cannot,
    short,
    wrong_type,
)
from binlogwriter.schema.model import Column


def _charset_coll(col: Column, flavor: str) -> Any:
    from binlogwriter.charsets import default_collation

    try:
        return default_collation(col.charset or "utf8mb4", flavor)
    except Exception:  # noqa: BLE001 - unknown charset: reported where it matters
        return None


def _decode_text(b: bytes, col: Column, flavor: str) -> str:
    coll = _charset_coll(col, flavor)
    if coll is None or coll.codec is None:
        raise cannot(f"no Python codec for charset {col.charset}")
    try:
        return coll.decode(b)
    except UnicodeDecodeError as e:
        raise cannot(f"bytes not valid {col.charset}: {e.reason} at {e.start}") from None


def _is_binary(col: Column) -> bool:
    return col.type in BINARY or col.type not in TEXTY and col.type.endswith("BLOB")


def n_string(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if _is_binary(col):
        return _n_binary(v, col, F, flavor)
    strip = (lambda s: s.rstrip(" ")) if col.type == "CHAR" else (lambda s: s)
    if isinstance(v, str):
        out = [strip(v)]
        if "text_surrogateescape" in F:
            try:
                out.append(strip(_decode_text(v.encode("utf-8", "surrogateescape"), col, flavor)))
            except (Reject, UnicodeEncodeError):
                pass
        return out
    if isinstance(v, bytes | bytearray | memoryview) and ("text_bytes" in F or "text_surrogateescape" in F):
        return [strip(_decode_text(bytes(v), col, flavor))]
    raise wrong_type(v, col)


def _binary_hex(b: bytes, col: Column) -> str:
    if col.type == "BINARY":
        b = b.ljust(col.length or 1, b"\0")
    return "0x" + b.hex()


def _n_binary(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if isinstance(v, bytes | bytearray | memoryview):
        return [_binary_hex(bytes(v), col)]
    if isinstance(v, str):
        out = [v] if HEX.match(v) else []  # the canonical form itself
        if "binary_text" in F:
            try:
                out.append(_binary_hex(v.encode("utf-8", "surrogateescape"), col))
            except UnicodeEncodeError:
                pass
        if "binary_hex" in F and re.fullmatch(r"(?:0x)?[0-9a-fA-F]*", v) and len(v) % 2 == 0:
            out.append(_binary_hex(bytes.fromhex(v[2:] if v.startswith("0x") else v), col))
        if "binary_base64" in F:
            try:
                out.append(_binary_hex(base64.b64decode(v, validate=True), col))
            except (binascii.Error, ValueError):
                pass
        if out:
            return out
        raise Reject("type", f"str for {col.type} (binary) that no accepted form reads")
    raise wrong_type(v, col)


def n_enum_set(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    members = col.members
    if isinstance(v, bytes | bytearray) and "text_bytes" in F:
        v = _decode_text(bytes(v), col, flavor)
    if col.type == "ENUM":
        if isinstance(v, str):
            return [v]
        if is_int(v) and "enum_index" in F:
            if v == 0:
                return [""]
            if 1 <= v <= len(members):
                return [members[v - 1]]
            raise cannot(f"index {v} of an ENUM with {len(members)} members")
        raise wrong_type(v, col)
    order = {m: i for i, m in enumerate(members)}

    def joined(names: Any) -> str:
        names = list(names)
        bad = [n for n in names if not isinstance(n, str) or n not in order]
        if bad:
            raise cannot(f"{short(bad[0])} is not a member of the SET")
        return ",".join(sorted(set(names), key=order.__getitem__))

    if isinstance(v, set | frozenset | list | tuple):
        return [joined(v)]
    if isinstance(v, str):
        out = [v]
        if "set_text" in F:
            out.append(joined(v.split(",")) if v else "")
        if "set_mask" in F and "int_text" in F and v.isdigit():
            out += n_enum_set(int(v), col, F, flavor)
        return out
    if is_int(v) and "set_mask" in F:
        if v < 0 or v >> len(members):
            raise cannot(f"mask {v} has bits beyond the SET's {len(members)} members")
        return [",".join(m for i, m in enumerate(members) if v >> i & 1)]
    raise wrong_type(v, col)


def json_key(v: Any, depth: int = 0) -> Any:
    """A JSON value in comparable form: bytes -> str (UTF-8), numbers -> Decimal, tuples ->
    lists, dict keys -> str; anything else -> its text (datetime, …) for printing."""
    if depth > 200:
        raise cannot("JSON nested deeper than 200")
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, bytes | bytearray | memoryview):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise cannot("JSON bytes not valid UTF-8") from None
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return Decimal(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise cannot(f"{v!r} in JSON")
        return Decimal(repr(v))
    if isinstance(v, Decimal):
        return v
    if isinstance(v, Mapping):
        return {str(json_key(k, depth + 1)): json_key(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [json_key(x, depth + 1) for x in v]
    return str(v)


def json_loads(text: str | bytes) -> Any:
    try:
        return json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except (ValueError, RecursionError) as e:
        raise cannot(f"not JSON text: {str(e)[:60]}") from None


def n_json(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values.json_text import mysql_json_text

    out: list[Any] = []
    if isinstance(v, str):
        out.append(v)  # canonical text (MariaDB: the stored text)
        if flavor.startswith("mysql"):
            out.append(mysql_json_text(v))  # a JSON string document, as binlogwriter's reader decodes it
        if "json_text" in F:
            try:
                out.append(JsonDoc(json_key(json_loads(v))))
            except Reject:
                pass
        if "json_parsed" in F:
            out.append(JsonDoc(v))  # a parsed JSON string scalar
        return out
    if isinstance(v, bytes | bytearray | memoryview):
        b = bytes(v)
        errors: list[Reject] = []
        if "json_binary" in F and flavor.startswith("mysql"):
            from binlogwriter.values import decode_json

            try:
                out.append(JsonDoc(json_key(decode_json(b))))
            except Reject as r:
                errors.append(r)
            except Exception as e:  # noqa: BLE001 - a consumer's bytes: any decoder failure is a report
                errors.append(cannot(f"not MySQL binary JSON: {str(e)[:60]}"))
        if "json_text" in F or "json_bytes" in F:
            try:
                out.append(JsonDoc(json_key(json_loads(b))))
            except Reject as r:
                errors.append(r)
        if "json_bytes" in F:  # a string scalar's bytes (python-mysql-replication: b'' for "")
            try:
                out.append(JsonDoc(json_key(b.decode("utf-8"))))
            except UnicodeDecodeError:
                pass
        if out:
            return out
        raise errors[0] if errors else wrong_type(v, col)
    if "json_bytes" in F or "json_parsed" in F:
        return [JsonDoc(json_key(v))]
    if isinstance(v, dict | list | int | float | bool) or v is None:
        try:
            return [mysql_json_text(v)]  # binlogwriter's own values (the exact profile)
        except (TypeError, ValueError, AttributeError, RecursionError) as e:
            raise cannot(f"JSON value not printable as MySQL JSON: {type(e).__name__}: {str(e)[:60]}") from None
    raise wrong_type(v, col)


def n_geometry(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    from binlogwriter.values import Geometry

    if isinstance(v, Geometry):
        return ["0x" + v.to_bytes().hex()]
    if isinstance(v, Mapping) and "geometry_struct" in F and "wkb" in v:
        wkb = v["wkb"]
        if isinstance(wkb, str):
            try:
                wkb = base64.b64decode(wkb, validate=True)
            except (binascii.Error, ValueError):
                raise cannot("geometry wkb is not base64") from None
        srid = v.get("srid") or 0
        if not isinstance(wkb, bytes | bytearray) or not is_int(srid):
            raise cannot("geometry struct without bytes wkb / int srid")
        return ["0x" + (srid & 0xFFFFFFFF).to_bytes(4, "little").hex() + bytes(wkb).hex()]
    if isinstance(v, bytes | bytearray | memoryview):
        b = bytes(v)
        out: list[Any] = ["0x" + b.hex()]
        if "geometry_no_srid" in F:
            out.append(WkbOnly("0x" + b.hex()))
        return out
    if isinstance(v, str) and HEX.match(v):
        return [v]
    raise wrong_type(v, col)


def n_raw_bytes(v: Any, col: Column, F: frozenset[str], flavor: str) -> list[Any]:
    if isinstance(v, bytes | bytearray | memoryview):
        return ["0x" + bytes(v).hex()]
    if isinstance(v, str) and HEX.match(v):
        return [v]
    raise wrong_type(v, col)


