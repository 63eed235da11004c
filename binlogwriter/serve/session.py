"""Per-connection state: user variables replication clients set before dumping."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Session"]


@dataclass
class Session:
    """``user_vars`` keys are lower-case names without ``@``; values are str, int or None."""

    connection_id: int
    peer: str
    user: str = ""
    user_vars: dict[str, object] = field(default_factory=dict)
    replica_server_id: int | None = None

    def var(self, name: str) -> object:
        return self.user_vars.get(name.lower())

    @property
    def checksum_aware(self) -> bool:
        """The client announced it verifies checksums (``SET @master_binlog_checksum=…``, or
        ``@source_binlog_checksum`` as MySQL 8.0.26+ replicas say)."""
        return "master_binlog_checksum" in self.user_vars or "source_binlog_checksum" in self.user_vars

    @property
    def checksum_value(self) -> str:
        v = self.var("master_binlog_checksum")
        if v is None:
            v = self.var("source_binlog_checksum")
        return str(v or "").upper()

    @property
    def heartbeat_ns(self) -> int:
        v = self.var("master_heartbeat_period")
        if v is None:
            v = self.var("source_heartbeat_period")
        try:
            return max(0, int(float(v))) if v is not None else 0
        except (TypeError, ValueError):
            return 0

    @property
    def slave_connect_state(self) -> str | None:
        v = self.var("slave_connect_state")
        return None if v is None else str(v)
