"""Measure, on a real MariaDB 10.11, how the server maps each character set to Unicode, and
write ``binlogwriter/_charset_maps.py`` (generated data; the API is binlogwriter/charsets.py).

Four tables come out (docs/charsets.md, "Characters the server holds"):

* ``SINGLE_BYTE``: every one-byte charset but latin1 and ascii (Python has no codec for
  armscii8, dec8, geostd8, hp8, keybcs2, swe7; its greek, hebrew, cp866, koi8u, cp1256 and
  tis620 differ from the server's in a few bytes): for each byte 0..255, the character the server converts it to in utf8mb4
  (``CONVERT(CONVERT(byte USING cs) USING utf8mb4)``), or U+FFFE where the server has none
  (it prints ``?`` for a byte that is not ``?``);
* ``BASE``: the Python codec that decodes a multi-byte charset as the server does, where it is
  not the one binlogwriter/_collations.py names (euckr is cp949); ``DECODED_OTHERWISE``: the
  codes that codec decodes to another character than the server (sjis 0x815F is ``\\`` on
  the server, ``＼`` in Python), whose decoding is refused;
* ``DIFFERS``: for each multi-byte charset, the BMP characters its codec encodes to
  bytes the server reads back as another character (MariaDB's sjis reads 0x5C as ``\\``,
  not ``¥``; its eucjpms lacks most of the JIS X 0212 plane that Python's euc_jis_2004
  encodes): a value holding one would be stored as something else.

Run by hand (needs the mariadb server binaries; tests/conformance/mariadb.py starts a throwaway
server)::

    python tools/charset_maps.py            # rewrites binlogwriter/_charset_maps.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from binlogwriter import _collations  # noqa: E402
from tests.conformance.mariadb import MariaDBServer, make_template  # noqa: E402

UNMAPPED = "\ufffe"


def single_byte(server: MariaDBServer, charset: str) -> str:
    """The server's decoding table of a one-byte charset, 256 characters."""
    rows = server.query(f"SELECT seq, HEX(CONVERT(CONVERT(UNHEX(LPAD(HEX(seq), 2, '0')) USING {charset}) "
                        f"USING utf8mb4)) FROM seq_0_to_255", database="cm")
    out = [UNMAPPED] * 256
    for seq, hx in rows:
        b = int(seq)  # type: ignore[arg-type]
        ch = bytes.fromhex(hx or "").decode("utf-8")
        if len(ch) == 1 and (ch != "?" or b == 0x3F):
            out[b] = ch
    return "".join(out)


def differs(server: MariaDBServer, charset: str, codec: str) -> list[int]:
    """BMP code points ``codec`` encodes that the server decodes to another character."""
    rows = []
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        try:
            b = chr(cp).encode(codec)
        except UnicodeError:
            continue
        rows.append(f"({cp},X'{b.hex()}',X'{chr(cp).encode('utf-8').hex()}')")
    server.execute("DROP TABLE IF EXISTS cm.m; CREATE TABLE cm.m (cp INT PRIMARY KEY, b VARBINARY(8), "
                   "u VARBINARY(8))")
    for i in range(0, len(rows), 4000):
        server.execute("INSERT INTO cm.m VALUES " + ",".join(rows[i:i + 4000]) + ";")
    got = server.query(f"SELECT cp FROM m WHERE CONVERT(CONVERT(b USING {charset}) USING utf8mb4) "
                       f"COLLATE utf8mb4_bin <> CONVERT(u USING utf8mb4) COLLATE utf8mb4_bin "
                       f"OR CONVERT(CONVERT(b USING {charset}) USING utf8mb4) IS NULL ORDER BY cp", database="cm")
    return [int(r[0]) for r in got]  # type: ignore[arg-type]


CANDIDATES = {"euckr": ("euc_kr", "cp949"), "eucjpms": ("euc_jis_2004", "euc_jp"), "big5": ("big5", "cp950"),
              "ujis": ("euc_jp", "euc_jis_2004"), "sjis": ("shift_jis", "shift_jis_2004")}
"""Python codecs to try for a multi-byte charset: the one whose decoding of every code agrees
with the server's most often is its base (MariaDB's euckr is Windows' cp949, Unified Hangul)."""


def multibyte_codes() -> list[bytes]:
    """Every code a multi-byte charset of the servers may use: one byte, two bytes with a lead
    byte 0x81-0xFE, and EUC's three-byte 0x8F codes."""
    codes = [bytes([a]) for a in range(0x20, 0x100)]
    codes += [bytes([a, b]) for a in range(0x81, 0xFF) for b in range(0x40, 0xFF)]
    return codes + [bytes([0x8F, a, b]) for a in range(0xA1, 0xFF) for b in range(0xA1, 0xFF)]


def server_decoding(server: MariaDBServer, charset: str, codes: list[bytes]) -> dict[bytes, str]:
    """The character the server reads each code as (codes it has none for left out)."""
    server.execute("DROP TABLE IF EXISTS cm.codes; CREATE TABLE cm.codes (i INT PRIMARY KEY, b VARBINARY(4))")
    rows = [f"({i},X'{c.hex()}')" for i, c in enumerate(codes)]
    for k in range(0, len(rows), 5000):
        server.execute("INSERT INTO cm.codes VALUES " + ",".join(rows[k:k + 5000]) + ";")
    out = {}
    for i, hx in server.query(f"SELECT i, HEX(CONVERT(CONVERT(b USING {charset}) USING utf8mb4)) FROM codes",
                              database="cm"):
        text, code = bytes.fromhex(str(hx or "")).decode("utf-8"), codes[int(str(i))]
        if len(text) == 1 and (text != "?" or code == b"?"):
            out[code] = text
    return out


def best_base(server: MariaDBServer, charset: str, candidates: tuple[str, ...],
              codes: list[bytes]) -> tuple[str, tuple[bytes, ...]]:
    """The candidate codec that decodes codes as the server does (fewest wrong characters, then
    fewest codes left undecoded), and the codes it decodes to another character than the
    server does, or to a character it encodes as another code (eucjpms 0x8FA2B7 and 0x7E are
    both ``~``): decoding them is refused, so what is read is written back as it was."""
    want = server_decoding(server, charset, codes)
    best: tuple[int, str, tuple[bytes, ...]] | None = None
    for cand in candidates:
        wrong: list[bytes] = []
        bad = 0
        for code in codes:
            try:
                got = code.decode(cand)
            except UnicodeDecodeError:
                bad += code in want
                continue
            if len(got) == 1 and want.get(code, got) != got:
                wrong.append(code)
                bad += 1000  # a wrong character is worse than bytes left undecoded
            elif got.encode(cand, "replace") != code:  # a second code of a character: read back, it
                wrong.append(code)                       # would be written as the first
        if best is None or bad < best[0]:
            best = (bad, cand, tuple(wrong))
    assert best is not None
    return best[1], best[2]


def _decoding_to(codes: list[bytes], codec: str, cps: set[int]) -> list[bytes]:
    """The codes ``codec`` decodes to one of the code points ``cps``."""
    out = []
    for code in codes:
        try:
            got = code.decode(codec)
        except UnicodeDecodeError:
            continue
        if len(got) == 1 and ord(got) in cps:
            out.append(code)
    return out


def ranges(cps: list[int]) -> list[tuple[int, int]]:
    """Sorted code points as inclusive ranges."""
    out: list[tuple[int, int]] = []
    for cp in cps:
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    with MariaDBServer(make_template(tmp / "tpl")) as server:
        server.execute("CREATE DATABASE cm")
        single = {cs: single_byte(server, cs) for cs, (mb, codec) in sorted(_collations.CHARSETS.items())
                  if mb == 1 and cs not in ("binary", "latin1", "ascii")}
        diff, base, refused = {}, {}, {}
        codes = multibyte_codes()
        for cs, (mb, codec) in sorted(_collations.CHARSETS.items()):
            if mb == 1 or codec is None or cs.startswith("utf") or cs == "ucs2":
                continue
            if not server.query(f"SHOW CHARACTER SET LIKE '{cs}'"):
                print(f"{cs}: not a MariaDB charset (MySQL's only); left out", file=sys.stderr)
                continue
            base[cs], refused[cs] = best_base(server, cs, CANDIDATES.get(cs, (codec,)), codes)
            found = differs(server, cs, base[cs])
            refused[cs] = tuple(sorted({*refused[cs], *_decoding_to(codes, base[cs], set(found))}))  # read, it
            # could not be written back
            print(f"{cs} ({base[cs]}): {len(found)} characters differ, {len(refused[cs])} decoded otherwise",
                  file=sys.stderr)
            if found:
                diff[cs] = ranges(found)
        base = {cs: b for cs, b in base.items() if b != _collations.CHARSETS[cs][1]}
        refused = {cs: r for cs, r in refused.items() if r}
    lines = ['"""Character-set maps measured on MariaDB 10.11 (generated by tools/charset_maps.py; do not edit).',
             "", "SINGLE_BYTE: decoding tables (byte -> character, U+FFFE: none) of the one-byte charsets but",
             "latin1 and ascii. DIFFERS: per multi-byte charset, inclusive code-point ranges that its",
             "codec encodes to bytes the server reads as another character. BASE: a multi-byte",
             "charset's Python codec where it is not _collations.py's; DECODED_OTHERWISE: the codes",
             "that codec decodes to another character than the server. API and rule:",
             "binlogwriter/charsets.py,",
             "docs/charsets.md.", "",
             "Size: data only, generated from the server's maps.",
             '"""', "", "SINGLE_BYTE: dict[str, str] = {"]
    for cs, table in single.items():
        lines.append(f"    {cs!r}: (")
        for i in range(0, 256, 16):
            lines.append(f"        {table[i:i + 16]!r}")
        lines.append("    ),")
    lines += ["}", "", "DIFFERS: dict[str, tuple[tuple[int, int], ...]] = {"]
    for cs, rs in diff.items():
        lines.append(f"    {cs!r}: (")
        for i in range(0, len(rs), 6):
            lines.append("        " + " ".join(f"({a:#06x}, {b:#06x})," for a, b in rs[i:i + 6]))
        lines.append("    ),")
    lines += ["}", "", "BASE: dict[str, str] = {"]
    lines += [f"    {cs!r}: {b!r}," for cs, b in base.items()]
    lines += ["}", "", "DECODED_OTHERWISE: dict[str, tuple[bytes, ...]] = {"]
    lines += [f"    {cs!r}: {r!r}," for cs, r in refused.items()]
    lines += ["}", ""]
    (ROOT / "binlogwriter" / "_charset_maps.py").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
