"""Make a throwaway MariaDB 10.11 serve binlog files that binlogwriter wrote, to replicas.

Replication-protocol decoders (python-mysql-replication, ...) only read binlogs from a server.
:meth:`ServingMariaDBServer.serve_binlogs` makes the server serve ours: a clean shutdown, our
files and a ``binlog.index`` naming them replace the server's own (same base name ``binlog``),
``binlog.state`` is removed so the server recovers its GTID state by scanning our last file,
then the same datadir is started again. On start MariaDB opens the index and rotates to a
new file of its own (the next number); ours stay listed and are served to replicas.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from .mariadb import MariaDBError, MariaDBServer, quote_str

BASENAME = "binlog"


class ServingMariaDBServer(MariaDBServer):
    """A :class:`MariaDBServer` that can be restarted on someone else's binlog files."""

    def serve_binlogs(self, files: Sequence[Path]) -> None:
        files = [Path(f) for f in files]
        if not files:
            raise ValueError("no binlog files to serve")
        for f in files:
            if f.name.rsplit(".", 1)[0] != BASENAME:
                raise ValueError(f"{f}: the server's binlogs are named {BASENAME}.NNNNNN")
        self.shutdown()
        datadir = self.datadir
        for old in self.binlog_files():
            old.unlink()
        (datadir / f"{BASENAME}.index").unlink()
        # Left in place it would give the server the GTID state of its own (deleted) binlogs.
        (datadir / f"{BASENAME}.state").unlink(missing_ok=True)
        for f in files:
            shutil.copyfile(f, datadir / f.name)
        (datadir / f"{BASENAME}.index").write_text("".join(f"./{f.name}\n" for f in files))
        # start() would copy a fresh datadir from the template: restart this one instead.
        self._proc = subprocess.Popen(self.server_args(), stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not self._wait_ready():
            raise MariaDBError(f"mariadbd did not restart on the swapped binlogs; "
                               f"{self.error_log}:\n{self._error_log_tail()}")

    def create_replication_user(self, user: str, password: str) -> None:
        """A TCP user (127.0.0.1) with REPLICATION SLAVE, REPLICATION CLIENT and SELECT."""
        account = f"{quote_str(user)}@'127.0.0.1'"
        self.execute(f"CREATE USER {account} IDENTIFIED BY {quote_str(password)};\n"
                     f"GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO {account};\n")
