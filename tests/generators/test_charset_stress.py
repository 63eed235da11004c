"""Multilingual text (``--charset-stress``, generators/columns/_strings.py ``stress_pool``):
drawn CHAR/VARCHAR/TEXT columns in utf8mb4, utf8mb3, latin1, ascii, ucs2, utf16, utf32,
with any name, length, NULLs and edge modes. Every value fits its column — at most its
declared characters, at most its byte limit in its charset — and encodes in that charset
(checked here with Python's codecs, not the project's collation code); the share of
stressed values follows the knob; 0 gives ASCII text; the vectorised values equal the
scalar ones; a thousand values of a utf8mb4 column hold every class, 4-byte characters
included, and utf8mb3 never a 4-byte one."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from generators.columns._stress import STRESS, STRESS_CLASSES
from generators.edge_values import ValueMode
from generators.values import column_generator, column_vector_generator

CODEC = {"utf8mb4": "utf-8", "utf8mb3": "utf-8", "latin1": "cp1252", "ascii": "ascii", "ucs2": "utf-16-be",
         "utf16": "utf-16-be", "utf32": "utf-32-be"}
TEXT_LIMIT = {"TINYTEXT": 255, "TEXT": 65535, "MEDIUMTEXT": (1 << 24) - 1}
MBMAX = {"utf8mb4": 4, "utf8mb3": 3, "latin1": 1, "ascii": 1, "ucs2": 2, "utf16": 4, "utf32": 4}


@st.composite
def text_columns(draw):
    cs = draw(st.sampled_from(sorted(CODEC)))
    typ = draw(st.sampled_from(["CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT"]))
    n = draw(st.sampled_from([1, 2, 5, 17, 60, 255])) if typ in ("CHAR", "VARCHAR") else None
    name = draw(st.sampled_from(["v", "title", "city", "description", "email", "first_name", "note", "x_y"]))
    null = draw(st.booleans())
    decl = f"{typ}({n})" if n else typ
    return name, decl, cs, null


def _table(cols, flavor):
    body = ", ".join(f"`{nm}{i}` {decl} CHARACTER SET {cs}{'' if null else ' NOT NULL'}"
                     for i, (nm, decl, cs, null) in enumerate(cols))
    return parse_tables(f"CREATE TABLE t (id INT NOT NULL PRIMARY KEY, {body})", "d", flavor)[0]


def _check_fits(col, v, cs):
    """``v`` fits ``col``: characters, bytes in the charset, and it encodes there."""
    if v is None:
        assert col.nullable
        return
    assert isinstance(v, str)
    b = v.encode(CODEC[cs])  # raises when the charset cannot hold a character
    if cs in ("utf8mb3", "ucs2"):  # BMP only: a 4-byte UTF-8 / surrogate-pair character is refused
        assert all(ord(c) < 0x10000 for c in v), v
    if cs == "latin1":
        assert all(ord(c) < 0x100 or c in "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ" for c in v), v
    if col.type in ("CHAR", "VARCHAR"):
        n = col.char_length()
        assert len(v) <= n, (v, n)
        assert len(b) <= n * MBMAX[cs]
    else:
        assert len(b) <= TEXT_LIMIT[col.type]
    if col.type == "CHAR":
        assert not v.endswith(" ")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(cols=st.lists(text_columns(), min_size=1, max_size=6), flavor=st.sampled_from(["mysql80", "mysql84", "mariadb1011"]),
       share=st.sampled_from([0.0, 0.1, 0.5, 1.0]), edge=st.sampled_from([False, True, "mode"]), seed=st.integers(1, 10**6))
def test_every_value_fits_its_column_and_the_twins_agree(cols, flavor, share, edge, seed) -> None:
    t = _table(cols, flavor)
    mode = ValueMode(0.3) if edge == "mode" else edge
    keys = np.arange(300, dtype=np.int64)
    vers = np.arange(300, dtype=np.int64) % 3
    for col, (_, _, cs, _) in zip(t.columns[1:], cols, strict=True):
        f = column_generator(t, col, flavor, seed, edge=mode, charset_stress=share)
        vf = column_vector_generator(t, col, flavor, seed, edge=mode, charset_stress=share)
        scalar = [f(int(k), int(v)) for k, v in zip(keys, vers, strict=True)]
        got = vf(keys, vers)
        vec = got if isinstance(got, list) else got.tolist()
        assert vec == scalar
        for v in scalar:
            _check_fits(col, v, cs)


_STRESS_SET = set(STRESS)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(share=st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.8]), seed=st.integers(1, 10**6),
       name=st.sampled_from(["v", "city", "description"]))
def test_share_is_respected_and_zero_is_ascii(share, seed, name) -> None:
    """A wide utf8mb4 column (nothing cut): the share of values that are stress-pool entries
    is ``share`` within 4 standard deviations; 0 gives ASCII only."""
    t = _table([(name, "VARCHAR(1000)", "utf8mb4", False)], "mysql80")
    col = t.columns[1]
    n = 4000
    f = column_vector_generator(t, col, "mysql80", seed, charset_stress=share)
    got = f(np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
    vals = got if isinstance(got, list) else got.tolist()
    stressed = sum(v in _STRESS_SET for v in vals)
    sd = (n * share * (1 - share)) ** 0.5
    assert abs(stressed - n * share) <= 4 * sd + 2
    if share == 0:
        assert all(v.isascii() for v in vals)


def test_a_thousand_rows_hold_every_class() -> None:
    """Default share: 1000 values of a utf8mb4 column hold a character of every class (4-byte
    emoji included); of a utf8mb3 column no 4-byte character; latin1 accents, no CJK."""
    def values(cs):
        t = _table([("v", "VARCHAR(200)", cs, False)], "mysql80")
        f = column_vector_generator(t, t.columns[1], "mysql80", 7, charset_stress=0.1)
        got = f(np.arange(1000, dtype=np.int64), np.zeros(1000, dtype=np.int64))
        return got if isinstance(got, list) else got.tolist()

    text = "".join(values("utf8mb4"))
    for cls, frags in STRESS_CLASSES.items():
        chars = {c for fr in frags for c in fr if not c.isascii()}
        if chars:
            assert chars & set(text), cls
    assert any(ord(c) > 0xFFFF for c in text)  # 4-byte characters
    mb3 = "".join(values("utf8mb3"))
    assert not any(ord(c) > 0xFFFF for c in mb3) and not mb3.isascii()
    l1 = "".join(values("latin1"))
    assert "é" in l1 or "ï" in l1 or "ß" in l1
    assert not any(0x4E00 <= ord(c) <= 0x9FFF for c in l1)


def test_jsonl_records_survive_any_line_splitter(tmp_path) -> None:
    """The stress pool holds U+0085 / U+2028 / U+2029 (edge characters): every ``.jsonl`` a
    run writes has them escaped, so ``str.splitlines()`` finds one record a line, each the
    same JSON value (json_text.jsonl_safe)."""
    import json

    from generators.engine import generate
    from generators.spec import Spec

    pool = "".join(STRESS)
    assert {"\x85", "\u2028", "\u2029"} & set(pool), "the pool no longer draws a Unicode line separator"
    spec = Spec.from_dict({"workload": "ecommerce", "seed": 3, "transactions": 60, "initial_rows": 20,
                           "charset_stress": 1.0, "ddl_every": 20})
    out = generate(spec, tmp_path / "run").out
    files = sorted(out.rglob("*.jsonl"))
    assert files
    seps = 0
    for f in files:
        text = f.read_text("utf-8")
        assert text.splitlines() == text.split("\n")[:-1], f
        for line in text.split("\n")[:-1]:
            json.loads(line)
            seps += sum(line.count(e) for e in ("\\u2028", "\\u2029", "\\u0085"))
    assert seps > 0, "no escaped separator written: the test no longer draws one"
