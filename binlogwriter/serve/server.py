"""The server: one thread per client (docs/serve.md "Connections").

Each connection runs the connection phase (auth.py), then the command phase: COM_QUERY
(queries.py), COM_PING, COM_INIT_DB, COM_QUIT, COM_REGISTER_SLAVE, COM_BINLOG_DUMP and
COM_BINLOG_DUMP_GTID (dump.py), the prepared statement commands COM_STMT_PREPARE / EXECUTE /
SEND_LONG_DATA / CLOSE / RESET (prepared.py); any other command gets ERR 1047. Each client has its own
position and file handles; a client that fails (bad packet, closed socket, refused login) ends
only its own connection and leaves exactly one WARNING line in the log. After a dump ends the
server closes the connection gracefully (shutdown, then reads until the client closes), so no
event still in flight is lost to a TCP reset.
"""

from __future__ import annotations

import itertools
import logging
import socket
import threading
import time
from dataclasses import dataclass, field

from binlogwriter.errors import BinlogError
from binlogwriter.format import version_tuple
from binlogwriter.gtids import GtidParseError, MariadbState
from binlogwriter.serve.admission import Admission, Slot
from binlogwriter.serve.auth import AuthFailed, Credentials, authenticate
from binlogwriter.serve.binlogs import BinlogSet, ServeError
from binlogwriter.serve.dump import DumpError, Streamer, parse_dump, parse_dump_gtid, stream
from binlogwriter.serve.pacing import Pacer
from binlogwriter.serve.prepared import PreparedStatements
from binlogwriter.serve.protocol import (
    LOGIN_MAX_PACKET,
    MAX_ALLOWED_PACKET,
    LoginTimeout,
    PacketIO,
    PacketTooLarge,
    ProtocolError,
    err_packet,
    ok_packet,
)
from binlogwriter.serve.queries import Identity, answer
from binlogwriter.serve.session import Session
from binlogwriter.serve.sqltext import strip_comments, version_number

__all__ = ["ServeConfig", "Server"]

log = logging.getLogger("binlogwriter.serve")

COM_QUIT, COM_INIT_DB, COM_QUERY, COM_PING = 0x01, 0x02, 0x03, 0x0E
COM_BINLOG_DUMP, COM_REGISTER_SLAVE, COM_SET_OPTION, COM_BINLOG_DUMP_GTID = 0x12, 0x15, 0x1B, 0x1E
COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE, COM_STMT_RESET = 0x16, 0x17, 0x18, 0x19, 0x1A
ER_UNKNOWN_COM_ERROR = 1047
ER_NET_PACKET_TOO_LARGE = 1153
ER_MASTER_FATAL_ERROR_READING_BINLOG = 1236


@dataclass
class ServeConfig:
    binlogs: BinlogSet
    credentials: Credentials
    identity: Identity
    bind: str = "127.0.0.1"
    port: int = 3306
    rate: str | None = None
    heartbeat_version: int | None = None
    default_heartbeat_ns: int = 0
    max_clients: int = 151  # MySQL's and MariaDB's default max_connections
    max_logins_per_ip: int = 16
    connect_timeout: float = 10.0  # the servers' connect_timeout: the whole login must fit in it
    idle_timeout: float = 3600.0
    extra: dict = field(default_factory=dict)


class Server:
    """``start()`` binds and accepts in a background thread; ``stop()`` closes the listener."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self._ids = itertools.count(1)
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.admission = Admission(config.max_clients, config.max_logins_per_ip)
        self._stopping = threading.Event()

    @property
    def port(self) -> int:
        assert self._sock is not None
        return self._sock.getsockname()[1]

    def start(self) -> Server:
        """Listen on ``bind:port``; a :class:`ServeError` naming the address when it cannot."""
        cfg = self.config
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((cfg.bind, cfg.port))
            s.listen(128)
        except OSError as exc:
            s.close()
            why = exc.strerror or str(exc)
            raise ServeError(f"cannot listen on {cfg.bind}:{cfg.port} (--bind, --port): {why}") from None
        self._sock = s
        self._thread = threading.Thread(target=self._accept_loop, name="serve-accept", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass

    def serve_forever(self) -> None:
        try:
            while not self._stopping.is_set():
                time.sleep(0.5)
        finally:
            self.stop()

    def _accept_loop(self) -> None:
        assert self._sock is not None
        while not self._stopping.is_set():
            try:
                conn, addr = self._sock.accept()
            except OSError:
                return
            cid = next(self._ids)
            slot, dropped = self.admission.admit(conn, addr[0])
            for victim, why in dropped:
                log.warning("%s: closed before its login ended: %s", victim.where, why)
            if slot is None:
                log.warning(
                    "client %s:%s #%d: refused, %d clients already connected (--max-clients)",
                    addr[0],
                    addr[1],
                    cid,
                    self.config.max_clients,
                )
                try:
                    conn.settimeout(1.0)
                    PacketIO(conn).write(err_packet(1040, "Too many connections", "08004"))
                except OSError:
                    pass
                finally:
                    conn.close()
                continue
            connection = Connection(self.config, conn, addr, cid, self.admission, slot)
            t = threading.Thread(target=connection.run, name=f"serve-client-{cid}", daemon=True)
            t.start()


class Connection:
    """One client: its login, its commands, its dump and the one log line for what ended it.

    Size: the phases of one connection share its socket, packet sequence and session; split,
    each piece would take all of them (the dump itself already lives in dump.py).
    """

    def __init__(
        self, config: ServeConfig, sock: socket.socket, addr, cid: int, admission: Admission, slot: Slot
    ) -> None:
        self.config = config
        self.sock = sock
        self.peer = f"{addr[0]}:{addr[1]}"
        self.session = Session(cid, addr[0])
        self.io = PacketIO(sock, max_packet=LOGIN_MAX_PACKET)
        self.admission = admission
        self.slot = slot
        slot.where = self._where()
        self._statements: PreparedStatements | None = None

    def _where(self) -> str:
        user = f" ({self.session.user})" if self.session.user else ""
        return f"client {self.peer} #{self.session.connection_id}{user}"

    def run(self) -> None:
        try:
            self._run()
        finally:
            self.admission.release(self.slot)

    def _login(self) -> bool:
        """The connection phase under its deadline and the login packet size limit; False when
        the connection was closed to make room meanwhile (admission.py)."""
        cfg = self.config
        self.io.deadline = time.monotonic() + cfg.connect_timeout
        self.sock.settimeout(cfg.connect_timeout)
        hello = authenticate(
            self.io,
            cfg.credentials,
            self._server_version(),
            self.session.connection_id,
            self.session.peer,
        )
        self.session.user = hello.user
        if not self.admission.logged_in(self.slot):
            return False
        self.io.deadline = None
        self.io.max_packet = MAX_ALLOWED_PACKET
        self.sock.settimeout(cfg.idle_timeout)
        log.info("%s: connected", self._where())
        return True

    def _run(self) -> None:
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        dumped = False
        try:
            dumped = self._login() and self._commands()
        except Exception as exc:
            if not self.slot.dropped:  # a dropped connection was logged when it was dropped
                self._incident(exc)
        finally:
            self._close(graceful=dumped)

    def _incident(self, exc: Exception) -> None:
        """The one WARNING line (and the ERR packet, when one is due) for what ended the
        connection."""
        where = self._where()
        if isinstance(exc, AuthFailed):
            log.warning("%s: %s", where, exc)
        elif isinstance(exc, PacketTooLarge):
            log.warning("%s: packet too large: %s", where, exc)
            self._try_error(
                ER_NET_PACKET_TOO_LARGE, "Got a packet bigger than 'max_allowed_packet' bytes", "08S01"
            )
        elif isinstance(exc, LoginTimeout):
            log.warning("%s: no login within %g s (--connect-timeout)", where, self.config.connect_timeout)
        elif isinstance(exc, ProtocolError | GtidParseError):
            log.warning("%s: malformed packet: %s", where, exc)
            self._try_error(1043, f"Bad handshake or malformed packet: {exc}", "08S01")
        elif isinstance(exc, DumpError):
            log.warning("%s: dump refused: %s", where, exc)
        elif isinstance(exc, ConnectionError | TimeoutError):
            log.warning("%s: connection closed by the client (%s)", where, str(exc) or type(exc).__name__)
        elif isinstance(exc, OSError):
            log.warning("%s: socket error: %s", where, exc)
        elif isinstance(exc, BinlogError):
            log.warning("%s: binlog error: %s", where, exc)
            self._try_error(1236, str(exc))
        else:  # a bug must not take the server down: logged, connection closed
            log.error("%s: internal error: %s", where, exc, exc_info=exc)
            self._try_error(1105, f"internal error: {exc}")

    def _server_version(self) -> str:
        v = self.config.binlogs.server_version
        # MariaDB 10+ announces itself with the 5.5.5- prefix clients strip (MariaDB's handshake)
        return f"5.5.5-{v}" if self.config.binlogs.is_mariadb and not v.startswith("5.5.5-") else v

    def _try_error(self, code: int, msg: str, state: str = "HY000") -> None:
        try:
            self.io.write(err_packet(code, msg, state))
        except OSError:
            pass

    def _close(self, graceful: bool) -> None:
        try:
            if graceful:
                self.sock.shutdown(socket.SHUT_WR)
                self.sock.settimeout(5.0)
                while self.sock.recv(65536):
                    pass
        except OSError:
            pass
        finally:
            self.sock.close()

    def _commands(self) -> bool:
        """The command phase; True when it ended with a dump (the connection is then closed)."""
        cfg = self.config
        while True:
            self.io.seq = 0
            try:
                payload = self.io.read()
            except ConnectionError:
                log.info("%s: disconnected", self._where())
                return False
            if not payload:
                raise ProtocolError("empty command packet")
            cmd = payload[0]
            self.io.seq = 1
            if cmd == COM_QUIT:
                log.info("%s: quit", self._where())
                return False
            if cmd == COM_QUERY:
                sql = payload[1:].decode("utf-8", "replace")
                resp = answer(cfg.binlogs, cfg.identity, self.session, sql)
                if resp and resp[0][:1] == b"\xff":
                    log.info("%s: query refused: %s", self._where(), sql[:200])
                self.io.write_many(resp)
            elif COM_STMT_PREPARE <= cmd <= COM_STMT_RESET:
                self._statement_command(cmd, payload)
            elif cmd in (COM_PING, COM_INIT_DB, COM_SET_OPTION):
                self.io.write(ok_packet())
            elif cmd == COM_REGISTER_SLAVE:
                if len(payload) >= 5:
                    self.session.replica_server_id = int.from_bytes(payload[1:5], "little")
                self.io.write(ok_packet())
            elif cmd in (COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID):
                self._dump(payload)
                return True
            else:
                log.warning("%s: unknown command 0x%02x", self._where(), cmd)
                self.io.write(err_packet(ER_UNKNOWN_COM_ERROR, "Unknown command", "08S01"))

    def _statement_command(self, cmd: int, payload: bytes) -> None:
        """COM_STMT_* (prepared.py): answered through the same text-query answering."""
        cfg = self.config
        if self._statements is None:
            self._statements = PreparedStatements(
                lambda sql: answer(cfg.binlogs, cfg.identity, self.session, sql),
                lambda sql: strip_comments(sql, version_number(version_tuple(cfg.binlogs.server_version)),
                                           mariadb=cfg.binlogs.is_mariadb),
                mariadb=cfg.binlogs.is_mariadb)
        st = self._statements
        if cmd == COM_STMT_PREPARE:
            resp = st.prepare(payload)
        elif cmd == COM_STMT_EXECUTE:
            resp = st.execute(payload)
        elif cmd == COM_STMT_RESET:
            resp = st.reset(payload)
        else:  # SEND_LONG_DATA and CLOSE have no answer
            (st.send_long_data if cmd == COM_STMT_SEND_LONG_DATA else st.close)(payload)
            return
        if resp and resp[0][:1] == b"\xff":
            log.info("%s: statement refused: %s", self._where(), resp[0][9:].decode("utf-8", "replace")[:200])
        self.io.write_many(resp)

    def _dump(self, payload: bytes) -> None:
        cfg = self.config
        try:
            req = parse_dump(payload) if payload[0] == COM_BINLOG_DUMP else parse_dump_gtid(payload)
            maria = None
            state = self.session.slave_connect_state
            if payload[0] == COM_BINLOG_DUMP and cfg.binlogs.is_mariadb and state is not None:
                maria = MariadbState.from_text(state)
        except (DumpError, GtidParseError) as exc:
            self.io.write(err_packet(ER_MASTER_FATAL_ERROR_READING_BINLOG, str(exc)))
            raise DumpError(str(exc)) from None
        how = (
            f"GTID {req.mysql_gtids.text() or '(empty set)'}"
            if req.mysql_gtids is not None
            else f"GTID {maria.text() or '(empty)'}"
            if maria is not None
            else f"{req.file or '(first file)'}:{req.pos}"
        )
        log.info("%s: dump from %s (%s)", self._where(), how, "blocking" if req.blocking else "non-blocking")
        pacer = Pacer.from_text(cfg.rate) if cfg.rate else None
        from binlogwriter.serve.generated import GeneratedBinlogs, GeneratedStreamer

        cls = GeneratedStreamer if isinstance(cfg.binlogs, GeneratedBinlogs) else Streamer
        st = stream(
            self.io,
            cfg.binlogs,
            self.session,
            req,
            cls=cls,
            mariadb_gtid=maria,
            pacer=pacer,
            heartbeat_version=cfg.heartbeat_version,
            default_heartbeat_ns=cfg.default_heartbeat_ns,
        )
        log.info("%s: dump ended after %d events, %d bytes", self._where(), st.sent_events, st.sent_bytes)
