"""Schemas of drawn FOREIGN KEY graphs (generators/foreign_keys.py) replay into MariaDB 10.11
with the constraints enforced (foreign_key_checks=1) to exactly truth/final.

Each drawn schema has 2 to 6 tables: integer keys of every width (a TINYINT key holds fewer
rows than ``--initial-rows`` may ask), composite keys, references to a PRIMARY or a UNIQUE
key, nullable and NOT NULL references, link tables whose key is two or three FOREIGN KEYs,
1:1 tables (a UNIQUE FOREIGN KEY), keys of a FOREIGN KEY and a narrow column, keys holding
part of a FOREIGN KEY and an own column (TPC-C's orders), self-references and, sometimes, a
cycle between two tables. The server's own checks are the judge: a duplicate key or a reference to no row
stops the replay.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators.engine import generate
from generators.spec import Spec

from .mariadb import MariaDBServer
from .test_generate_replay import check_readers, final_truth, run_files

pytestmark = pytest.mark.conformance

_KEY_TYPES = ["TINYINT UNSIGNED", "SMALLINT", "INT", "INT UNSIGNED", "BIGINT", "MEDIUMINT UNSIGNED"]


@st.composite
def fk_schemas(draw) -> str:
    """CREATE TABLE statements of a drawn FOREIGN KEY graph (module docstring)."""
    n = draw(st.integers(2, 6), label="tables")
    keys: list[list[tuple[str, str]]] = []  # per table: its PRIMARY KEY columns (name, type)
    uniques: list[list[tuple[str, str]]] = []  # per table: a UNIQUE key's columns, if any
    ddl = []
    for i in range(n):
        cols: list[str] = []
        fk_clauses: list[str] = []
        fk_cols: list[tuple[str, str]] = []
        fk_groups: list[tuple[list[tuple[str, str]], bool]] = []  # each FOREIGN KEY's columns, NOT NULL
        self_ref = i > 0 and draw(st.booleans(), label=f"t{i} self")
        refs = draw(st.lists(st.integers(0, i - 1), max_size=3), label=f"t{i} refs") if i else []
        for j, p in enumerate(refs):
            target = uniques[p] if uniques[p] and draw(st.booleans(), label="to unique") else keys[p]
            names = [f"r{j}_{c}" for c, _ in target]
            null = "" if draw(st.booleans(), label="nullable") else " NOT NULL"
            cols += [f"{nm} {typ}{null}" for nm, (_, typ) in zip(names, target, strict=True)]
            fk_cols += list(zip(names, [t for _, t in target], strict=True))
            fk_groups.append((list(zip(names, [t for _, t in target], strict=True)), bool(null)))
            fk_clauses.append(f"FOREIGN KEY ({', '.join(names)}) REFERENCES t{p} ({', '.join(c for c, _ in target)})")
        shape = draw(st.sampled_from(["own", "own", "composite", "link", "one-to-one", "fk-plus", "fk-overlap"]),
                     label=f"t{i} key")
        not_null = all("NOT NULL" in c for c in cols)
        if (shape == "link" and len(fk_clauses) >= 2 or shape == "one-to-one" and len(fk_clauses) == 1) and not_null:
            pk = list(fk_cols)  # a link table, or a 1:1 table: a key of FOREIGN KEY columns only
        elif shape == "fk-plus" and fk_groups and fk_groups[0][1]:  # a FOREIGN KEY and a narrow column
            typ = draw(st.sampled_from(["TINYINT UNSIGNED", "TINYINT", "SMALLINT UNSIGNED", "INT"]), label="kind")
            cols.append(f"kind {typ} NOT NULL")
            pk = fk_groups[0][0] + [("kind", typ)]
        elif shape == "fk-overlap" and fk_groups and len(fk_groups[0][0]) >= 2 and fk_groups[0][1]:
            # TPC-C's orders: PRIMARY KEY (o_w_id, o_d_id, o_id), FOREIGN KEY (o_w_id, o_d_id, o_c_id): the
            # key holds part of a FOREIGN KEY and an own column, which keeps it unique
            typ = draw(st.sampled_from(_KEY_TYPES), label="own id")
            cols.append(f"oid {typ} NOT NULL")
            pk = fk_groups[0][0][:-1] + [("oid", typ)]
        else:
            typ = draw(st.sampled_from(_KEY_TYPES), label=f"t{i} id type")
            cols.insert(0, f"id {typ} NOT NULL")
            pk = [("id", typ)]
            if shape == "composite":
                typ2 = draw(st.sampled_from(_KEY_TYPES), label=f"t{i} k2 type")
                cols.insert(1, f"k2 {typ2} NOT NULL")
                pk.append(("k2", typ2))
        unique: list[tuple[str, str]] = []
        if draw(st.booleans(), label=f"t{i} unique"):
            cols.append("code CHAR(10) NOT NULL")
            unique = [("code", "CHAR(10)")]
        if self_ref and len(pk) == 1 and pk[0][0] == "id":
            cols.append(f"up {pk[0][1]}")
            fk_clauses.append(f"FOREIGN KEY (up) REFERENCES t{i} (id)")
        cols.append("v VARCHAR(20)")
        parts = cols + [f"PRIMARY KEY ({', '.join(c for c, _ in pk)})"]
        if unique:
            parts.append("UNIQUE KEY (code)")
        ddl.append(f"CREATE TABLE t{i} ({', '.join(parts + fk_clauses)})")
        keys.append(pk)
        uniques.append(unique)
    last = keys[-1]
    if n >= 3 and last[0][0] == "id" and len(last) == 1 and draw(st.booleans(), label="cycle"):
        ddl[0] = ddl[0][:-1] + f", back {last[0][1]}, FOREIGN KEY (back) REFERENCES t{n - 1} (id))"  # t0 -> last
    return ";\n".join(ddl) + ";\n"


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    with MariaDBServer(mariadb_template) as s:
        yield s


def test_drawn_foreign_key_graphs_replay_to_truth(server: MariaDBServer, tmp_path_factory) -> None:
    @settings(max_examples=14, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(ddl=fk_schemas(), seed=st.integers(0, 2**32), initial=st.sampled_from([1, 3, 20, 300]),
           flavor=st.sampled_from(["mariadb1011", "mysql80"]), image=st.sampled_from(["FULL", "MINIMAL"]))
    def check(ddl: str, seed: int, initial: int, flavor: str, image: str) -> None:
        server.execute("DROP DATABASE IF EXISTS fkg;\n")
        spec = Spec.from_dict(dict(flavor=flavor, row_metadata="FULL", row_image=image, database="fkg",
                                   seed=seed, transactions=120, initial_rows=initial, workload=None,
                                   schema_sql=ddl, schema_file="graph.sql",
                                   mix="insert=0.5,update=0.2,delete=0.3"))
        out = tmp_path_factory.mktemp("fkg") / "run"
        generate(spec, out)
        check_readers(out)
        server.execute((out / "truth" / "snapshot.sql").read_text("utf-8"))
        server.replay(run_files(out))
        for (tdb, table), rows in final_truth(out).items():
            assert server.dump_table(tdb, table) == rows, f"{tdb}.{table}\n{ddl}"

    check()
