"""Hypothesis strategies for binlogs: columns, tables, rows, transactions and written file sets.

Install with the ``hypothesis`` extra (``pip install binlogwriter[hypothesis]``). Every
strategy is valid by construction for the flavor and settings it is given — a value fits its
column, a table's DDL is accepted by the servers, a transaction is one a server would log —
and shrinks towards small tables, few rows and simple values (ASCII text, zero, the first
ENUM member). Building blocks, from the smallest:

``values(column, flavor)``
    values one :class:`~binlogwriter.schema.Column` can hold, in the form a reader gives back.
``columns(flavor=..., types=...)``
    column definitions (types, lengths, precisions, fsp, charsets, ENUM/SET members).
``tables(flavor=..., max_columns=..., keys=...)``
    :class:`~binlogwriter.schema.Table` objects with a key shape (PK, composite, prefix,
    UNIQUE NOT NULL, UNIQUE nullable, none); :func:`table_sql` gives their DDL.
``rows(table)``
    full rows of a table.
``transactions(tables, image=...)``
    transactions of :class:`Statement` s, each :class:`RowChange` carrying its truth.
``binlogs(flavor=..., image=...)``
    a :class:`WrittenBinlogs`: the files written and the changes and rows they hold.
``roundtrip_tables(flavor)``, ``roundtrip_rows(rt)``, ``roundtrip_transactions(rt, flavor, image)``
    writer-level round trips: statements the writer must encode even when no server would log
    them (any columns named or assigned), with the key and BLOB columns worked out from the
    DDL rules.

Example — a consumer's decoder against the truth, every flavor and row image::

    from hypothesis import given, settings
    from binlogwriter.strategies import binlogs
    from binlogwriter.testing import assert_changes_equal, read_changes

    @settings(max_examples=50, deadline=None)
    @given(binlogs())
    def test_my_decoder(case):
        with case:                                   # removes the files afterwards
            decoded = my_decoder(case.files)         # your consumer here
            assert_changes_equal(decoded, case.changes)

Value-level (codec) strategies live in :mod:`binlogwriter.strategies.codec`.
Tutorial: docs/tutorials/property-test.md.
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("binlogwriter.strategies needs hypothesis: pip install 'binlogwriter[hypothesis]'") from exc

from ._binlogs import WrittenBinlogs, binlogs, settings, write_transactions
from ._roundtrip import (
    BLOB_TYPES,
    ColSpec,
    RoundTripTable,
    WriterStatement,
    roundtrip_rows,
    roundtrip_tables,
    roundtrip_transactions,
)
from ._schema import COLUMN_TYPES, KEY_KINDS, columns, key_safe, table_sql, tables
from ._values import CHARSETS, values
from ._workload import RowChange, Statement, rows, transactions

__all__ = [
    "values", "columns", "tables", "rows", "transactions", "binlogs", "settings",
    "table_sql", "write_transactions", "key_safe",
    "RowChange", "Statement", "WrittenBinlogs",
    "COLUMN_TYPES", "KEY_KINDS", "CHARSETS",
    "roundtrip_tables", "roundtrip_rows", "roundtrip_transactions", "RoundTripTable", "ColSpec",
    "WriterStatement", "BLOB_TYPES",
]
