"""Every decimal/temporal/integer/JSON vector decodes to ``expected`` and re-encodes byte-exactly.

Vectors: ``tests/data/vectors/{decimal,temporal,integers,json}.json`` (README.md there).
``value`` vectors may carry trailing bytes of the next column: only ``bytes_consumed`` belong
to the value and only those are compared on re-encode.
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest

from binlogwriter.values import (
    JSON_NULL,
    ColumnDesc,
    JsonDecimal,
    JsonOpaque,
    JsonUInt,
    MysqlDate,
    MysqlDateTime,
    decode_json,
    decode_value,
    encode_json,
    encode_value,
    temporal_text,
)

VECTORS = Path(__file__).resolve().parents[1] / "data" / "vectors"


def _load(name: str) -> list[dict]:
    return json.loads((VECTORS / f"{name}.json").read_text())


def _ids(entries: list[dict]) -> list[str]:
    return [f"{i}-{e['source'].rsplit(':', 1)[-1][:40]}" for i, e in enumerate(entries)]


DECIMALS = _load("decimal")
TEMPORALS = _load("temporal")
INTEGERS = _load("integers")
JSONS = _load("json")


def test_vector_files_have_the_expected_counts():
    # values.md: "all 199 decimal, 26 temporal and 23 non-opaque JSON vectors"
    assert len(DECIMALS) == 199
    assert len(TEMPORALS) == 26
    assert len(INTEGERS) >= 25
    assert len(JSONS) >= 40


@pytest.mark.parametrize("vec", DECIMALS, ids=_ids(DECIMALS))
def test_decimal_vector(vec):
    ctx = vec["context"]
    meta = bytes.fromhex(ctx["metadata_hex"]) if "metadata_hex" in ctx else bytes([ctx["precision"], ctx["scale"]])
    assert meta == bytes([ctx["precision"], ctx["scale"]])
    col = ColumnDesc(ctx["type_code"], meta, name="d", table="v")
    raw = bytes.fromhex(vec["hex"])
    n = vec["expected"]["bytes_consumed"]
    value, pos = decode_value(col, raw, 0)
    assert pos == n
    assert isinstance(value, Decimal)
    assert format(value, "f") == vec["expected"]["value"]
    assert encode_value(col, value) == raw[:n]


@pytest.mark.parametrize("vec", TEMPORALS, ids=_ids(TEMPORALS))
def test_temporal_vector(vec):
    ctx = vec["context"]
    col = ColumnDesc(ctx["type_code"], bytes([ctx["fsp"]]), name="t", table="v")
    raw = bytes.fromhex(vec["hex"])
    n = vec["expected"]["bytes_consumed"]
    value, pos = decode_value(col, raw, 0)
    assert pos == n
    assert temporal_text(value, ctx["fsp"]) == vec["expected"]["text"]
    if ctx["type_code"] == 19:
        assert isinstance(value, dt.timedelta)
    elif vec["expected"]["text"][:10] in ("2016-00-28", "2016-10-00", "0000-00-00", "0000-00-01"):
        assert isinstance(value, MysqlDateTime)  # no datetime can hold a zero year/month/day
    else:
        assert type(value) is dt.datetime
    assert encode_value(col, value) == raw[:n]


@pytest.mark.parametrize("vec", INTEGERS, ids=_ids(INTEGERS))
def test_integer_vector(vec):
    ctx = vec["context"]
    col = ColumnDesc(ctx["type_code"], b"", unsigned=ctx["unsigned"], name="i", table="v")
    raw = bytes.fromhex(vec["hex"])
    n = vec["expected"]["bytes_consumed"]
    value, pos = decode_value(col, raw, 0)
    assert (value, pos) == (vec["expected"]["value"], n)
    assert encode_value(col, value) == raw[:n]


def _check_json(expected, value):
    """Compare a decoded JSON value with the vector's ``expected.json``, types included."""
    if isinstance(expected, dict) and "opaque_type" in expected:
        ft = expected["opaque_type"]
        if "bytes_hex" in expected:
            assert value == JsonOpaque(ft, bytes.fromhex(expected["bytes_hex"]))
        elif ft == 246:
            assert isinstance(value, Decimal) and format(value, "f") == expected["text"]
            if "precision" in expected:
                # canonical precision (max(1, integer digits) + scale) -> plain Decimal
                assert not isinstance(value, JsonDecimal)
        elif ft == 12:
            assert type(value) is dt.datetime and temporal_text(value, 6) == expected["text"]
        elif ft == 11:
            assert isinstance(value, dt.timedelta) and temporal_text(value, 6) == expected["text"]
        elif ft == 10:
            assert type(value) is dt.date and temporal_text(value) == expected["text"]
        else:  # pragma: no cover - no other opaque vectors
            raise AssertionError(f"unexpected opaque vector {expected}")
        return
    if isinstance(expected, dict):
        assert isinstance(value, dict) and list(value) == sorted(expected, key=lambda k: (len(k.encode()), k.encode()))
        for k, v in expected.items():
            _check_json(v, value[k])
    elif isinstance(expected, list):
        assert isinstance(value, list) and len(value) == len(expected)
        for e, v in zip(expected, value, strict=True):
            _check_json(e, v)
    elif isinstance(expected, bool) or expected is None:
        assert value is expected
    else:
        assert type(value) in (type(expected), JsonUInt) and value == expected


# Vectors whose bytes the server's serializer would not produce (json_binary.cc picks the
# smallest unsigned width: uint16 for 32768), so re-encoding gives the canonical bytes:
# hex -> canonical hex.
NON_CANONICAL_JSON = {
    "0800800000": "06 0080".replace(" ", ""),  # Vitess "32768 uint32": hand-made, 32768 fits uint16
}


@pytest.mark.parametrize("vec", JSONS, ids=_ids(JSONS))
def test_json_vector(vec):
    doc = bytes.fromhex(vec["hex"])
    value = decode_json(doc)
    _check_json(vec["expected"]["json"], value)
    if vec["hex"] in NON_CANONICAL_JSON:
        # decode asserted above; re-encoding gives the server's canonical form instead
        assert encode_json(value) == bytes.fromhex(NON_CANONICAL_JSON[vec["hex"]])
    elif doc:
        # uint16/uint32 nodes decode to JsonUInt and opaque nodes to values whose canonical
        # encoding is the same bytes (else JsonOpaque), so every other vector re-encodes.
        assert encode_json(value) == doc
    else:
        # the zero-length JSON value is JSON null; as a column value it stays zero-length
        col = ColumnDesc(245, b"\x04", name="j", table="v")
        v, pos = decode_value(col, b"\x00\x00\x00\x00", 0)
        assert v == JSON_NULL and pos == 4
        assert encode_value(col, v) == b"\x00\x00\x00\x00"
        assert encode_value(col, JSON_NULL) == b"\x02\x00\x00\x00\x04\x00"


def test_json_vector_unsigned_keeps_its_type():
    # TestBinaryJSON "1 uint16" and "32768 uint32": unsigned nodes survive a round trip
    assert decode_json(bytes.fromhex("060100")) == JsonUInt(1)
    assert type(decode_json(bytes.fromhex("060100"))) is JsonUInt
    assert encode_json(1) == bytes.fromhex("050100")  # a plain int takes int16
    assert encode_json(JsonUInt(32768)) == bytes.fromhex("060080")
    assert encode_json(JsonUInt(65536)) == bytes.fromhex("0800000100")


def test_zero_dates_decode_to_value_classes():
    col = ColumnDesc(18, b"\x00")
    assert decode_value(col, bytes.fromhex("8000000000"))[0] == MysqlDateTime(0, 0, 0)
    assert decode_value(ColumnDesc(10), b"\x00\x00\x00")[0] == MysqlDate(0, 0, 0)
