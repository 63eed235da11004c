"""``--rate``: pace a dump to N bytes/s or N transactions/s (docs/serve.md "Pacing").

Bytes are event bytes sent; a transaction is a GTID event (MySQL GTID, anonymous GTID, tagged
GTID or MariaDB GTID): one per committed group. The pacer lets a sender go in bursts of about
1/50 s worth of data, then sleeps until the schedule catches up, so the average over any
second is the rate and a late sender does not try to catch up forever (the schedule restarts
after a stall of more than a second, e.g. a slow client).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

__all__ = ["Pacer", "parse_rate"]

_UNITS = {
    "": 1,
    "B": 1,
    "K": 1 << 10,
    "KB": 1 << 10,
    "KIB": 1 << 10,
    "M": 1 << 20,
    "MB": 1 << 20,
    "MIB": 1 << 20,
    "G": 1 << 30,
    "GB": 1 << 30,
    "GIB": 1 << 30,
}


def parse_rate(text: str) -> tuple[str, float]:
    """``20MB/s`` -> ("bytes", 20971520.0); ``5000tps`` -> ("tps", 5000.0)."""
    t = text.strip().replace(" ", "")
    m = re.fullmatch(r"(\d+(?:\.\d+)?)tps", t, re.IGNORECASE)
    if m:
        v = float(m.group(1))
        kind = "tps"
    else:
        m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?I?B?)(?:/S)?", t, re.IGNORECASE)
        if not m:
            raise ValueError(f"--rate {text!r}: expected e.g. 20MB/s or 5000tps")
        v = float(m.group(1)) * _UNITS[m.group(2).upper()]
        kind = "bytes"
    if v <= 0:
        raise ValueError(f"--rate {text!r}: must be positive")
    return kind, v


@dataclass
class Pacer:
    kind: str
    rate: float
    _start: float = field(default=0.0, init=False)
    _done: float = field(default=0.0, init=False)

    @classmethod
    def from_text(cls, text: str) -> Pacer:
        return cls(*parse_rate(text))

    @property
    def block(self) -> int:
        """Read size that keeps bursts short."""
        if self.kind == "bytes":
            return int(min(1 << 20, max(4096, self.rate / 50)))
        return 1 << 16

    def due(self, nbytes: int, ntx: int) -> bool:
        burst = self.rate / 50
        return (nbytes if self.kind == "bytes" else ntx) >= max(1.0, burst)

    def wait(self, nbytes: int, ntx: int) -> None:
        now = time.monotonic()
        if not self._start or now - (self._start + self._done / self.rate) > 1.0:
            self._start, self._done = now, 0.0
        self._done += nbytes if self.kind == "bytes" else ntx
        delay = self._start + self._done / self.rate - now
        if delay > 0:
            time.sleep(delay)
