"""Binlog events as mysqlbinlog / mariadb-binlog print them (``binlogwriter inspect``).

* :mod:`binlogwriter.text.event` — one event: the ``# at`` / header line, its summary and body
  (the reference path); :class:`RenderOptions` says what to print.
* :mod:`binlogwriter.text.rows` — rows events as ``###`` pseudo-SQL (``-v`` / ``-vv``), with
  one column's type name and value text in :mod:`binlogwriter.text.columns`, rows the reader
  left raw in :mod:`binlogwriter.text.rawrows`, and the ``###`` text straight from row bytes in
  :mod:`binlogwriter.text.fused`.
* :mod:`binlogwriter.text.metadata` — ``--print-table-metadata`` lines of a TABLE_MAP.
* :mod:`binlogwriter.text.listing` — whole files printed fast (:func:`write_listing
  <binlogwriter.text.listing.write_listing>`), equal to the reference path.
"""

from binlogwriter.text.event import RenderOptions, format_time, render_event, render_tail

__all__ = ["RenderOptions", "format_time", "render_event", "render_tail"]
