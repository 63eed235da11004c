"""FOREIGN KEYs of a custom schema (generators/foreign_keys.py): every committed state of a
generated run has each child row referencing a live parent row; tables come parents first;
what the generator cannot follow is a SchemaError naming the place. The replay into MariaDB
with the constraints enforced is tests/conformance/test_foreign_keys_replay.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.errors import SchemaError
from binlogwriter.reader import BinlogReader
from generators.engine import generate
from generators.spec import Spec
from generators.workloads import load_workload

DDL = """
CREATE TABLE ship (id INT NOT NULL PRIMARY KEY, so BIGINT UNSIGNED NOT NULL, sn SMALLINT NOT NULL,
  FOREIGN KEY (so, sn) REFERENCES line (o, n));
CREATE TABLE line (o BIGINT UNSIGNED NOT NULL, n SMALLINT NOT NULL, p CHAR(8) NOT NULL, q INT,
  PRIMARY KEY (o, n), FOREIGN KEY (o) REFERENCES ord (id), FOREIGN KEY (p) REFERENCES prod (code));
CREATE TABLE ord (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, who VARCHAR(60) NOT NULL,
  note VARCHAR(20), CONSTRAINT fk_who FOREIGN KEY (who) REFERENCES cust (email));
CREATE TABLE cust (id INT NOT NULL PRIMARY KEY, email VARCHAR(60) NOT NULL, UNIQUE KEY (email));
CREATE TABLE prod (code CHAR(8) NOT NULL, price DECIMAL(6,2), PRIMARY KEY (code));
CREATE TABLE node (id INT NOT NULL PRIMARY KEY, up INT REFERENCES node (id), label VARCHAR(10));
"""
# child table -> [(child columns, parent table, parent columns)]
REFS = {"ship": [(("so", "sn"), "line", ("o", "n"))],
        "line": [(("o",), "ord", ("id",)), (("p",), "prod", ("code",))],
        "ord": [(("who",), "cust", ("email",))],
        "node": [(("up",), "node", ("id",))]}


def _references_live(state: dict[str, dict[tuple, dict]], refs: dict) -> None:
    """Every child row's FOREIGN KEY values (``refs``: child -> [(columns, parent, parent
    columns)]) are NULL or a live parent row's."""
    for child, links in refs.items():
        for cols, parent, pcols in links:
            have = {tuple(r[c] for c in pcols) for r in state[parent].values()}
            for r in state[child].values():
                v = tuple(r[c] for c in cols)
                assert None in v or v in have, f"{child}{cols}={v} references no {parent} row"


def _replay_checking(out: Path, tables: dict, state: dict[str, dict[tuple, dict]], check) -> None:
    """Apply OUT's binlog changes to ``state`` (table -> primary key -> row), calling ``check``
    after every commit."""
    def key(name: str, row: dict) -> tuple:
        t = tables[name]
        return tuple(row[t.columns[i].name] for i, _ in t.effective_primary_key())

    files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
    last_xid = None
    for ch in BinlogReader(files, schemas=list(tables.values())).changes():
        if ch.xid != last_xid and last_xid is not None:
            check()
        last_xid = ch.xid
        rows = state[ch.table]
        if ch.op == "insert":
            rows[key(ch.table, ch.after)] = dict(ch.after)
        elif ch.op == "update":
            k = key(ch.table, ch.before)
            rows[k] = {**rows[k], **ch.after}
        else:
            rows.pop(key(ch.table, ch.before))
    check()


def _spec(**kw) -> Spec:
    base = dict(flavor="mariadb1011", database="fk", workload=None, schema_sql=DDL, schema_file="fk.sql",
                seed=1, transactions=60, initial_rows=5, mix="insert=0.4,update=0.2,delete=0.4")
    base.update(kw)
    return Spec.from_dict(base)


def test_tables_come_parents_first() -> None:
    names = [td.name for td in load_workload(_spec()).tables]
    for child, refs in REFS.items():
        for _, parent, _ in refs:
            if parent != child:
                assert names.index(parent) < names.index(child), names


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       initial=st.integers(1, 6), image=st.sampled_from(["FULL", "MINIMAL"]))
def test_every_commit_keeps_every_reference(tmp_path_factory, seed, flavor, initial, image) -> None:
    out = tmp_path_factory.mktemp("fk") / "run"
    spec = _spec(seed=seed, flavor=flavor, initial_rows=initial, row_image=image, ddl_in_binlog=True)
    generate(spec, out)
    tables = {td.name: td.table for td in load_workload(spec).tables}
    state: dict[str, dict[tuple, dict]] = {n: {} for n in tables}

    _replay_checking(out, tables, state, lambda: _references_live(state, REFS))
    final = {p.name.split(".")[1]: len(p.read_text().splitlines()) for p in (out / "truth" / "final").glob("*.jsonl")}
    assert final == {n: len(v) for n, v in state.items()}
    assert all(json.loads(x)["id"] for x in (out / "truth" / "final" / "fk.ord.jsonl").read_text().splitlines())


@pytest.mark.parametrize(("ddl", "message"), [
    ("CREATE TABLE a (id INT PRIMARY KEY, b INT NOT NULL, FOREIGN KEY (b) REFERENCES nowhere (id));",
     "fk.a.b: FOREIGN KEY fk0 references fk.nowhere, which is not in the schema"),
    ("CREATE TABLE p (id INT PRIMARY KEY, v INT);\nCREATE TABLE a (id INT PRIMARY KEY, b INT, "
     "FOREIGN KEY (b) REFERENCES p (v));", "is not its PRIMARY KEY or a UNIQUE key"),
    ("CREATE TABLE p (id INT PRIMARY KEY, q INT);\nCREATE TABLE a (x INT, y INT, PRIMARY KEY (x, y), "
     "FOREIGN KEY (x, y) REFERENCES p (id, q));", "is not its PRIMARY KEY"),
    ("CREATE TABLE p (id INT PRIMARY KEY, q INT NOT NULL, UNIQUE KEY (id, q));\n"
     "CREATE TABLE a (x INT NOT NULL, y INT NOT NULL, PRIMARY KEY (x), FOREIGN KEY (x, y) REFERENCES p (id, q));",
     "fk.a.x: the FOREIGN KEY fk0 columns are part of a PRIMARY/UNIQUE key (x) whose other columns cannot tell "
     "its rows apart alone, but not all inside it"),
    ("CREATE TABLE a (id INT PRIMARY KEY, up INT NOT NULL, UNIQUE KEY (up), FOREIGN KEY (up) REFERENCES a (id));",
     "refers to the table itself"),
    ("CREATE TABLE p (id INT PRIMARY KEY);\nCREATE TABLE q (id INT PRIMARY KEY);\n"
     "CREATE TABLE a (x INT NOT NULL, y INT NOT NULL, UNIQUE KEY (x), UNIQUE KEY (y), "
     "FOREIGN KEY (x) REFERENCES p (id), FOREIGN KEY (y) REFERENCES q (id));", "do not nest"),
    ("CREATE TABLE a (id INT PRIMARY KEY, b INT, UNIQUE KEY (b), FOREIGN KEY (b) REFERENCES c (id));\n"
     "CREATE TABLE c (id INT PRIMARY KEY, d INT, FOREIGN KEY (d) REFERENCES a (b));",
     "form a cycle between tables: fk.a -> fk.c -> fk.a"),
    ("CREATE TABLE a (id INT PRIMARY KEY, b INT, FOREIGN KEY (b, id) REFERENCES c (id));\n"
     "CREATE TABLE c (id INT PRIMARY KEY);", "has 2 columns but references 1"),
])
def test_what_the_generator_cannot_follow_is_a_schema_error(ddl: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_workload(_spec(schema_sql=ddl))


def test_no_initial_parents_needs_nullable_columns(tmp_path: Path) -> None:
    ddl = "CREATE TABLE p (id INT PRIMARY KEY);\nCREATE TABLE c (id INT PRIMARY KEY, r INT NOT NULL REFERENCES p (id));"
    with pytest.raises(SchemaError, match=r"fk\.c\.r: FOREIGN KEY r_ref needs initial rows in fk\.p"):
        load_workload(_spec(schema_sql=ddl, initial_rows=0))


_VEC_DDL = DDL + """
CREATE TABLE tag (name VARCHAR(30) CHARACTER SET utf8mb4 NOT NULL PRIMARY KEY, n INT);
CREATE TABLE post (id INT NOT NULL PRIMARY KEY, tag VARCHAR(30) CHARACTER SET utf8mb4 NOT NULL REFERENCES tag (name),
  body TEXT CHARACTER SET utf8mb4);
CREATE TABLE wlog (who VARCHAR(60) NULL, up INT NULL, """ + ", ".join(
    f"w{i} {('INT', 'VARCHAR(12) CHARACTER SET utf8mb4', 'DECIMAL(8,2)', 'DATETIME(6)')[i % 4]} NULL" for i in range(80)) + """,
  FOREIGN KEY (who) REFERENCES cust (email), FOREIGN KEY (up) REFERENCES node (id));
"""
_NULLABLE_DDL = """
CREATE TABLE p (id BIGINT NOT NULL PRIMARY KEY, code CHAR(4) NOT NULL, UNIQUE KEY (code));
CREATE TABLE c (id INT NOT NULL PRIMARY KEY, r BIGINT NULL REFERENCES p (id), s CHAR(4) NULL REFERENCES p (code),
  me INT NULL REFERENCES c (id));
"""


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       nullable=st.booleans(), initial=st.integers(0, 7), edge=st.sampled_from([0.0, 0.3]), data=st.data())
def test_vectorised_references_equal_the_scalar_ones(seed, flavor, nullable, initial, edge, data) -> None:
    """A FOREIGN KEY column's twin (``fn.vec``: many child keys at once, generators/rows.py
    takes it for the key column) gives what ``fn`` gives key by key — parents' integer,
    CHAR, utf8mb4 VARCHAR and composite keys, a reference to a reference (ship -> line ->
    ord), self-references (keys below the initial count and key 0), NULL without initial
    parents — and the rows made with it are the scalar rows, a wide keyless child included."""
    from pathlib import Path

    import numpy as np

    from generators.engine import Run

    if not nullable:
        initial = max(1, initial)
    spec = _spec(seed=seed, flavor=flavor, initial_rows=initial, schema_sql=_NULLABLE_DDL if nullable else _VEC_DDL,
                 edge_values=edge or None)
    run = Run(spec, Path("unused"))
    keys = np.array(data.draw(st.lists(st.integers(0, 400), min_size=1, max_size=40), label="keys"), dtype=np.int64)
    checked = 0
    for rt in run.rows:
        for name, fn in rt.tdef.key_fns.items():
            vec = getattr(fn, "vec", None)
            if vec is None:
                continue
            got = vec(keys)
            got = got if isinstance(got, list) else got.tolist()
            assert got == [fn(k) for k in keys.tolist()], (rt.table.name, name)
            checked += 1
        vers = np.zeros(len(keys), dtype=np.int64)
        cols = [c if isinstance(c, list) else c.tolist() for c in rt.compute_columns(keys, vers, vers)]
        for r, k in enumerate(keys.tolist()):
            assert tuple(c[r] for c in cols) == rt.compute_scalar(k, 0, 0), (rt.table.name, k)
    assert checked >= (3 if nullable else 6)


NARROW = """
CREATE TABLE parent (a TINYINT NOT NULL, b BIGINT NOT NULL, v VARCHAR(10), PRIMARY KEY (a, b));
CREATE TABLE child (id INT NOT NULL PRIMARY KEY, pa TINYINT, pb BIGINT,
  FOREIGN KEY (pa, pb) REFERENCES parent (a, b));
"""


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       initial=st.integers(200, 700))
def test_a_reference_to_a_narrow_part_of_a_composite_key_finds_its_row(tmp_path_factory, seed, flavor,
                                                                         initial) -> None:
    """More parents than the TINYINT part of their key holds: the parent's rows wrap that part
    around its range (generators/key_space.py ``key_wraps``) and the child's references must take
    the same wrapped value, or they point at no row (they did: about half of them orphans)."""
    out = tmp_path_factory.mktemp("fk") / "run"
    generate(_spec(seed=seed, flavor=flavor, initial_rows=initial, schema_sql=NARROW, schema_file="narrow.sql",
                   transactions=30), out)
    final = out / "truth" / "final"
    parents = {(r["a"], r["b"]) for r in map(json.loads, (final / "fk.parent.jsonl").read_text().splitlines())}
    children = [json.loads(x) for x in (final / "fk.child.jsonl").read_text().splitlines()]
    assert len(parents) >= initial and len(children) >= initial - 30
    orphans = [c for c in children if c["pa"] is not None and (c["pa"], c["pb"]) not in parents]
    assert not orphans, orphans[:3]


LINKS = """
CREATE TABLE lang (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, name CHAR(8) NOT NULL);
CREATE TABLE film (id SMALLINT UNSIGNED NOT NULL PRIMARY KEY, lang TINYINT UNSIGNED NOT NULL REFERENCES lang (id));
CREATE TABLE actor (id INT NOT NULL PRIMARY KEY, code CHAR(6) NOT NULL, UNIQUE KEY (code));
CREATE TABLE film_actor (film SMALLINT UNSIGNED NOT NULL, actor CHAR(6) NOT NULL, role VARCHAR(10),
  PRIMARY KEY (film, actor), UNIQUE KEY (actor, film),
  FOREIGN KEY (film) REFERENCES film (id), FOREIGN KEY (actor) REFERENCES actor (code));
CREATE TABLE bio (actor INT NOT NULL PRIMARY KEY, text VARCHAR(20), FOREIGN KEY (actor) REFERENCES actor (id));
CREATE TABLE store (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, manager INT NOT NULL, UNIQUE KEY (manager),
  FOREIGN KEY (manager) REFERENCES staff (id));
CREATE TABLE staff (id INT NOT NULL PRIMARY KEY, store TINYINT UNSIGNED NOT NULL REFERENCES store (id));
CREATE TABLE user_contact (uid INT NOT NULL, cid SMALLINT UNSIGNED NOT NULL, uri INT NULL, kind TINYINT NOT NULL,
  PRIMARY KEY (uid, cid), UNIQUE KEY (uri, uid), KEY (kind),
  FOREIGN KEY (uid) REFERENCES actor (id), FOREIGN KEY (cid) REFERENCES film (id), FOREIGN KEY (uri) REFERENCES bio (actor));
CREATE TABLE link3 (a INT NOT NULL, b SMALLINT UNSIGNED NOT NULL, c TINYINT UNSIGNED NOT NULL,
  PRIMARY KEY (a, b, c), FOREIGN KEY (a) REFERENCES actor (id), FOREIGN KEY (b) REFERENCES film (id),
  FOREIGN KEY (c) REFERENCES lang (id));
"""
# child -> [(columns, parent, parent columns)]
LINK_REFS = {"film": [(("lang",), "lang", ("id",))],
             "film_actor": [(("film",), "film", ("id",)), (("actor",), "actor", ("code",))],
             "bio": [(("actor",), "actor", ("id",))], "store": [(("manager",), "staff", ("id",))],
             "staff": [(("store",), "store", ("id",))],
             "link3": [(("a",), "actor", ("id",)), (("b",), "film", ("id",)), (("c",), "lang", ("id",))],
             "user_contact": [(("uid",), "actor", ("id",)), (("cid",), "film", ("id",)), (("uri",), "bio", ("actor",))]}


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       initial=st.sampled_from([1, 2, 3, 7, 40, 300]), image=st.sampled_from(["FULL", "MINIMAL"]),
       mix=st.sampled_from(["insert=0.6,update=0.1,delete=0.3", "insert=0.3,update=0.3,delete=0.4"]))
def test_keys_of_foreign_key_columns_stay_unique(tmp_path_factory, seed, flavor, initial, image, mix) -> None:
    """Link tables (keys of two or three FOREIGN KEYs, a second UNIQUE key over the same
    columns; a UNIQUE key that does not nest with the PRIMARY KEY, its nullable FOREIGN KEY
    then NULL), a 1:1 table, a cycle (store <-> staff) and TINYINT keys with more initial rows
    asked than they hold: from the initial rows through every commit of the binlog, every
    PRIMARY / UNIQUE key is unique and every reference finds its parent row, and each table
    holds no more initial rows than its keys tell apart."""
    from pathlib import Path

    from generators.engine import Run

    spec = _spec(seed=seed, flavor=flavor, initial_rows=initial, schema_sql=LINKS, schema_file="links.sql",
                 transactions=150, row_image=image, mix=mix)
    out = tmp_path_factory.mktemp("links") / "run"
    generate(spec, out)
    run = Run(spec, Path("unused"))
    tables = {rt.table.name: rt.table for rt in run.rows}
    keysets = {n: [[t.columns[i].name for i, _ in t.effective_primary_key()]]
               + [[p.column for p in k.parts] for k in t.unique_keys] for n, t in tables.items()}
    state: dict[str, dict[tuple, dict]] = {}
    for rt in run.rows:
        rows = [dict(zip([c.name for c in rt.table.columns], rt.compute(k, 0, 0), strict=True))
                for k in range(rt.tdef.initial_count)]
        state[rt.table.name] = {tuple(r[c] for c in keysets[rt.table.name][0]): r for r in rows}
        assert len(state[rt.table.name]) == rt.tdef.initial_count, rt.table.name
    assert len(state["lang"]) == len(state["store"]) == min(initial, 255) and len(state["bio"]) == initial

    def check() -> None:
        for name, rows in state.items():
            for ks in keysets[name]:
                vals = [v for v in (tuple(r[c] for c in ks) for r in rows.values()) if None not in v]
                assert len(set(vals)) == len(vals), f"{name} {ks} repeats a key"
        _references_live(state, LINK_REFS)

    check()
    _replay_checking(out, tables, state, check)
    assert sum(len(v) for v in state.values()) > 0


def test_a_nullable_foreign_key_to_a_table_not_in_the_file_is_null() -> None:
    """A dump made with foreign_key_checks=0 may refer to a table it does not hold: a FOREIGN
    KEY of nullable columns is then NULL in every row (replayed: tests/conformance/
    test_real_world_schemas.py ``fk-to-absent-table``); with --ddl-in-binlog it is refused."""
    from pathlib import Path

    import numpy as np

    from generators.engine import Run

    ddl = "CREATE TABLE c (id INT PRIMARY KEY, g INT NULL, v INT, FOREIGN KEY (g) REFERENCES gone (id));"
    (rt,) = Run(_spec(schema_sql=ddl, initial_rows=5), Path("unused")).rows
    keys = np.arange(50, dtype=np.int64)
    g = rt.compute_columns(keys, keys * 0, keys * 0)[1]
    assert (g if isinstance(g, list) else g.tolist()) == [None] * 50
    with pytest.raises(SchemaError, match="not with --ddl-in-binlog"):
        load_workload(_spec(schema_sql=ddl, ddl_in_binlog=True))
