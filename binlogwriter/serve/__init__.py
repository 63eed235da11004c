"""``binlogwriter serve``: a replication primary speaking the MySQL client/server protocol that
feeds binlog files (or a generator run) to CDC clients and replicas (docs/serve.md).

Modules: :mod:`.protocol` (packets, result sets), :mod:`.auth` (handshake v10 and the two
password plugins), :mod:`.binlogs` (the served file set: names, formats, GTID state),
:mod:`.framing` (raw events of a file, fast), :mod:`.gtid` (GTID sets), :mod:`.queries`
(answers to what clients ask before dumping), :mod:`.dump` (COM_BINLOG_DUMP / _GTID streams,
heartbeats, pacing), :mod:`.server` (connections), :mod:`.cli` (the command).
"""

from binlogwriter.serve.server import ServeConfig, Server

__all__ = ["ServeConfig", "Server"]
