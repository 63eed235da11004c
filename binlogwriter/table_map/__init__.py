"""TABLE_MAP column metadata and optional metadata (format.md §12, §12.1; mariadb.md
"TABLE_MAP optional metadata").

* :mod:`binlogwriter.table_map.metadata` — :func:`build_table_map` (schema → the fields a
  server writes, NO_LOG / MINIMAL / FULL) and :class:`TableMap`, the decoded view of one.
* :mod:`binlogwriter.table_map.tlv` — the optional-metadata vocabulary: TLV type codes, one
  construct declaration per TLV value type, numeric and character types (the metadata sizes
  are :data:`binlogwriter.values.families.META_SIZE`).
* :mod:`binlogwriter.table_map.views` — :class:`TableMap`'s per-column views (signedness,
  charsets, names, ENUM/SET strings, primary key, ``ColumnDesc``).

The TABLE_MAP body's own construct declaration is :mod:`binlogwriter.layouts.table_map`; the
event class is :mod:`binlogwriter.events.table_map`.
"""
