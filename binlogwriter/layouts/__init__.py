"""construct declarations of every event layout (format.md), one module per family:
:mod:`~binlogwriter.layouts.header` (the common header), :mod:`~binlogwriter.layouts.control`,
:mod:`~binlogwriter.layouts.query`, :mod:`~binlogwriter.layouts.mariadb`,
:mod:`~binlogwriter.layouts.table_map`, :mod:`~binlogwriter.layouts.rows`, built on
:mod:`~binlogwriter.layouts.primitives`.

Which layout, class and post-header belong to a type code is the one table
:data:`binlogwriter.events.table.EVENTS`; :func:`binlogwriter.events.table.body_layout`
builds an event's post-header + body Struct for a :class:`BinlogFormat`.
"""
