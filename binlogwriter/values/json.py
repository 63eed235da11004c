"""The json family: JSON (values.md §7). MySQL logs type 245 with binary JSON (the format is
in values/json_binary.py); MariaDB's JSON is a LONGTEXT (type 252, values/blob.py with
``ColumnDesc.json_text``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import construct as cs

from binlogwriter.values._common import Bound, Codec, decode_error, register, value_error
from binlogwriter.values._text import SPECIAL_MYSQL, quote_bytes
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.blob import blob_length_bytes, meta_length_bytes
from binlogwriter.values.json_binary import (
    MAX_DEPTH,
    JsonEncodeError,
    JsonKeptArray,
    JsonKeptObject,
    decode_json,
    encode_json,
)
from binlogwriter.values.json_text import mysql_json_text
from binlogwriter.values.types import JSON_NULL, JSON_NULL_EMPTY, JsonNull

if TYPE_CHECKING:
    from binlogwriter.schema.model import Column

__all__ = ["FAMILY", "SQL_TYPES", "TYPE_CODES", "JsonCodec", "binlog_type", "binlog_meta", "renderer",
           "truth_renderer", "arrow_type", "type_text"]

FAMILY = "json"
SQL_TYPES = ("JSON",)
TYPE_CODES = (245,)
# no vectorised encoder: each document is turned into binary JSON by the scalar encoder; row
# images fall back to it column by column (values/row.py)


@register
class JsonCodec(Codec):
    """JSON (245): metadata = length bytes (4); value = LE length + binary JSON (values.md §7)."""

    type_codes = (245,)
    meta_layout = cs.Struct("length_bytes" / cs.Int8ul)

    def bind(self, col: ColumnDesc) -> Bound:
        sql = "JSON"
        lb = meta_length_bytes(self, col, sql)
        limit = (1 << (8 * lb)) - 1

        def encode(value: Any) -> bytes:
            try:
                doc = encode_json(value)
            except JsonEncodeError as exc:
                raise value_error(col, sql, str(exc)) from None
            except RecursionError:
                raise value_error(col, sql, f"document is deeper than {MAX_DEPTH}") from None
            if len(doc) > limit:
                raise value_error(col, sql, f"holds {limit} bytes, got {len(doc)}")
            return len(doc).to_bytes(lb, "little") + doc

        def decode(buf: Any, pos: int) -> tuple[Any, int]:
            start = pos + lb
            if start > len(buf):
                raise decode_error(col, f"JSON length needs {lb} bytes at {pos}")
            n = int.from_bytes(buf[pos:start], "little")
            end = start + n
            if end > len(buf):
                raise decode_error(col, f"JSON value of {n} bytes at {start} runs past the end ({len(buf)})")
            if n == 0:
                return JSON_NULL_EMPTY, end
            try:
                v = decode_json(memoryview(buf)[start:end] if not isinstance(buf, memoryview) else buf[start:end])
            except ValueError as exc:
                raise decode_error(col, f"JSON at {start}: {exc}") from None
            doc = bytes(buf[start:end])
            tv = type(v)
            if tv is dict or tv is list:
                # an object / array keeps the bytes read: a document not in its shortest form
                # (MySQL's in-place updates leave unused space) encodes back to them; checked
                # when encoding, not here (reading stays one decode per value)
                v = JsonKeptObject(v) if tv is dict else JsonKeptArray(v)
                v.binary = doc
                return v, end
            try:
                canonical = encode_json(v) == doc
            except (JsonEncodeError, RecursionError):
                canonical = False
            if not canonical:  # a scalar document in a longer form: no server writes one
                from binlogwriter.layouts.control import NonCanonical

                where = ".".join(p for p in (col.table, col.name) if p)
                raise NonCanonical(f"{where}: JSON scalar at {start} is not in its shortest form")
            return (JSON_NULL if v is None else v), end

        def encode_array(kind: str, data: Any, meta: Any) -> list | None:
            # documents given as columns (values/json_columns.py): the binary JSON of each,
            # built over the whole column, after its ``lb``-byte length (values.md §7)
            if kind != "json":
                return None
            from binlogwriter.values._common import Fixed, Var
            from binlogwriter.values.json_columns import encode_documents

            got = encode_documents(data)
            if got is None:
                return None
            flat, lens = got
            if len(lens) and int(lens.max()) > limit:
                return None
            prefix = lens.astype("<u8").view("u1").reshape(-1, 8)[:, :lb]
            return [Fixed(prefix), Var(flat, lens)]

        return Bound(col, sql, encode, decode, None, "dict | list | str | int | float | bool | JsonNull | …",
                     None, encode_array)


# -- schema -> binlog (values.md §1, §7) ------------------------------------------------

def binlog_type(col: Column, flavor: str = "mysql80") -> int:
    """JSON 245 on MySQL; BLOB 252 on MariaDB, whose JSON is a LONGTEXT (values.md §1)."""
    return 252 if flavor.startswith("mariadb") else 245


def binlog_meta(col: Column, flavor: str = "mysql80") -> bytes:
    """The number of length bytes: 4 (values.md §7)."""
    return bytes((blob_length_bytes(col, flavor),))


# -- mysqlbinlog text (values/render.py) -------------------------------------------------

def renderer(col: ColumnDesc, family: str = "mariadb") -> Callable[[Any], str]:
    """MySQL: the document's text, quoted (UNVERIFIED); mariadb-binlog has no printer for 245."""
    if family != "mysql":
        raise ValueError(f"Don't know how to handle column type: {col.type_code} meta: {bytes(col.meta).hex()}")
    special = SPECIAL_MYSQL

    def json_text(v: Any) -> str:
        if isinstance(v, JsonNull):
            text = "" if v.empty else "null"
        else:
            text = json.dumps(v, ensure_ascii=False, default=str)
        if text.isascii() and special.search(text) is None:  # nothing quote_bytes would change
            return "'" + text + "'"
        return quote_bytes(text.encode("utf-8", "surrogateescape"), family)
    return json_text


# -- exports and typed truth (read/export.py) --------------------------------------------

def arrow_type(col: ColumnDesc) -> Any:
    """The Arrow type of the values in exports and typed truth: string (the document's text)."""
    import pyarrow as pa

    return pa.string()


# -- ground truth (docs/output.md "Canonical row form") -----------------------------------

def truth_renderer(col: Column, flavor: str) -> Callable[[Any], Any]:
    """JSON as MySQL prints it (values/json_text.py); a MariaDB document read as text stays
    that text."""
    if flavor.startswith("mariadb"):
        return lambda v: v if isinstance(v, str) else mysql_json_text(v)
    return mysql_json_text


def type_text(type_code: int, meta: int, family: str = "mariadb") -> str | None:
    """The ``-vv`` comment type: ``JSON`` in MySQL's listing; MariaDB's mysqlbinlog has no
    name for type 245 (None: it stops with an error)."""
    return "JSON" if family == "mysql" else None
