"""Our charset codecs against MariaDB 10.11's own maps (docs/charsets.md rule 6).

The server judges every character: each BMP character our codec of a charset encodes is
stored as those bytes and converted to utf8mb4 by the server, which must give the character
back; each byte of a one-byte charset Python has no codec for must decode, by our codec, to
the server's character (or to an error where the server has none). Then a schema with a
column in every charset both servers know is generated for each flavor, keyed and keyless,
and replayed: the server's tables equal ``truth/final``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter._collations import CHARSETS
from binlogwriter.charsets import default_collation
from binlogwriter.cli import main as cli_main

from .mariadb import MariaDBServer
from .schema_runs import replay_matches_truth
from .test_generate_replay import check_readers

pytestmark = pytest.mark.conformance

UNICODE = ("utf8mb3", "utf8mb4", "utf16", "utf16le", "utf32", "ucs2")
MYSQL_ONLY = ("gb18030",)  # MariaDB has no such charset to judge it


@pytest.fixture(scope="module")
def server(mariadb_template: Path):
    with MariaDBServer(mariadb_template) as s:
        s.execute("CREATE DATABASE cs")
        yield s


def _server_charsets(server: MariaDBServer) -> list[str]:
    return sorted(str(r[0]) for r in server.query("SHOW CHARACTER SET") if r[0] != "binary")


def test_every_server_charset_has_a_codec(server: MariaDBServer) -> None:
    names = _server_charsets(server)
    assert len(names) >= 38
    missing = [cs for cs in names if cs not in CHARSETS or default_collation(cs, "mariadb1011").codec is None]
    assert not missing


@pytest.mark.parametrize("charset", sorted(set(CHARSETS) - {*UNICODE, *MYSQL_ONLY, "binary"}))
def test_each_character_our_codec_encodes_reads_back_the_same(server: MariaDBServer, charset: str) -> None:
    coll = default_collation(charset, "mariadb1011")
    rows = []
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        try:
            b = coll.encode(chr(cp))
        except UnicodeError:
            continue
        rows.append(f"({cp},X'{b.hex()}',X'{chr(cp).encode('utf-8').hex()}')")
    assert len(rows) >= 127
    table = f"m_{charset}"
    server.execute(f"CREATE TABLE cs.{table} (cp INT PRIMARY KEY, b VARBINARY(8), u VARBINARY(8))")
    for i in range(0, len(rows), 4000):
        server.execute(f"INSERT INTO cs.{table} VALUES " + ",".join(rows[i:i + 4000]) + ";")
    back = f"CONVERT(CONVERT(b USING {charset}) USING utf8mb4)"
    bad = server.query(f"SELECT cp, HEX({back}) FROM {table} WHERE {back} IS NULL OR {back} COLLATE "
                       f"utf8mb4_bin <> CONVERT(u USING utf8mb4) COLLATE utf8mb4_bin LIMIT 20", database="cs")
    assert not bad, f"{charset}: characters (code point, server's UTF-8) stored as another: {bad}"


ONE_BYTE = sorted(cs for cs, (mb, _) in CHARSETS.items() if mb == 1 and cs != "binary")
MULTI_BYTE = sorted(cs for cs, (mb, _) in CHARSETS.items() if mb > 1 and cs not in (*UNICODE, *MYSQL_ONLY))


@pytest.mark.parametrize("charset", ONE_BYTE)
def test_each_byte_decodes_as_the_server_reads_it(server: MariaDBServer, charset: str) -> None:
    coll = default_collation(charset, "mariadb1011")
    rows = server.query(f"SELECT seq, HEX(CONVERT(CONVERT(UNHEX(LPAD(HEX(seq), 2, '0')) USING {charset}) "
                        f"USING utf8mb4)) FROM seq_0_to_255", database="cs")
    assert len(rows) == 256
    first: dict[str, int] = {}
    for seq, hx in rows:
        b = int(str(seq))
        want = bytes.fromhex(str(hx or "")).decode("utf-8")
        try:
            got = coll.decode(bytes((b,)))
        except UnicodeDecodeError:  # the server has no character, or it is an earlier byte's
            assert (want == "?" and b != 0x3F) or want in first, f"{charset} byte {b:#04x}: the server reads {want!r}"
            continue
        assert got == want, f"{charset} byte {b:#04x}"
        assert coll.encode(got) == bytes((b,))
        first[got] = b


def _codes() -> list[bytes]:
    """One byte, two bytes with a lead byte 0x81-0xFE, EUC's three-byte 0x8F codes."""
    codes = [bytes([a]) for a in range(0x20, 0x100)]
    codes += [bytes([a, b]) for a in range(0x81, 0xFF) for b in range(0x40, 0xFF)]
    return codes + [bytes([0x8F, a, b]) for a in range(0xA1, 0xFF) for b in range(0xA1, 0xFF)]


@pytest.mark.parametrize("charset", MULTI_BYTE)
def test_each_code_decodes_as_the_server_reads_it_or_not_at_all(server: MariaDBServer, charset: str) -> None:
    """Every code of a multi-byte charset (about 48,000) read by our codec is the server's
    character, or an error (the value is then read as bytes, nothing lost); never another
    character. Text decoded encodes back to the code (a code the server has no character
    for may decode, as Python's codec reads it, if it does)."""
    coll = default_collation(charset, "mariadb1011")
    codes = _codes()
    table = f"codes_{charset}"
    server.execute(f"CREATE TABLE cs.{table} (i INT PRIMARY KEY, b VARBINARY(4))")
    rows = [f"({i},X'{c.hex()}')" for i, c in enumerate(codes)]
    for k in range(0, len(rows), 5000):
        server.execute(f"INSERT INTO cs.{table} VALUES " + ",".join(rows[k:k + 5000]) + ";")
    decoded = 0
    for i, hx in server.query(f"SELECT i, HEX(CONVERT(CONVERT(b USING {charset}) USING utf8mb4)) FROM {table}",
                              database="cs"):
        code = codes[int(str(i))]
        want = bytes.fromhex(str(hx or "")).decode("utf-8")
        try:
            got = coll.decode(code)
        except UnicodeDecodeError:
            continue
        assert coll.encode(got) == code
        if want == "?" and code != b"?":  # the server has no character (nothing it stores)
            continue
        assert got == want, f"{charset} {code.hex()}: ours {got!r}, the server's {want!r}"
        decoded += 1
    assert decoded > 7000


def _every_charset_ddl(server: MariaDBServer) -> str:
    names = [cs for cs in _server_charsets(server) if cs in CHARSETS]
    cols = ", ".join(f"c_{cs} VARCHAR(24) CHARACTER SET {cs}" for cs in names)
    chars = ", ".join(f"h_{cs} CHAR(6) CHARACTER SET {cs} NOT NULL" for cs in names)
    members = ("e_keybcs2 ENUM('a','č','ř') CHARACTER SET keybcs2, s_armscii8 SET('Ա','բ','x') CHARACTER SET "
               "armscii8, e_swe7 ENUM('Åsa','Örjan') CHARACTER SET swe7 NOT NULL, e_sjis ENUM('日本','x') "
               "CHARACTER SET sjis, e_eucjpms ENUM('ＡＢ','漢字') CHARACTER SET eucjpms")
    return (f"CREATE TABLE keyed (id INT NOT NULL PRIMARY KEY, {cols}, {chars}, {members});\n"
            f"CREATE TABLE keyless (n INT NOT NULL, {cols});\n")


@pytest.mark.parametrize("flavor", ["mariadb1011", "mysql80"])
def test_a_column_in_every_charset_replays(server: MariaDBServer, tmp_path: Path, flavor: str) -> None:
    schema = tmp_path / "schema.sql"
    schema.write_text(_every_charset_ddl(server))
    out = tmp_path / "out"
    r = CliRunner().invoke(cli_main, ["generate", "--schema", str(schema), "--out", str(out), "--flavor", flavor,
                                      "--database", f"every_charset_{flavor}", "--transactions", "150",
                                      "--initial-rows", "40", "--seed", "16"])
    assert r.exit_code == 0, r.output
    check_readers(out)
    truth = replay_matches_truth(server, out)
    assert all(truth.values())
    texts = [v for rows in truth.values() for row in rows for v in row if isinstance(v, str)]
    assert any(any(ord(ch) > 0x7F for ch in v) for v in texts)  # not ASCII only
