"""mysql-event-stream (an independent C binlog decoder, ``mysql_event_stream.CdcEngine``)
decodes the catalogue's binlogs to the values we wrote, for every row image.

Flavors: mysql80 (binary JSON and collation-255 utf8mb4 columns included — what MariaDB's
replay cannot check, docs/output.md "Known limits") and mariadb1011. binlog_row_metadata=FULL, so
the engine knows column names, signedness and charsets.

The expected values are the ones written (catalogue.py's statements), restricted to the
columns of each image (chosen by ``binlogwriter.images``; this test checks values, the image
rules are checked by test_rows_roundtrip_props.py and the MariaDB replay), mapped to the
engine's representation (``ChangeEvent`` docstring). Representation differences, documented:

- ENUM -> 1-based index (0 = the invalid-value ''), SET -> bitmask int; BIGINT UNSIGNED, BIT
  and SET above INT64_MAX -> decimal ``str``.
- DECIMAL, DATE, TIME, DATETIME -> text as the server prints it; TIMESTAMP -> epoch seconds
  as text with fsp fraction digits (the zero timestamp -> "0").
- Character columns -> the stored bytes decoded as UTF-8 with surrogateescape, whatever the
  column charset (latin1/gbk/ucs2/utf16/utf32 are not converted): compared as
  ``value.encode("utf-8", "surrogateescape") == our bytes in the column charset``.
- CHAR without its trailing spaces, BINARY without its trailing 0x00 (as logged, values.md §5).
- MySQL JSON -> the raw binary JSON bytes: decoded with binlogwriter's decode_json and compared
  with the document written. GEOMETRY -> SRID + WKB bytes. FLOAT -> the float32 widened.
- Columns not in a partial image are missing from the engine's dict.

Limit of the engine (1.8.0), not of our files: it fails with "row decode error (code 202)" on
any UPDATE or DELETE whose image is partial — on a binlog written by a real MariaDB 10.11 with
binlog_row_image=MINIMAL just the same (test_engine_limit_partial_images_real_server). So for
MINIMAL and NOBLOB the engine reads the catalogue's INSERTs (whose images are full here);
FULL runs every statement. Partial images are checked by our reader
(test_rows_roundtrip_props.py) and by the MariaDB replay (test_writer_replay.py).
"""

from __future__ import annotations

import datetime as dt
import decimal
import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mysql_event_stream import CdcEngine, EventType

from binlogwriter import images
from binlogwriter.values import Geometry, MysqlDateTime, decode_json

from .catalogue import build
from .test_writer_replay import write_catalogue

INT64_MAX = (1 << 63) - 1
_WIDE = decimal.Context(prec=100)


def mes_events(files: list[Path]) -> list:
    events = []
    for f in files:
        eng = CdcEngine()
        data = f.read_bytes()[4:]  # the engine reads events, not the file magic
        pos = 0
        while pos < len(data):
            n = eng.feed(data[pos:])
            pos += n
            while (e := eng.next_event()) is not None:
                events.append(e)
            if n == 0:
                break
        while (e := eng.next_event()) is not None:
            events.append(e)
        eng.close()
    return events


def _big(v: int) -> int | str:
    return str(v) if v > INT64_MAX else v


def expected_mes(col, flavor: str, v: Any) -> Any:
    """Our written value of ``col`` as mysql-event-stream represents it."""
    if v is None:
        return None
    t = col.type
    if t in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR", "BIT"):
        return _big(int(v))
    if t == "FLOAT":
        return struct.unpack("<f", struct.pack("<f", v))[0]
    if t == "DOUBLE":
        return float(v)
    if t == "DECIMAL":
        return format(Decimal(v).quantize(Decimal(1).scaleb(-(col.scale or 0)), context=_WIDE), "f")
    fsp = col.fsp or 0
    if t == "TIMESTAMP":
        if isinstance(v, MysqlDateTime):
            return "0" + ("." + "0" * fsp if fsp else "")
        secs = int(v.timestamp())
        return str(secs) + (f".{v.microsecond:06d}"[: fsp + 1] if fsp else "")
    if t in ("DATE", "DATETIME", "TIME"):
        from .catalogue import canonical_value

        return canonical_value(col, v)
    if t == "ENUM":
        return col.members.index(v) + 1 if v else 0
    if t == "SET":
        return _big(sum(1 << col.members.index(m) for m in v))
    if isinstance(v, Geometry):
        return v.to_bytes()
    if t == "JSON" and not flavor.startswith("mariadb"):
        return ("json", v)
    if isinstance(v, bytes):
        return v.rstrip(b"\0") if t == "BINARY" else v
    if t == "CHAR":
        v = v.rstrip(" ")
    coll = col.collation_obj(flavor)
    return coll.encode(v).decode("utf-8", "surrogateescape")


def same(want: Any, got: Any) -> bool:
    if isinstance(want, tuple) and want and want[0] == "json":
        return isinstance(got, bytes) and decode_json(got) == want[1]
    if isinstance(want, float) or isinstance(got, float):
        return isinstance(got, float) and got == want
    return type(got) is type(want) and got == want


def _kinds(image: str) -> tuple[str, ...]:
    return ("insert", "update", "delete") if image == "FULL" else ("insert",)


def _expected_changes(cat, image: str) -> list[tuple[str, str, dict | None, dict | None]]:
    """(type, table, before, after) per row change, in binlog order, as the engine should show."""
    out = []
    fl = cat.flavor
    for stmts in cat.transactions:
        for kind, name, payload in stmts:
            if kind not in _kinds(image):
                continue
            ct = cat.tables[name]
            table = ct.table
            cols = table.columns
            n = len(cols)

            def image_dict(row, bits, cols=cols):
                return {c.name: expected_mes(c, fl, row[i]) for i, c in enumerate(cols) if bits[i]}

            if kind == "insert":
                bits = images.insert_columns(table, image, range(n), fl)
                out += [("INSERT", name, None, image_dict(r, bits)) for r in payload]
            elif kind == "delete":
                bits = images.delete_columns(table, image, fl)
                out += [("DELETE", name, image_dict(r, bits), None) for r in payload]
            else:
                for before, assigned in payload:
                    idx = {table.index_of(c) for c in assigned}
                    bb, ab = images.update_columns(table, image, idx, fl)
                    after = tuple(assigned[c.name] if i in idx else before[i] for i, c in enumerate(cols))
                    out.append(("UPDATE", name, image_dict(before, bb), image_dict(after, ab)))
    return out


@pytest.mark.parametrize("image", ["FULL", "MINIMAL", "NOBLOB"])
@pytest.mark.parametrize("flavor", ["mysql80", "mariadb1011"])
def test_mysql_event_stream_reads_what_we_wrote(tmp_path: Path, flavor: str, image: str) -> None:
    cat = build(flavor)
    files = write_catalogue(tmp_path, cat, image, replayable=False, row_metadata="FULL",
                            kinds=_kinds(image))
    got = mes_events(files)
    want = _expected_changes(cat, image)
    assert len(got) == len(want), f"engine saw {len(got)} row changes, we wrote {len(want)}"
    problems = []
    for k, (e, (kind, name, before, after)) in enumerate(zip(got, want, strict=True)):
        if e.type != EventType[kind] or e.table != name or e.database != "cat":
            problems.append(f"#{k}: {e.type} {e.database}.{e.table}, expected {kind} cat.{name}")
            continue
        for label, g, w in (("before", e.before, before), ("after", e.after, after)):
            if w is None:
                if g is not None:
                    problems.append(f"#{k} {name} {label}: expected no image, got {g}")
                continue
            if g is None or set(g) != set(w):
                problems.append(f"#{k} {name} {label}: columns {sorted(g or {})} != {sorted(w)}")
                continue
            for c, wv in w.items():
                if not same(wv, g[c]):
                    problems.append(f"#{k} {name} {label}.{c}: engine {g[c]!r:.120} != written {wv!r:.120}")
        if len(problems) > 20:
            break
    assert not problems, "\n".join(problems[:20])


def test_timestamp_rendering_helper() -> None:
    class C:
        type = "TIMESTAMP"
        fsp = 3
    assert expected_mes(C, "mysql80", dt.datetime(1970, 1, 1, 0, 0, 1, 5000, tzinfo=dt.UTC)) == "1.005"


@pytest.mark.parametrize("statement", ["UPDATE t SET a = 5 WHERE id = 1", "DELETE FROM t"])
def test_engine_limit_partial_images_real_server(mariadb_server_factory, statement: str) -> None:
    """The engine's limit shown on a real server's binlog (MINIMAL image)."""
    from mysql_event_stream import DecodeError

    server = mariadb_server_factory(row_image="MINIMAL", row_metadata="FULL")
    server.execute("CREATE DATABASE x; USE x; CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT);"
                   f"INSERT INTO t VALUES (1, 2, 3); {statement};")
    server.flush_logs()
    with pytest.raises(DecodeError, match="row decode error"):
        mes_events(server.binlog_files()[:-1])
