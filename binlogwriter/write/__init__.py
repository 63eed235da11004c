"""Writing binlogs: transactions laid out as the servers do, and the writer that numbers,
positions and files them.

* :mod:`binlogwriter.write.writer` — :class:`~binlogwriter.write.writer.BinlogWriter`, the only
  stateful part of the codec, split by concept into mixins: :mod:`~binlogwriter.write.files`
  (files, ``log_pos``, rotation, ``binlog.index``), :mod:`~binlogwriter.write.groups` (groups
  staged, encoded and planned), :mod:`~binlogwriter.write.events` (GTID / XID / TABLE_MAP
  events, transactions and DDL); its position as a value is :mod:`~binlogwriter.write.state`
  (``WriterState``: ``state``, ``suspend``, ``resume``); every id comes from :mod:`~binlogwriter.write.ids` (``IdAllocator``).
* :mod:`binlogwriter.write.transaction` — :class:`~binlogwriter.write.transaction.Transaction`
  and :class:`~binlogwriter.write.transaction.SessionSettings`: statements → events (format.md
  §1, §8–§13); a statement's rows checked and encoded in :mod:`~binlogwriter.write.statement_rows`
  (rows as given: :mod:`~binlogwriter.write.row_input`; JSON partial updates:
  :mod:`~binlogwriter.write.partial_json`).

The modules below the writer (``transaction``, ``ids``) are used by the batch encoder
(:mod:`binlogwriter.batch`), which the writer uses in turn; so this face imports nothing.
"""
