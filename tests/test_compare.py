"""binlogwriter.compare and the assertions of binlogwriter.testing that use it (issue #31 §2).

The truth side is rendered by each type family's ``truth_renderer`` (the reference the
generator's truth uses, docs/output.md); the consumer side is built here, independently, in
the representation each consumer profile names (docs/testing.md "Consumer profiles"): bytes
encoded with Python's codec for the column charset, epoch days from ``date.toordinal``, ISO text
from ``isoformat``, bit strings from ``format(v, "b")``, base64 from :mod:`base64`, SRID split
off the WKB by hand, and so on. Every alternative of the same value must compare equal; a
different value, a dropped or extra row, an absent column must be reported — as an
AssertionError with a bounded report, never as another exception.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from binlogwriter.charsets import charset_codec
from binlogwriter.compare import PROFILES, ValueDiff, compare_value, normalise
from binlogwriter.schema import Column
from binlogwriter.strategies import columns, rows, tables, values
from binlogwriter.testing import DecodedChange, assert_changes_equal, assert_matches_truth
from binlogwriter.values import ABSENT, Geometry, MysqlDate, MysqlDateTime, encode_json
from binlogwriter.values.families import family_of_type

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
PROFILE_NAMES = tuple(PROFILES)
_UTC = dt.UTC
_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}


def _truth(col: Column, v: Any, flavor: str) -> Any:
    """The truth's canonical value: the type family's truth_renderer (docs/output.md)."""
    fam = family_of_type(col.type)
    assert fam is not None
    return fam.truth_renderer(col, flavor)(v)


def _is_zero(v: Any) -> bool:
    return isinstance(v, MysqlDate | MysqlDateTime)


def _time_text(td: dt.timedelta) -> str:
    us = td // dt.timedelta(microseconds=1)
    sign = "-" if us < 0 else ""
    s, f = divmod(abs(us), 1_000_000)
    return f"{sign}{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}.{f:06d}"


def _bytes_json(v: Any) -> Any:
    """JSON as pymysqlreplication 1.0 gives it: object keys and strings as UTF-8 bytes."""
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, dict):
        return {k.encode(): _bytes_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_bytes_json(x) for x in v]
    return v


def alternatives(profile: str, col: Column, v: Any, flavor: str) -> list[Any]:
    """The value ``v`` (as binlogwriter's reader gives it) the way the consumer of
    ``profile`` hands it, built without binlogwriter.compare."""
    t = col.type
    mysql = flavor.startswith("mysql")
    out: list[Any] = [] if profile != "exact" else [v]
    if profile == "exact":
        return out
    if t in _INT_BITS:
        bits = _INT_BITS[t]
        signed = v - (1 << bits) if col.unsigned and v >= 1 << (bits - 1) else v
        out += {"python-mysql-replication": [v], "debezium": [signed, str(v)], "go-mysql": [signed],
                "zongji": [float(v) if abs(v) < 2 ** 53 else str(v)], "mysql-event-stream": [str(v), v]}[profile]
    elif t == "YEAR":
        y1900 = 1900 if v == 0 else v
        out += {"python-mysql-replication": [y1900], "zongji": [y1900]}.get(profile, [v])
    elif t == "BIT":
        n = col.length or 1
        nbytes = (n + 7) // 8
        out += {"python-mysql-replication": [format(v, f"0{n}b")],
                "debezium": [v.to_bytes(nbytes, "little")] + ([bool(v)] if n == 1 else []),
                "zongji": [v.to_bytes(nbytes, "big")],
                "go-mysql": [v - (1 << 64) if v >= 1 << 63 else v],
                "mysql-event-stream": [str(v) if v >= 1 << 63 else v]}[profile]
    elif t == "DECIMAL":
        out += {"python-mysql-replication": [v], "debezium": [format(v, "f"), float(v)],
                "go-mysql": [format(v, "f"), float(v)], "zongji": [format(v, "f"), float(v)],
                "mysql-event-stream": [format(v, "f")]}[profile]
    elif t in ("FLOAT", "DOUBLE"):
        out.append(float(f"{v:.9g}") if t == "FLOAT" else v)
        if profile in ("debezium", "zongji") and v.is_integer() and abs(v) < 2 ** 53:
            out.append(int(v))
    elif t == "DATE":
        if _is_zero(v):
            out += {"go-mysql": [str(v)], "mysql-event-stream": [str(v)]}.get(profile, [None])
        else:
            out += {"python-mysql-replication": [v],
                    "debezium": [v.toordinal() - dt.date(1970, 1, 1).toordinal(), v.isoformat()],
                    "go-mysql": [v.isoformat()], "mysql-event-stream": [v.isoformat()],
                    "zongji": [dt.datetime(v.year, v.month, v.day, tzinfo=_UTC), v.isoformat()]}[profile]
    elif t == "TIME":
        out += {"python-mysql-replication": [v], "debezium": [v // dt.timedelta(microseconds=1)]}.get(
            profile, [_time_text(v)])
    elif t == "DATETIME":
        if _is_zero(v):
            text = (f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
                    f".{v.microsecond:06d}")
            out += {"go-mysql": [text], "mysql-event-stream": [text]}.get(profile, [None])
        else:
            us = (v - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
            text = v.strftime("%Y-%m-%d %H:%M:%S.%f")
            out += {"python-mysql-replication": [v],
                    "debezium": [us // 1000 if (col.fsp or 0) <= 3 else us, v.isoformat()],
                    "go-mysql": [text], "mysql-event-stream": [text],
                    "zongji": [v.replace(tzinfo=_UTC), text]}[profile]
    elif t == "TIMESTAMP" and _is_zero(v):  # 0 seconds from the epoch is the zero TIMESTAMP
        out += {"python-mysql-replication": [dt.datetime(1970, 1, 1)], "debezium": ["1970-01-01T00:00:00Z", None],
                "go-mysql": ["0000-00-00 00:00:00"], "zongji": [dt.datetime(1970, 1, 1, tzinfo=_UTC), 0, None],
                "mysql-event-stream": ["0"]}[profile]
    elif t == "TIMESTAMP":
        naive = v.astimezone(_UTC).replace(tzinfo=None)
        us = (naive - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
        secs, frac = divmod(us, 1_000_000)
        out += {"python-mysql-replication": [naive],
                "debezium": [naive.isoformat() + "Z"],
                "go-mysql": [naive.strftime("%Y-%m-%d %H:%M:%S.%f")],
                "zongji": [v] + ([us // 1000] if us % 1000 == 0 else []),
                "mysql-event-stream": [f"{secs}.{frac:06d}"]}[profile]
    elif t in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"):
        codec = charset_codec(col.charset or "utf8mb4")
        raw = v.encode(codec) if codec else None
        if profile == "go-mysql" and raw is not None:
            out.append(raw)
        elif profile == "mysql-event-stream" and raw is not None:
            out.append(raw.decode("utf-8", "surrogateescape"))
        else:
            out.append(v)
    elif t in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"):
        if profile == "debezium":
            out += [base64.b64encode(v).decode("ascii"), v.hex()]
        elif profile == "python-mysql-replication":
            stored = v.rstrip(b"\0") if t == "BINARY" else v
            out.append(stored if stored else "")
        else:
            out.append(v)
    elif t == "ENUM":
        idx = col.members.index(v) + 1 if v in col.members else 0  # '': the invalid-value index 0
        out.append(idx if profile in ("go-mysql", "mysql-event-stream") else v)
    elif t == "SET":
        mask = sum(1 << col.members.index(m) for m in v)
        in_order = [m for m in col.members if m in v]
        out += {"python-mysql-replication": [set(v) if v else None],
                "debezium": [",".join(reversed(in_order))], "zongji": [",".join(in_order)],
                "go-mysql": [mask], "mysql-event-stream": [mask if mask < 1 << 63 else str(mask)]}[profile]
    elif t == "JSON":
        if not mysql:
            out.append(v)  # MariaDB: a LONGTEXT, its text
        else:
            text = json.dumps(v, ensure_ascii=False)
            out += {"python-mysql-replication": [_bytes_json(v)], "debezium": [text],
                    "go-mysql": [text.encode()], "zongji": [v, text],
                    "mysql-event-stream": [encode_json(v)]}[profile]
    elif isinstance(v, Geometry):
        raw = v.to_bytes()
        if profile == "debezium":
            out += [{"wkb": base64.b64encode(raw[4:]).decode("ascii"), "srid": int.from_bytes(raw[:4], "little")},
                    {"wkb": raw[4:], "srid": v.srid}, raw[4:]]
        elif profile != "zongji":  # zongji parses geometry into objects: not compared
            out.append(raw)
    return out


_SETTINGS = settings(max_examples=300, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_SETTINGS
@given(st.data(), st.sampled_from(FLAVORS))
def test_every_profiles_forms_of_a_value_equal_the_truth(data: st.DataObject, flavor: str) -> None:
    col = data.draw(columns(flavor), label="column")
    v = data.draw(values(col, flavor), label="value")
    truth = _truth(col, v, flavor)
    assert compare_value(v, truth, col, "exact", flavor=flavor) is None  # binlogwriter's own value
    assert compare_value(truth, truth, col, "exact", flavor=flavor) is None  # the canonical form
    for profile in PROFILE_NAMES:
        for alt in alternatives(profile, col, v, flavor):
            got = compare_value(alt, truth, col, profile, flavor=flavor)
            assert got is None, (profile, col.type, alt, truth, got)


@_SETTINGS
@given(st.data(), st.sampled_from(FLAVORS), st.sampled_from(PROFILE_NAMES))
def test_a_different_value_is_reported_under_every_profile(data: st.DataObject, flavor: str, profile: str) -> None:
    col = data.draw(columns(flavor), label="column")
    v = data.draw(values(col, flavor), label="value")
    other = data.draw(values(col, flavor), label="other")
    truth, truth2 = _truth(col, v, flavor), _truth(col, other, flavor)
    if col.type == "JSON" and flavor.startswith("mysql"):
        assume(json.loads(truth) != json.loads(truth2) or truth == truth2)
    assume(truth != truth2)
    for alt in alternatives(profile, col, other, flavor):
        if alt is None and profile in ("python-mysql-replication", "debezium", "zongji") and _is_zero(v):
            continue  # both zero dates (with different zero parts) read as None
        got = compare_value(alt, truth, col, profile, flavor=flavor)
        assert isinstance(got, ValueDiff), (profile, col.type, alt, truth)


@settings(max_examples=200, deadline=None, database=None)
@given(st.data(), st.sampled_from(FLAVORS), st.sampled_from(PROFILE_NAMES))
def test_normalise_never_raises(data: st.DataObject, flavor: str, profile: str) -> None:
    """Anything a consumer could hand — wrong types included — normalises or is Uncomparable."""
    col = data.draw(columns(flavor), label="column")
    junk = data.draw(st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(), st.decimals(), st.text(), st.binary(),
        st.dictionaries(st.one_of(st.text(max_size=3), st.binary(max_size=3)), st.integers(), max_size=3),
        st.lists(st.integers(), max_size=3), st.frozensets(st.text(max_size=3), max_size=3),
        st.datetimes(timezones=st.sampled_from([None, _UTC])), st.dates(), st.times(), st.timedeltas()),
        label="value")
    normalise(junk, col, profile, flavor=flavor)
    got = compare_value(junk, _truth(col, data.draw(values(col, flavor)), flavor), col, profile, flavor=flavor)
    assert got is None or isinstance(got, ValueDiff)


# ------------------------------------------------------------------------------------
# streams: assert_changes_equal with wide rows, every profile, perturbations
# ------------------------------------------------------------------------------------

def _stream(table: Any, rows_: list[tuple], profile: str, flavor: str) -> tuple[list, list]:
    """(decoded in the profile's first form, dict images; expected, positional, native)."""
    key = f"{table.database}.{table.name}"
    expected, decoded = [], []
    for r in rows_:
        expected.append(("insert", key, None, r))
        img = {}
        for c, v in zip(table.columns, r, strict=True):
            alts = [None] if v is None else alternatives(profile, c, v, flavor)
            if not alts:
                alts = [v]
            img[c.name] = alts[0]
        decoded.append({"op": "insert", "database": table.database, "table": table.name,
                        "before": None, "after": img})
    return decoded, expected


REPORT_MAX_LINES = 20 + 4


def _check_report(e: pytest.ExceptionInfo, max_differences: int = 20) -> str:
    msg = str(e.value)
    lines = msg.splitlines()
    assert len(lines) <= max_differences + 4, msg[:2000]
    assert all(len(ln) <= 400 for ln in lines), max(len(ln) for ln in lines)
    assert len(msg) <= (max_differences + 4) * 400
    return msg


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from(FLAVORS), st.sampled_from(PROFILE_NAMES))
def test_streams_compare_and_perturbations_are_reported(data: st.DataObject, flavor: str, profile: str) -> None:
    table = data.draw(tables(flavor), label="table")
    rows_ = data.draw(st.lists(rows(table, flavor), min_size=2, max_size=4), label="rows")
    zongji_geo = profile == "zongji" and any(c.geometry_type is not None for c in table.columns)
    assume(not zongji_geo)
    decoded, expected = _stream(table, rows_, profile, flavor)
    assert_changes_equal(decoded, expected, profile=profile, tables=[table], flavor=flavor)
    n = len(table.columns)
    which = data.draw(st.sampled_from(["value", "drop", "extra", "absent", "positional"]), label="perturbation")
    k = data.draw(st.integers(0, len(rows_) - 1), label="row")
    bad = [dict(d, after=dict(d["after"])) for d in decoded]
    if which == "value":
        i = data.draw(st.integers(0, n - 1), label="column")
        c = table.columns[i]
        other = data.draw(values(c, flavor), label="other")
        w = rows_[k][i]
        assume(w is None or _truth(c, other, flavor) != _truth(c, w, flavor))
        if c.type == "JSON" and flavor.startswith("mysql") and w is not None:
            assume(json.loads(_truth(c, other, flavor)) != json.loads(_truth(c, w, flavor)))
        alts = alternatives(profile, c, other, flavor) or [other]
        assume(alts[0] is not None)
        bad[k]["after"][c.name] = alts[0]
        kind = "by kind: "
    elif which == "drop":
        del bad[k]
        kind = "missing change 1"
    elif which == "extra":
        bad.insert(k, dict(bad[k]))
        kind = "extra change 1"
    elif which == "absent":
        name = table.columns[data.draw(st.integers(0, n - 1), label="column")].name
        del bad[k]["after"][name]
        kind = f"after column {name}: not in the decoded image"
    else:  # positional decoded, one column of one row changed to ABSENT
        bad = [DecodedChange("insert", f"{table.database}.{table.name}", None,
                             tuple(d["after"][c.name] for c in table.columns)) for d in decoded]
        i = data.draw(st.integers(0, n - 1), label="column")
        after = list(bad[k].after)
        after[i] = ABSENT
        bad[k] = DecodedChange("insert", bad[k].table, None, tuple(after))
        kind = "absent column 1"
    with pytest.raises(AssertionError) as e:
        assert_changes_equal(bad, expected, profile=profile, tables=[table], flavor=flavor)
    assert kind in _check_report(e)


@settings(max_examples=10, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_wide_stream_with_every_value_wrong_stays_bounded(data: st.DataObject) -> None:
    """300–1000+ columns, every value of every row different (and 500 KB values): the report
    is the counts, the first 20 differences and one line for the rest."""
    table = data.draw(tables("mysql80", min_columns=300, max_columns=1017), label="table")
    rows_ = data.draw(st.lists(rows(table, "mysql80", null_probability=0.0), min_size=2, max_size=3))
    key = f"{table.database}.{table.name}"
    expected = [("insert", key, None, r) for r in rows_]
    decoded = [("insert", key, None, tuple("x" * 500_000 for _ in r)) for r in rows_]
    with pytest.raises(AssertionError) as e:
        assert_changes_equal(decoded, expected, tables=[table])
    msg = _check_report(e)
    assert f"… {len(rows_) * len(table.columns) - 20} more not shown" in msg


# ------------------------------------------------------------------------------------
# regression: the crashes of issue #31 and the silent tuple-of-keys
# ------------------------------------------------------------------------------------

JSON_COL = Column("j", "JSON")
VARBINARY_COL = Column("b", "VARBINARY", length=16)


def test_json_with_bytes_keys_is_reported_not_a_crash() -> None:
    """Was: AttributeError: 'bytes' object has no attribute 'encode' (values/json_text.py)."""
    truth = '{"a": "x", "bb": [1, 2.5]}'
    pmr = {b"bb": [1, 2.5], b"a": b"x"}
    d = compare_value(pmr, truth, JSON_COL, "exact")
    assert d is not None and d.kind == "cannot compare" and "bytes" in d.why
    assert compare_value(pmr, truth, JSON_COL, "python-mysql-replication") is None
    assert compare_value({b"a": b"y", b"bb": [1, 2.5]}, truth, JSON_COL, "python-mysql-replication") is not None
    assert normalise(pmr, JSON_COL, "python-mysql-replication") == truth


def test_varbinary_given_as_str_is_reported_not_a_crash() -> None:
    """Was: TypeError: string argument without an encoding (values/blob.py)."""
    d = compare_value("ab\x00", "0x616200", VARBINARY_COL, "exact")
    assert d is not None and d.kind == "type" and "VARBINARY" in d.why
    assert compare_value("ab\x00", "0x616200", VARBINARY_COL, "python-mysql-replication") is None
    assert compare_value(b"ab\x00", "0x616200", VARBINARY_COL, "exact") is None


def test_dict_images_are_compared_by_name_not_turned_into_keys() -> None:
    """Was: a {name: value} image became the tuple of its KEYS, silently."""
    t = "shop.orders"
    expected = [("insert", t, None, (1, "new"))]
    with pytest.raises(AssertionError) as e:
        assert_changes_equal([{"op": "insert", "table": t, "before": None, "after": {"id": 1, "status": "old"}}],
                             expected, columns={t: ["id", "status"]})
    assert "change #0 shop.orders after column status: decoded 'old' [str], expected 'new' [str]" in str(e.value)
    assert_changes_equal([{"op": "insert", "database": "shop", "table": "orders", "before": None,
                           "after": {"id": 1, "status": "new"}}], expected, columns={t: ["id", "status"]})


def test_a_json_string_document_as_the_reader_decodes_it() -> None:
    """The reader decodes the MySQL JSON document ``"a string"`` to the str ``a string``; the
    truth holds its text ``"a string"`` (found on a 3,000-transaction alltypes run)."""
    assert compare_value("a string", '"a string"', JSON_COL, "exact") is None
    assert compare_value('"a string"', '"a string"', JSON_COL, "exact") is None
    assert compare_value("b string", '"a string"', JSON_COL, "exact") is not None
    assert compare_value("a string", '"a string"', JSON_COL, "exact", flavor="mariadb1011") is not None


def test_bad_profile_name_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown consumer profile 'debezum'; known: exact, "):
        compare_value(1, 1, None, "debezum")


def test_values_in_lines_are_cut() -> None:
    big = "é" * 500_000
    with pytest.raises(AssertionError) as e:
        assert_changes_equal([("insert", "d.t", None, (big,))], [("insert", "d.t", None, ("x",))])
    msg = _check_report(e)
    assert "(500000 chars)" in msg and len(msg) < 1000


# ------------------------------------------------------------------------------------
# a generated run: the truth of every type, python-mysql-replication's forms
# ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def alltypes_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    from binlogwriter.reader import BinlogReader
    from generators.engine import generate
    from generators.spec import Spec

    spec = Spec.from_dict({"transactions": 25, "initial_rows": 6, "seed": 7, "workload": "alltypes",
                           "flavor": "mysql80"})
    out = generate(spec, tmp_path_factory.mktemp("cmp") / "run").out
    return out, list(BinlogReader(sorted(out.glob(f"{spec.basename}.0*"))).changes())


def _pmr_value(v: Any) -> Any:
    """What pymysqlreplication 1.0 gives for binlogwriter's reader value ``v`` (by Python
    type: JSON dicts with bytes, BIT unknown here so left, TIMESTAMP naive UTC)."""
    if isinstance(v, dict | list):
        return _bytes_json(v)
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(_UTC).replace(tzinfo=None)
    if isinstance(v, frozenset):
        return set(v) or None
    if isinstance(v, Geometry):
        return v.to_bytes()
    return v


def test_a_run_read_the_pmr_way_matches_under_its_profile_only(alltypes_run: tuple[Path, list]) -> None:
    out, changes = alltypes_run
    assert assert_matches_truth(changes, out) == len(changes)
    pmr = [dict(op=c.op, database=c.database, table=c.table, gtid=c.gtid, file=c.file, position=c.position,
                row=c.row, timestamp=c.timestamp,
                before=None if c.before is None else {k: _pmr_value(v) for k, v in c.before.items()},
                after=None if c.after is None else {k: _pmr_value(v) for k, v in c.after.items()})
           for c in changes]
    assert any(isinstance(v, dict) and any(isinstance(k, bytes) for k in v)
               for c in pmr for v in (c["after"] or {}).values())  # the crash case is in the stream
    assert_matches_truth(pmr, out, profile="python-mysql-replication")
    with pytest.raises(AssertionError) as e:
        assert_matches_truth(pmr, out)
    msg = _check_report(e)
    assert "(cannot compare: JSON value not printable" in msg or "(type: naive datetime for TIMESTAMP" in msg


def test_a_run_with_a_dropped_change_and_positional_images(alltypes_run: tuple[Path, list]) -> None:
    out, changes = alltypes_run
    names = {}
    for c in changes:
        for img in (c.before, c.after):
            if img and len(img) > len(names.get(c.table, ())):
                names[c.table] = list(img)
    positional = [dict(op=c.op, table=f"{c.database}.{c.table}",
                       before=None if c.before is None else tuple(c.before.get(n, ABSENT) for n in names[c.table]),
                       after=None if c.after is None else tuple(c.after.get(n, ABSENT) for n in names[c.table]))
                  for c in changes]
    assert_matches_truth(positional, out, fields=("op", "table", "before", "after"))
    del positional[3]
    with pytest.raises(AssertionError, match=r"by kind: missing change 1\n  change #3 "):
        assert_matches_truth(positional, out, fields=("op", "table", "before", "after"))


def test_aligned_by_seq_and_row(alltypes_run: tuple[Path, list]) -> None:
    from binlogwriter.testing import truth_changes

    out, _ = alltypes_run
    truth = list(truth_changes(out))
    shuffled = truth[1:] + truth[:1]
    assert_matches_truth(shuffled, out, fields=("op", "table", "before", "after"))
    assert_matches_truth([{**c, "seq": c["seq"]} for c in truth], out)
    with pytest.raises(AssertionError, match=r"by kind: extra change 1, missing change 1\n"):
        assert_matches_truth([*truth[:-1], {**truth[-1], "seq": 10 ** 6}], out)


def test_decimal_tolerance_is_only_for_floats() -> None:
    col = Column("d", "DECIMAL", precision=30, scale=10)
    truth = "12345678901234567890.1234567890"
    assert compare_value(float(Decimal(truth)), truth, col, "go-mysql") is None
    assert compare_value(float(Decimal(truth)), truth, col, "exact") is not None
    assert compare_value("12345678901234567890.1234567891", truth, col, "go-mysql") is not None
    assert compare_value("12345678901234567890.123456789", truth, col, "go-mysql") is None


def test_python_mysql_replication_reads_a_json_empty_string_as_empty_bytes() -> None:
    """It returns a JSON string scalar as its bytes: ``""`` is ``b''`` (not JSON text)."""
    col = Column(name="c", type="JSON", nullable=True)
    assert compare_value(b"", '""', col, "python-mysql-replication", flavor="mysql80") is None
    assert compare_value(b"x", '""', col, "python-mysql-replication", flavor="mysql80") is not None
