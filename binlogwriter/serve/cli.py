"""``binlogwriter serve``: the command (docs/serve.md)."""

from __future__ import annotations

import logging
import signal
import sys
import uuid as uuidlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from binlogwriter.errors import BinlogError
from binlogwriter.plugins import PluginMissing
from binlogwriter.serve.api import manifest_format
from binlogwriter.serve.auth import CACHING_SHA2, NATIVE, Credentials
from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.pacing import parse_rate
from binlogwriter.serve.queries import Identity
from binlogwriter.serve.server import ServeConfig, Server

__all__ = ["serve"]


def _server_uuid(binlogs: BinlogSet, given: str | None) -> str:
    if given:
        return given
    _set, _state, used = binlogs.end_state()
    if used:
        return used
    # deterministic: derived from the server id and version the files carry
    return str(
        uuidlib.uuid5(
            uuidlib.NAMESPACE_OID, f"binlogwriter-serve:{binlogs.server_id}:{binlogs.server_version}"
        )
    )


def _parse_size(text: str) -> int:
    from binlogwriter.serve.pacing import parse_rate

    kind, value = parse_rate(text)
    if kind != "bytes":
        raise ValueError(f"--size {text!r}: expected a byte size such as 500MB")
    return int(value)


@click.command()
@click.argument("sources", nargs=-1, required=False, type=click.Path(exists=True))
@click.option(
    "--generate",
    "generate_spec",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Stream a generator run of this spec (YAML/JSON, or a manifest.json) instead of files.",
)
@click.option(
    "--size", default=None, help="With --generate: end the stream after this many bytes (500MB, 1G)."
)
@click.option("--bind", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=3306,
    show_default=True,
    help="TCP port (0: any free port; the chosen one is printed).",
)
@click.option("--user", default="repl", show_default=True, help="Account clients log in with.")
@click.option("--password", default="", show_default=False, help="Its password [empty].")
@click.option(
    "--auth-plugin",
    type=click.Choice([NATIVE, CACHING_SHA2]),
    default=None,
    help="Plugin of the account [MySQL files: caching_sha2_password; MariaDB: mysql_native_password].",
)
@click.option("--rate", default=None, help="Pace each dump: e.g. 20MB/s or 5000tps.")
@click.option(
    "--follow", is_flag=True, help="Serve files that are still being written (new bytes and files)."
)
@click.option(
    "--heartbeat",
    "heartbeat_version",
    type=click.Choice(["auto", "1", "2"]),
    default="auto",
    show_default=True,
    help="Heartbeat event version (auto: v2 for MySQL >= 8.0.26).",
)
@click.option(
    "--heartbeat-period",
    type=float,
    default=0.0,
    help="Seconds between heartbeats when the client sets none [0: only when asked].",
)
@click.option("--server-uuid", default=None, help="@@server_uuid [the files' GTID UUID].")
@click.option(
    "--row-image",
    type=click.Choice(["FULL", "MINIMAL", "NOBLOB"]),
    default=None,
    help="@@binlog_row_image reported [a run directory's manifest.json, else FULL].",
)
@click.option(
    "--row-metadata",
    type=click.Choice(["FULL", "MINIMAL", "NO_LOG"]),
    default=None,
    help="@@binlog_row_metadata reported [a run directory's manifest.json, else FULL].",
)
@click.option(
    "--max-clients",
    type=click.IntRange(1),
    default=151,
    show_default=True,
    help="Connections at once (the servers' max_connections; each python-mysql-replication reader uses two).",
)
@click.option(
    "--max-logins-per-ip",
    type=click.IntRange(1),
    default=16,
    show_default=True,
    help="Connections from one address still logging in; past it the oldest (over 1 s) is closed.",
)
@click.option(
    "--connect-timeout",
    type=click.FloatRange(0.1, 3600),
    default=10.0,
    show_default=True,
    help="Seconds a connection has to log in (the servers' connect_timeout).",
)
@click.option("-q", "--quiet", is_flag=True, help="Log only incidents (warnings).")
def serve(
    sources: tuple[str, ...],
    generate_spec: str | None,
    size: str | None,
    bind: str,
    port: int,
    user: str,
    password: str,
    auth_plugin: str | None,
    rate: str | None,
    follow: bool,
    heartbeat_version: str,
    heartbeat_period: float,
    server_uuid: str | None,
    row_image: str | None,
    row_metadata: str | None,
    max_clients: int,
    max_logins_per_ip: int,
    connect_timeout: float,
    quiet: bool,
) -> None:
    """Serve binlog files (a directory with binlog.index, or files in order) to replication
    clients and replicas over the MySQL protocol."""
    logging.basicConfig(
        level=logging.WARNING if quiet else logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    with _ctrl_c_stops():
        try:
            if rate:
                parse_rate(rate)
            if bool(sources) == bool(generate_spec):
                raise ValueError("give binlog files / a directory, or --generate SPEC (not both)")
            if size and not generate_spec:
                raise ValueError("--size goes with --generate")
            if generate_spec:
                from binlogwriter.serve.generated import GeneratedBinlogs

                binlogs = GeneratedBinlogs(generate_spec, _parse_size(size) if size else None)
            else:
                binlogs = BinlogSet(list(sources), follow=follow)
            plugin = auth_plugin or (NATIVE if binlogs.is_mariadb else CACHING_SHA2)
            fmt = {} if generate_spec else manifest_format([Path(p) for p in sources])  # the run's settings
            ident = Identity(
                _server_uuid(binlogs, server_uuid),
                (row_image or fmt.get("row_image") or "FULL").upper(),
                (row_metadata or fmt.get("row_metadata") or "FULL").upper(),
                port,
                bind,
                connect_timeout=connect_timeout,
                max_connections=max_clients,
            )
            config = ServeConfig(
                binlogs=binlogs,
                credentials=Credentials({user: password}, plugin),
                identity=ident,
                bind=bind,
                port=port,
                rate=rate,
                heartbeat_version=None if heartbeat_version == "auto" else int(heartbeat_version),
                default_heartbeat_ns=int(heartbeat_period * 1e9),
                max_clients=max_clients,
                max_logins_per_ip=max_logins_per_ip,
                connect_timeout=connect_timeout,
            )
            server = Server(config).start()
        except (BinlogError, ValueError, OSError, PluginMissing) as exc:  # OptionError is a BinlogError
            click.echo(f"binlogwriter serve: error: {exc}", err=True)
            sys.exit(2)
        config.identity.port = server.port
        flavor = "MariaDB" if binlogs.is_mariadb else "MySQL"
        what = f"generated from {generate_spec}" if generate_spec else f"{len(binlogs.files)} files"
        click.echo(
            f"binlogwriter serve: listening on {bind}:{server.port} ({flavor} {binlogs.server_version}, "
            f"{what}, user {user!r}, {plugin})",
            err=True,
        )
        sys.stderr.flush()
        server.serve_forever()


@contextmanager
def _ctrl_c_stops() -> Iterator[None]:
    """Ctrl-C (SIGINT) stops ``serve`` with one line and exit status 130 (128 + SIGINT, what a
    shell reports for a command SIGINT ended), at start-up or while serving. The handler is
    installed even when SIGINT was inherited ignored, and the previous one is put back."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    except KeyboardInterrupt:
        click.echo("binlogwriter serve: interrupted (Ctrl-C), stopped", err=True)
        sys.exit(130)
    finally:
        signal.signal(signal.SIGINT, previous)
