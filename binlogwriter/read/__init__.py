"""Reading at disk speed (issue 11): lazy framing, compiled row decoders, rows as changes,
columnar export.

* :mod:`binlogwriter.read.framing` — magic, event lengths, log_pos chain and CRC32 checked
  without decoding bodies (format.md §1, §3, §4).
* :mod:`binlogwriter.read.rowdecode` — a row-image decoder compiled once per Table_map
  (format.md §13), equal to the declarative path (property-tested).
* :mod:`binlogwriter.read.changes` — one :class:`Change` per row change, columns by name.
* :mod:`binlogwriter.read.export` — changes of a table as an Arrow table / Parquet dataset.
"""
