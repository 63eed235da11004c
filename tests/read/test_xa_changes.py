"""XA transactions in ``changes()`` and the columnar export, on real MariaDB 10.11 binlogs
(tests/data/xa/README.md): a prepared transaction's rows are changes when its ``XA COMMIT``
comes — later in the stream, possibly in another file — and never when ``XA ROLLBACK`` does;
replaying the changes gives the tables the server held."""

from __future__ import annotations

import json
from pathlib import Path

from binlogwriter.read.export import changes_tables
from binlogwriter.reader import BinlogReader

DATA = Path(__file__).resolve().parents[1] / "data" / "xa"
FILES = sorted(DATA.glob("mariadb-10.11-xa.0*"))


def replay(changes) -> dict[str, list[list]]:
    tables: dict[str, dict[int, list]] = {}
    for c in changes:
        rows = tables.setdefault(f"{c.database}.{c.table}", {})
        if c.before is not None:
            del rows[c.before["id"]]
        if c.after is not None:
            rows[c.after["id"]] = [c.after["id"], c.after["v"]]
    return {k: sorted(v.values()) for k, v in tables.items()}


def test_replayed_changes_equal_the_servers_tables() -> None:
    assert len(FILES) == 3
    assert replay(BinlogReader(FILES).changes()) == json.loads((DATA / "final-tables.json").read_text())


def test_xa_rows_come_at_their_commit_without_an_xid() -> None:
    changes = [c for c in BinlogReader(FILES).changes() if c.table == "m"]
    ids = [(c.after or c.before)["id"] for c in changes]
    # x1 (10, update of 2); x2 rolled back (20, delete of 1) absent; x3 one phase (30);
    # 50 committed while x4 (40) was prepared; x5 rolled back; x6 (update of 2) in file 3
    assert ids == [1, 2, 10, 2, 30, 50, 40, 2]
    x1 = changes[2:4]
    assert [c.gtid for c in x1] == ["0-1-4", "0-1-4"] and [c.xid for c in x1] == [None, None]
    assert changes[4].xid is not None  # one phase: an ordinary XID
    assert changes[-1].after == {"id": 2, "v": 110} and changes[-1].file == str(FILES[1])


def test_a_transaction_prepared_but_not_resolved_gives_no_changes() -> None:
    """Reading file 2 alone: x6 is prepared there and committed in file 3 (not read)."""
    assert [c for c in BinlogReader(FILES[:2]).changes() if c.file == str(FILES[1])] == []


def test_export_holds_the_changes_of_changes() -> None:
    want: dict[str, list] = {}
    for c in BinlogReader(FILES).changes():
        want.setdefault(f"{c.database}.{c.table}", []).append(
            (c.op, c.gtid, c.position, c.before and c.before["v"], c.after and c.after["v"]))
    got = {k: [(r["op"], r["gtid"], r["position"], r["before.v"], r["after.v"]) for r in t.to_pylist()]
           for k, t in changes_tables(FILES).items()}
    assert got == want
