"""No row for an unchanged row (issue #29 §1, generators/noop.py): over drawn schemas and
workloads — ENUM with one member, BOOLEAN, BIT(1), tiny VARCHAR, spec ``const`` columns, wide
tables, multibyte text, keyless tables, ``--ddl-every`` — no UPDATE a run logs has an after
row equal to its before row, compared through the reader (full rows: FULL images, every
column's decoded value and type), in the batch engine and in the per-transaction reference,
which write the same bytes; the truth (truth/changes) holds exactly the logged changes and
``--transactions N`` still writes N transactions.

The before == after check is tests/generators/binlog_shape.py's, not the generator's own
comparison (``same_value``), which is tested here on the server's record rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import Column
from binlogwriter.testing import truth_changes
from binlogwriter.values.row import ColumnArray
from generators.engine import Run, generate
from generators.noop import same_arrays, same_value, unchanged_updates
from generators.spec import Spec
from tests.generators.binlog_shape import transactions
from tests.generators.binlog_shape import unchanged_updates as logged_unchanged
from tests.generators.conftest import generate_both, tree_digest

_NARROW = ("ENUM('only') NOT NULL", "ENUM('a','b') NULL", "BOOLEAN NOT NULL", "BIT(1) NOT NULL", "BIT(1) NULL",
           "VARCHAR(1) CHARACTER SET ascii NOT NULL", "CHAR(1) NULL", "TINYINT UNSIGNED NULL", "SET('x') NOT NULL",
           "YEAR NULL", "VARCHAR(2) CHARACTER SET utf8mb4 NOT NULL")
_WIDE = ("INT", "VARCHAR(30) CHARACTER SET utf8mb4", "DECIMAL(8,2)", "DATETIME(3)", "TEXT CHARACTER SET utf8mb4",
         "DOUBLE", "BLOB", "DATE")


@st.composite
def _case(draw: Any) -> dict[str, Any]:
    narrow = draw(st.lists(st.sampled_from(_NARROW), min_size=1, max_size=4), label="narrow")
    wide = draw(st.integers(0, 40), label="wide columns")
    key = draw(st.sampled_from(["pk", "none", "unique"]), label="key")
    cols = [f"n{i} {t}" for i, t in enumerate(narrow)]
    pk = {"pk": "id INT NOT NULL PRIMARY KEY, ", "none": "", "unique": "u BIGINT NOT NULL UNIQUE, "}[key]
    ddl = f"CREATE TABLE small ({pk}{', '.join(cols)}) DEFAULT CHARSET=utf8mb4;\n"
    if wide:
        wcols = ", ".join(f"w{i} {_WIDE[i % len(_WIDE)]} NULL" for i in range(wide))
        ddl += f"CREATE TABLE wide (id BIGINT NOT NULL PRIMARY KEY, {wcols});\n"
    ddl += "CREATE TABLE nokey (a ENUM('z') NOT NULL, b BOOL NULL);\n"
    spec = dict(workload=None, schema_sql=ddl, schema_file="s.sql", initial_rows=draw(st.integers(1, 12)),
                transactions=draw(st.integers(20, 120)), seed=draw(st.integers(0, 2**31)),
                flavor=draw(st.sampled_from(["mysql80", "mariadb1011"])), row_image="FULL",
                ddl_every=draw(st.sampled_from([0, 0, 7, 25])), rows_query=draw(st.booleans()),
                key_dist=draw(st.sampled_from(["uniform", "zipf:1.3", "latest"])),
                mix="insert=0.2,update=0.7,delete=0.1")
    if draw(st.booleans(), label="const column"):
        spec["columns"] = {"nokey.b": {"gen": "const", "value": 1}}
    return spec


def _both(tmp: Path, spec: Spec, monkeypatch) -> tuple[Path, Path]:
    return generate_both(spec, tmp, monkeypatch)


def _check_run(out: Path, n: int) -> int:
    """No logged unchanged update; truth/changes == the logged changes; ``n`` transactions.
    Returns the number of logged updates."""
    txns = transactions(sorted(out.glob("binlog.[0-9]*")))
    assert not logged_unchanged(txns), [(c.before, c.after) for c in logged_unchanged(txns)][:3]
    assert len(txns) == n
    logged = [c for t in txns for c in t.changes]
    truth = list(truth_changes(out))
    assert len(truth) == len(logged)
    assert [t["op"] for t in truth] == [c.op for c in logged]
    return sum(c.op == "update" for c in logged)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=_case())
def test_no_logged_update_leaves_its_row_unchanged(case, tmp_path_factory, monkeypatch) -> None:
    tmp = tmp_path_factory.mktemp("noop")
    spec = Spec.from_dict(case)
    batch, per_txn = _both(tmp, spec, monkeypatch)
    assert tree_digest(batch) == tree_digest(per_txn)
    _check_run(batch, spec.transactions)


def test_small_domains_would_log_unchanged_rows_without_the_rule(tmp_path: Path, monkeypatch) -> None:
    """The schema of the property test's narrowest case does draw unchanged UPDATEs (so the
    test above tests something): with the rule off (``changed_ops`` keeping every op) the run
    logs some, with it on none, and the manifest's update total is the logged one."""
    ddl = "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('only') NOT NULL, b BOOLEAN NOT NULL, x BIT(1) NOT NULL);\n"
    spec = Spec.from_dict(dict(workload=None, schema_sql=ddl, schema_file="s.sql", initial_rows=10,
                               transactions=150, mix="insert=0.1,update=0.8,delete=0.1"))
    import generators.batch as batch_mod
    monkeypatch.setattr(batch_mod, "changed_ops", lambda *a: None)
    generate(spec, tmp_path / "off")
    monkeypatch.undo()
    generate(spec, tmp_path / "on")
    off = transactions(sorted((tmp_path / "off").glob("binlog.[0-9]*")))
    assert len(logged_unchanged(off)) > 10
    updates = _check_run(tmp_path / "on", 150)
    manifest = json.loads((tmp_path / "on" / "manifest.json").read_text())
    assert manifest["totals"]["rows"]["test.t"]["update"] == updates


def test_sysbench_const_c_logs_only_k_updates(tmp_path: Path) -> None:
    """oltp_write_only with a spec ``const`` for ``c``: its ``SET c=?`` statements change
    nothing, so only the ``k = k + 1`` rows are logged (the counted table's path)."""
    spec = Spec.from_dict(dict(workload="sysbench", initial_rows=20, transactions=40,
                               columns={"sbtest1.c": {"gen": "const", "value": "x"}}))
    generate(spec, tmp_path / "o")
    txns = transactions(sorted((tmp_path / "o").glob("binlog.[0-9]*")))
    ups = [c for t in txns for c in t.changes if c.op == "update"]
    assert ups and all(c.after["k"] == c.before["k"] + 1 and c.after["c"] == c.before["c"] for c in ups)
    assert [e for t in txns for e in t.events].count("U1") == len(ups)


def test_unchanged_updates_match_the_row_function() -> None:
    """``unchanged_updates`` (many rows, only the assigned columns) equals comparing the full
    rows of the scalar row function, for random keys and versions."""
    ddl = ("CREATE TABLE t (id INT PRIMARY KEY, e ENUM('only') NOT NULL, b BOOL NOT NULL, v VARCHAR(1) "
           "CHARACTER SET ascii NOT NULL, d DOUBLE NULL);\n")
    run = Run(Spec.from_dict(dict(workload=None, schema_sql=ddl, schema_file="s.sql", initial_rows=5)), None)
    rt = run.rows[0]
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 50, 400).astype(np.int64)
    va = rng.integers(1, 9, 400).astype(np.int64)
    vb, born = va - 1, np.zeros(400, dtype=np.int64)
    got = unchanged_updates(rt, keys, vb, va, born)
    want = [all(same_value(c, x, y) for c, x, y in zip(rt.table.columns, rt.compute_scalar(k, b, 0),
                                                          rt.compute_scalar(k, a, 0), strict=True))
            for k, b, a in zip(keys.tolist(), vb.tolist(), va.tolist(), strict=True)]
    assert got.tolist() == want and 0 < sum(want) < 400


def test_same_value_follows_the_record_comparison() -> None:
    """What the server's ``compare_record`` tells apart (bytes of the record)."""
    f, j = Column("f", "DOUBLE"), Column("j", "JSON")
    c, b = Column("c", "CHAR", length=4), Column("b", "BINARY", length=4)
    assert not same_value(f, 0.0, -0.0) and same_value(f, 1.5, 1.5)
    assert not same_value(j, 1, 1.0) and same_value(j, {"a": [1]}, {"a": [1]})
    assert same_value(c, "ab", "ab  ") and not same_value(c, "ab", "AB")
    assert same_value(b, b"a", b"a\0\0\0") and not same_value(b, b"a", b"b")
    assert same_value(f, None, None) and not same_value(f, None, 0.0)


_POOLS = {"CHAR": ("ab", "ab  ", "AB", "", " "), "BINARY": (b"a", b"a\0\0", b"b", b""),
          "JSON": (1, 1.0, {"a": [1]}, {"a": [1]}, "x"), "DOUBLE": (0.0, -0.0, 1.5, 1.5),
          "SET": (frozenset(), frozenset({"x"}), frozenset({"x"})), "VARCHAR": ("a", "a ", "a")}


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(kind=st.sampled_from(["int", "dec", "dt", "ts", "date", "time", "float", "pool", "pool2", "ascii"]),
       typ=st.sampled_from(sorted(_POOLS)), n=st.integers(1, 40), data=st.data())
def test_same_arrays_equal_same_value_row_by_row(kind: str, typ: str, n: int, data: Any) -> None:
    """The array comparison of ``unchanged_updates`` (two ColumnArrays of one kind: units,
    floats with their sign, pool entries by their stored value, ASCII text byte rows with
    CHAR's trailing spaces; NULL only the same as NULL)
    says what ``same_value`` says of each row's two Python values — or leaves it to it."""
    col = Column("c", typ, length=4, nullable=True)
    pool = _POOLS[typ]
    assume(typ != "JSON" or kind.startswith("pool"))  # JSON documents come as pools or Python values
    assume(kind != "ascii" or typ in ("CHAR", "VARCHAR"))  # ASCII text: character columns
    small = st.integers(-2, 2)
    if kind == "float":
        vals = st.sampled_from([0.0, -0.0, 1.5, -1.5, 3.0])
    elif kind == "pool" or kind == "pool2":
        vals = st.integers(0, len(pool) - 1)
    else:
        vals = small
    arrays = []
    for _ in range(2):
        if kind == "ascii":  # short texts with trailing / inner spaces, NUL-padded to one width
            texts = data.draw(st.lists(st.text("ab ", max_size=4), min_size=n, max_size=n))
            d = np.frombuffer(b"".join(t.encode().ljust(4, b"\0") for t in texts), dtype=np.uint8).reshape(n, 4)
            nulls = data.draw(st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n)))
            arrays.append(ColumnArray("ascii", d, None if nulls is None else np.array(nulls, dtype=bool)))
            continue
        d = np.array(data.draw(st.lists(vals, min_size=n, max_size=n)),
                     dtype=np.float64 if kind == "float" else np.int64)
        nulls = data.draw(st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n)))
        meta = data.draw(st.sampled_from([2, 2, 3])) if kind == "dec" else None
        k = "pool" if kind == "pool2" else kind
        p = (tuple(list(pool)) if kind == "pool2" and arrays else pool) if k == "pool" else None
        arrays.append(ColumnArray(k, d, None if nulls is None else np.array(nulls, dtype=bool), p, meta))
    a, b = arrays
    got = same_arrays(col, a, b)
    want = [same_value(col, x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    if got is not None:
        assert got.tolist() == want
    else:  # left to same_value: pools that are not one object, scales that differ
        assert kind == "pool2" or (kind == "dec" and a.meta != b.meta)
