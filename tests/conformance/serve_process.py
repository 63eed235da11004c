"""``binlogwriter serve`` started by a test: a subprocess on 127.0.0.1 and a free port.

The process prints ``listening on 127.0.0.1:PORT`` on stderr once it accepts connections; its
log lines (stderr) are collected in :attr:`ServeProcess.log` for tests that check incidents.
It is always stopped (by the pid it was started with) on exit.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from binlogwriter.pytest_plugin import ServeSubprocess

ROOT = Path(__file__).resolve().parents[2]
USER, PASSWORD = "repl", "repl-pw"


class ServeProcess:
    """:class:`binlogwriter.pytest_plugin.ServeSubprocess` (the ``binlog_server`` fixture's
    process mode) as a context manager, logging at INFO, with this checkout first on the
    subprocess's PYTHONPATH."""

    def __init__(self, sources: Sequence[os.PathLike | str], *args: str, user: str = USER,
                 password: str = PASSWORD, timeout: float = 60.0) -> None:
        self.sources, self.args = list(sources), list(args)
        self.user, self.password = user, password
        self.timeout = timeout
        self.port: int | None = None
        self.log: list[str] = []
        self._serve: ServeSubprocess | None = None

    @property
    def _proc(self) -> subprocess.Popen | None:
        return self._serve.proc if self._serve is not None else None

    def __enter__(self) -> ServeProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self._serve = ServeSubprocess(self.sources, self.user, self.password, timeout=self.timeout, quiet=False,
                                      extra=self.args, env=env, cwd=ROOT)
        self.port, self.log = self._serve.port, self._serve.log
        return self

    def __exit__(self, *exc) -> None:
        if self._serve is not None:
            self._serve.close()

    @property
    def settings(self) -> dict:
        return dict(host="127.0.0.1", port=self.port, user=self.user, password=self.password)

    def wait_log(self, pattern: str, timeout: float = 10.0) -> list[str]:
        """Log lines matching ``pattern``, waiting up to ``timeout`` for at least one."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            found = [line for line in self.log if rx.search(line)]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)
