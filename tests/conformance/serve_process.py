"""``binlogwriter serve`` started by a test: a subprocess on 127.0.0.1 and a free port.

The process prints ``listening on 127.0.0.1:PORT`` on stderr once it accepts connections; its
log lines (stderr) are collected in :attr:`ServeProcess.log` for tests that check incidents.
It is always stopped (by the pid it was started with) on exit.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
USER, PASSWORD = "repl", "repl-pw"


class ServeProcess:
    def __init__(self, sources: Sequence[os.PathLike | str], *args: str, user: str = USER,
                 password: str = PASSWORD, timeout: float = 60.0) -> None:
        self.argv = [sys.executable, "-m", "binlogwriter", "serve", *map(str, sources), "--port", "0",
                     "--user", user, "--password", password, *args]
        self.user, self.password = user, password
        self.timeout = timeout
        self.port: int | None = None
        self.log: list[str] = []
        self._proc: subprocess.Popen | None = None

    def __enter__(self) -> ServeProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self._proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        ready = threading.Event()

        def drain() -> None:
            assert self._proc is not None and self._proc.stderr is not None
            for line in self._proc.stderr:
                self.log.append(line.rstrip("\n"))
                m = re.search(r"listening on [\d.]+:(\d+)", line)
                if m:
                    self.port = int(m.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(self.timeout) or self.port is None:
            self.__exit__(None, None, None)
            raise RuntimeError("binlogwriter serve did not start:\n" + "\n".join(self.log))
        return self

    def __exit__(self, *exc) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

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
