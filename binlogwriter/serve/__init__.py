"""``binlogwriter serve``: a replication primary speaking the MySQL client/server protocol that
feeds binlog files (or a generator run) to CDC clients and replicas (docs/serve.md).

From Python: :func:`serving` (docs/serve.md "From Python") starts the server in this process
and returns a :class:`Serving` with ``host``, ``port``, ``user``, ``password``, ``flavor``,
``serve(other_files)`` and ``close()``.

Modules: :mod:`.protocol` (packets, result sets), :mod:`.auth` (handshake v10 and the two
password plugins), :mod:`.binlogs` (the served file set: names, formats, GTID state),
:mod:`.dump_files` (a file's events, framed by :mod:`binlogwriter.read.framing`), :mod:`.gtid` (GTID sets), :mod:`.queries`
(answers to what clients ask before dumping), :mod:`.dump` (COM_BINLOG_DUMP / _GTID streams,
heartbeats, pacing), :mod:`.server` (connections), :mod:`.api` (:func:`serving`), :mod:`.cli`
(the command).
"""

from binlogwriter.serve.api import Serving, serving
from binlogwriter.serve.binlogs import ServeError
from binlogwriter.serve.server import ServeConfig, Server

__all__ = ["ServeConfig", "ServeError", "Server", "Serving", "serving"]
