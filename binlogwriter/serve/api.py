"""The Python API of ``serve`` (docs/serve.md "From Python"): :func:`serving`.

``serving(sources, ...)`` starts the same server ``binlogwriter serve`` runs, in this process
(a listener thread and one thread per client), on ``127.0.0.1`` and a free port unless told
otherwise, and returns a :class:`Serving`: the connection parameters (``host``, ``port``,
``user``, ``password``), what is served (``flavor``, ``directory``) and :meth:`Serving.close`.
It is also a context manager. :meth:`Serving.serve` points the running server at another
binlog set: connections opened after it see the new files, a dump already running keeps the
set it started with (each connection takes the configuration in force when it is accepted) —
so one server can serve a new binlog set per test example in milliseconds.

A run directory written by ``binlogwriter generate`` (it has a ``manifest.json``) also gives
``@@binlog_row_image`` and ``@@binlog_row_metadata`` from its manifest unless they are given.
"""

from __future__ import annotations

import json
import os
import threading
import uuid as uuidlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from binlogwriter.serve.auth import CACHING_SHA2, NATIVE, Credentials
from binlogwriter.serve.binlogs import BinlogSet, ServeError
from binlogwriter.serve.queries import Identity
from binlogwriter.serve.server import ServeConfig, Server

__all__ = ["Serving", "serving", "flavor_of"]

Sources = str | os.PathLike | Sequence[str | os.PathLike]


def flavor_of(binlogs: BinlogSet) -> str:
    """The flavor name of a served set (:attr:`BinlogSet.flavor`)."""
    return binlogs.flavor


def _source_list(sources: Sources) -> list[Path]:
    if isinstance(sources, str | os.PathLike):
        return [Path(sources)]
    out = [Path(s) for s in sources]
    if not out:
        raise ServeError("serving(): no binlog files or directory given")
    return out


def manifest_format(paths: list[Path]) -> dict[str, Any]:
    """The ``format`` block of a generated run's manifest.json (a single directory given)."""
    if len(paths) == 1 and (paths[0] / "manifest.json").is_file():
        try:
            return json.loads((paths[0] / "manifest.json").read_text("utf-8")).get("format", {})
        except (OSError, ValueError):
            return {}
    return {}


def _server_uuid(binlogs: BinlogSet) -> str:
    """As ``binlogwriter serve`` chooses it: the UUID of the files' last GTID, else one derived
    from the server id and version (deterministic)."""
    _set, _state, used = binlogs.end_state()
    if used:
        return used
    return str(uuidlib.uuid5(uuidlib.NAMESPACE_OID,
                             f"binlogwriter-serve:{binlogs.server_id}:{binlogs.server_version}"))


class Serving:
    """A running in-process server (see the module docstring). Attributes: ``host``,
    ``port``, ``user``, ``password``, ``flavor``, ``directory`` (the first source),
    ``sources``, ``server`` (the :class:`~binlogwriter.serve.server.Server`)."""

    def __init__(self, server: Server, sources: list[Path], *, user: str, password: str,
                 auth_plugin: str | None, row_image: str | None, row_metadata: str | None) -> None:
        self.server = server
        self.user = user
        self.password = password
        self._auth_plugin = auth_plugin
        self._row_image = row_image
        self._row_metadata = row_metadata
        self._lock = threading.Lock()
        self.sources = sources
        self.flavor = flavor_of(server.config.binlogs)

    @property
    def host(self) -> str:
        return self.server.config.bind

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def directory(self) -> Path:
        return self.sources[0]

    @property
    def settings(self) -> dict[str, Any]:
        """``host``, ``port``, ``user``, ``password``: what pymysql-style clients (e.g.
        python-mysql-replication's ``connection_settings``) take."""
        return {"host": self.host, "port": self.port, "user": self.user, "password": self.password}

    def serve(self, sources: Sources, *, follow: bool = False, row_image: str | None = None,
              row_metadata: str | None = None) -> Serving:
        """Serve ``sources`` from now on (same port, same account): new connections see them,
        dumps already running keep their files. ``row_image`` / ``row_metadata``: what
        ``@@binlog_row_image`` / ``@@binlog_row_metadata`` report for them (default: as given
        to :func:`serving`, else the run's manifest, else FULL). ServeError when they cannot be
        served."""
        paths = _source_list(sources)
        binlogs = BinlogSet(list(paths), follow=follow)
        config = _config(binlogs, paths, user=self.user, password=self.password,
                         auth_plugin=self._auth_plugin, row_image=row_image or self._row_image,
                         row_metadata=row_metadata or self._row_metadata, base=self.server.config)
        with self._lock:
            self.server.config = config
            self.sources = paths
            self.flavor = flavor_of(binlogs)
        return self

    def close(self) -> None:
        """Stop listening (connections still open end when their client goes)."""
        self.server.stop()

    def __enter__(self) -> Serving:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<Serving {self.flavor} {', '.join(map(str, self.sources))} on {self.host}:{self.port} "
                f"user {self.user!r}>")


def _config(binlogs: BinlogSet, paths: list[Path], *, user: str, password: str, auth_plugin: str | None,
            row_image: str | None, row_metadata: str | None, base: ServeConfig | None = None,
            **options: Any) -> ServeConfig:
    fmt = manifest_format(paths)
    plugin = auth_plugin or (NATIVE if binlogs.is_mariadb else CACHING_SHA2)
    ident = Identity(_server_uuid(binlogs), (row_image or fmt.get("row_image") or "FULL").upper(),
                     (row_metadata or fmt.get("row_metadata") or "FULL").upper())
    credentials = Credentials({user: password}, plugin)
    if base is not None:
        ident.port, ident.hostname = base.identity.port, base.identity.hostname
        ident.connect_timeout, ident.max_connections = base.identity.connect_timeout, base.identity.max_connections
        return replace(base, binlogs=binlogs, credentials=credentials, identity=ident)
    return ServeConfig(binlogs=binlogs, credentials=credentials, identity=ident, **options)


def serving(sources: Sources, *, user: str = "repl", password: str = "", bind: str = "127.0.0.1",
            port: int = 0, auth_plugin: str | None = None, row_image: str | None = None,
            row_metadata: str | None = None, rate: str | None = None, heartbeat_period: float = 0.0,
            follow: bool = False, connect_timeout: float = 10.0) -> Serving:
    """Start serving ``sources`` (a directory, a file, or files in order — as
    ``binlogwriter serve`` takes them) in this process; ``port=0`` picks a free port.

    ``auth_plugin`` defaults to the flavor's (``caching_sha2_password`` for MySQL files,
    ``mysql_native_password`` for MariaDB); ``row_image`` / ``row_metadata`` are the values
    reported for ``@@binlog_row_image`` / ``@@binlog_row_metadata`` (default: the run's
    manifest, else FULL); ``rate`` paces each dump (``20MB/s``, ``5000tps``);
    ``heartbeat_period`` seconds between heartbeats when a client sets none. Raises
    :class:`~binlogwriter.serve.binlogs.ServeError` naming what cannot be served or bound."""
    if rate:
        from binlogwriter.serve.pacing import parse_rate

        parse_rate(rate)
    paths = _source_list(sources)
    binlogs = BinlogSet(list(paths), follow=follow)
    config = _config(binlogs, paths, user=user, password=password, auth_plugin=auth_plugin,
                     row_image=row_image, row_metadata=row_metadata, bind=bind, port=port, rate=rate,
                     default_heartbeat_ns=int(heartbeat_period * 1e9), connect_timeout=connect_timeout)
    config.identity.hostname = bind
    config.identity.connect_timeout = connect_timeout
    server = Server(config).start()
    config.identity.port = server.port
    return Serving(server, paths, user=user, password=password, auth_plugin=auth_plugin,
                   row_image=row_image, row_metadata=row_metadata)
