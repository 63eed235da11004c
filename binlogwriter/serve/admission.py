"""Which connections the server keeps (docs/serve.md "Connections").

A connection holds a slot from ``accept`` until it ends; ``--max-clients`` slots in all (the
default 151 is the servers' ``max_connections``). A connection that has not logged in yet is
*pending*: it costs the peer nothing but a TCP handshake, so pending connections are the ones
that give way:

- one address has at most ``--max-logins-per-ip`` pending connections: the next one from it
  closes that address's oldest pending connection;
- when every slot is taken, a new connection closes the oldest pending connection of any
  address;

but only a connection pending for more than :data:`GRACE` seconds is closed (a real login over
a network takes milliseconds), so a burst of honest clients logging in at once is never cut
short; failing that, the new connection is refused with ERR 1040 "Too many connections", as a
server refuses it. Every pending connection also ends at its login deadline (``--connect-timeout``,
the server's ``connect_timeout``, 10 s by default; protocol.py :class:`PacketIO` ``deadline``),
so idle sockets hold slots neither for long nor all of them.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

__all__ = ["Admission", "GRACE", "Slot"]

GRACE = 1.0


@dataclass(eq=False)
class Slot:
    """One accepted connection."""

    ip: str
    sock: socket.socket
    started: float
    logged_in: bool = False
    dropped: bool = False
    where: str = ""  # "client HOST:PORT #ID", for the log


class Admission:
    """The slots of one server (thread-safe)."""

    def __init__(self, max_clients: int, max_logins_per_ip: int, grace: float = GRACE) -> None:
        self.max_clients = max_clients
        self.max_logins_per_ip = max_logins_per_ip
        self.grace = grace
        self._slots: set[Slot] = set()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._slots)

    def _oldest_stale(self, pending: list[Slot], now: float) -> Slot | None:
        stale = [s for s in pending if now - s.started > self.grace]
        return min(stale, key=lambda s: s.started) if stale else None

    def admit(self, sock: socket.socket, ip: str) -> tuple[Slot | None, list[tuple[Slot, str]]]:
        """A slot for a new connection from ``ip`` (None: refused, every slot taken) and the
        pending connections closed to make room, each with the reason (for the log)."""
        now = time.monotonic()
        dropped: list[tuple[Slot, str]] = []
        with self._lock:
            pending = [s for s in self._slots if not s.logged_in]
            mine = [s for s in pending if s.ip == ip]
            if len(mine) >= self.max_logins_per_ip:
                victim = self._oldest_stale(mine, now)
                if victim is not None:
                    why = f"{len(mine)} connections from {ip} not logged in (--max-logins-per-ip)"
                    dropped.append((victim, why))
                    pending.remove(victim)
            if len(self._slots) - len(dropped) >= self.max_clients:
                victim = self._oldest_stale(pending, now)
                if victim is not None:
                    dropped.append((victim, f"all {self.max_clients} slots taken (--max-clients)"))
            for victim, _why in dropped:
                victim.dropped = True
                self._slots.discard(victim)
            slot = None
            if len(self._slots) < self.max_clients:
                slot = Slot(ip, sock, now)
                self._slots.add(slot)
        for victim, _why in dropped:
            try:
                victim.sock.shutdown(socket.SHUT_RDWR)  # its thread's recv returns: it ends
            except OSError:
                pass
        return slot, dropped

    def logged_in(self, slot: Slot) -> bool:
        """Mark ``slot`` logged in; False if it was closed to make room meanwhile."""
        with self._lock:
            if slot.dropped:
                return False
            slot.logged_in = True
            return True

    def release(self, slot: Slot) -> None:
        with self._lock:
            self._slots.discard(slot)
