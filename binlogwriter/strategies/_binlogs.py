"""``binlogs()``: a written binlog file set plus the changes and rows it holds."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import strategies as st

from binlogwriter.fixtures._model import WrittenBinlogs, write_transactions
from binlogwriter.schema import FLAVORS, Table
from binlogwriter.write.transaction import SessionSettings

from ._schema import tables
from ._workload import ROW_IMAGES, transactions

__all__ = ["binlogs", "settings", "WrittenBinlogs", "write_transactions"]

_MYSQL_UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


@st.composite
def settings(draw, flavor: str, image: str | None = None, metadata: str | None = None) -> SessionSettings:
    """:class:`~binlogwriter.write.transaction.SessionSettings` valid for ``flavor``: row image and
    metadata (MariaDB also NO_LOG), Rows_query/Annotate_rows on or off, a small
    ``row_event_max_size`` at times (statements split over several rows events), GTIDs
    (MySQL: anonymous, a server UUID, or a tagged GTID on 8.4; MariaDB: a domain id) and,
    on MySQL, transaction compression."""
    maria = flavor.startswith("mariadb")
    image = image or draw(st.sampled_from(ROW_IMAGES))
    metas = ("NO_LOG", "MINIMAL", "FULL") if maria else ("MINIMAL", "FULL")
    metadata = metadata or draw(st.sampled_from(metas))
    gtids = ["anonymous", _MYSQL_UUID] + ([f"{_MYSQL_UUID}:fixture"] if flavor == "mysql84" else [])
    return SessionSettings(
        row_image=image,
        row_metadata=metadata,
        rows_query=draw(st.booleans()),
        gtid="anonymous" if maria else draw(st.sampled_from(gtids)),
        domain_id=draw(st.sampled_from((0, 1, 7))) if maria else 0,
        row_event_max_size=draw(st.sampled_from((8192, 8192, 64, 256, 1024))),
        transaction_compression=not maria and draw(st.integers(0, 3)) == 0,
    )


@st.composite
def binlogs(draw, flavor: str | None = None, image: str | None = None, *, metadata: str | None = None,
            table_strategy: st.SearchStrategy[Table] | None = None, max_tables: int = 2,
            max_transactions: int = 3, directory: str | Path | None = None,
            max_binlog_size: int | None = None) -> WrittenBinlogs:
    """Draw a flavor (or use ``flavor``), session :func:`settings`, 1–``max_tables`` tables
    (``table_strategy`` or :func:`tables`), :func:`transactions` over them, and write them:
    the result is a :class:`WrittenBinlogs` — the files and the truth they hold. Files go in
    a fresh directory under ``directory`` (default: a new temporary directory; remove it
    with :meth:`WrittenBinlogs.cleanup`). ``max_binlog_size`` (>= 4096) makes the writer
    rotate to further files; by default it is sometimes 4096.

    >>> from hypothesis import given
    >>> from binlogwriter.strategies import binlogs
    >>> from binlogwriter.testing import assert_changes_equal, read_changes
    >>> @given(binlogs())                                               # doctest: +SKIP
    ... def test_reader(case):
    ...     with case:
    ...         assert_changes_equal(read_changes(case.files, case.tables), case.changes)
    """
    flavor = flavor or draw(st.sampled_from(FLAVORS))
    sess = draw(settings(flavor, image, metadata))
    n = draw(st.integers(1, max_tables))
    strat = table_strategy if table_strategy is not None else tables(flavor)
    tabs: list[Table] = []
    for i in range(n):
        t = draw(strat)
        tabs.append(replace(t, name=f"t{i}") if any(x.name == t.name for x in tabs) else t)
    txs = draw(transactions(tabs, sess.row_image, flavor, max_transactions=max_transactions))
    size = max_binlog_size or draw(st.sampled_from((1 << 30, 1 << 30, 4096)))
    parent = Path(directory) if directory is not None else None
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix="binlogs-", dir=parent))
    files = write_transactions(out, flavor, tabs, txs, sess, max_binlog_size=size)
    return WrittenBinlogs(out, files, flavor, sess, tabs, txs)
