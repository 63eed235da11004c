"""Text and byte-string values, shared by the ``char`` (CHAR VARCHAR BINARY VARBINARY) and
``blob`` (TEXT and BLOB types) families: name-driven Faker picks, word and paragraph text,
random bytes, all cut to the column (values.md §1: at most the declared characters and the
byte limit in the column's charset, characters the charset cannot hold dropped).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import methodcaller
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from generators.columns._common import exp_ints, quote, with_edges
from generators.columns._fit import (
    BYTE_TYPES,
    TEXT_LIMIT,
    TEXT_TYPES,
    char_limit,
    fit_info,
    fit_text,
    fitted_pool,
)
from generators.columns._stress import stress_pool, with_stress
from generators.columns._vec import (
    ascii_runs,
    drawn_bytes,
    fixed_bytes,
    joined_runs,
    joined_runs_array,
    key_text_vec,
    pool_vec,
    strip_runs,
)
from generators.hashing import Stream, draw_array, draws_matrix, hash64, salt, unit_array
from generators.pools import pool


def _words(st: Stream, n: int) -> str:
    words = pool("word")
    return " ".join(words[st.below(1024)] for _ in range(n))


def text_of_length(st: Stream, target: int) -> str:
    paras = pool("paragraph")
    out: list[str] = []
    size = 0
    while size < target:
        p = paras[st.below(1024)]
        out.append(p)
        size += len(p) + 1
    return " ".join(out)[:target]


def _below_cols(pre: np.ndarray, j: int, ns: tuple[int, ...]) -> list[list[int]]:
    """``st.below(n)`` for each ``n`` of ``ns`` in turn, for every row of a draws matrix
    whose streams are at draw ``j`` (``pre[:, t]`` = draw ``t + 1``): one list per draw."""
    return [(pre[:, j + i] % np.uint64(n)).tolist() for i, n in enumerate(ns)]


def _fitter(col: Column, flavor: str) -> Callable[[str], str]:
    """:func:`_fit_text` for one column; a plain cut where nothing else can apply (utf8mb4,
    four bytes a character allowed, not CHAR)."""
    nchars, nbytes, coll = fit_info(col, flavor)
    if coll is not None and coll.charset == "utf8mb4" and nbytes >= nchars * 4 and col.type != "CHAR":
        return lambda s: s[:nchars] if len(s) > nchars else s
    return lambda s: fit_text(s, col, flavor)


_RSTRIP = methodcaller("rstrip", " ")
_ASCII = "".join(map(chr, range(128)))


def _ascii_width(coll: Any) -> int | None:
    """The most bytes one ASCII character takes in a collation's charset (1 for utf8mb4,
    latin1, gbk…, 2 for ucs2/utf16, 4 for utf32), None when one of them cannot be encoded
    (the charset lacks it) or the charset is binary."""
    if coll is None or coll.charset == "binary":
        return None
    try:
        return max(len(coll.encode(ch)) for ch in _ASCII)
    except (UnicodeError, LookupError, ValueError):
        return None


def _ascii_fitter(col: Column, flavor: str) -> Callable[[list[str]], list[str]] | None:
    """:func:`_fit_text` of many ASCII strings already cut to ``cap = min(max characters, max
    bytes)``, or None when it may do more than drop a CHAR's trailing spaces. In a charset
    that holds every ASCII character in at most ``w`` bytes with ``w * cap`` within the byte
    limit, such a string has nothing to cut (``cap`` characters, at most ``w * cap`` bytes)
    nor to drop (encodable, in the BMP): ``_fit_text`` gives it back, CHAR without trailing
    spaces."""
    nchars, nbytes, coll = fit_info(col, flavor)
    w = _ascii_width(coll)
    if w is None or w * min(nchars, nbytes) > nbytes:
        return None
    if col.type == "CHAR":
        return lambda vals: list(map(_RSTRIP, vals))
    return lambda vals: vals


def _paragraphs_cut(lo: int, mean: float):
    """Vectorised twin of ``_text_of_length(st, max(lo, int(st.exp(mean))))[:cap]``:
    ``fn(h, j, cap) -> list[str]`` for the stream hashes ``h`` at draw ``j`` (draw ``j + 1``
    the length, by ``math.log`` as the scalar computes it; then one paragraph pick per draw
    while the text is shorter than its length, rows dropping out as they are done), or
    None when the paragraph pool is not ASCII."""
    paras = pool("paragraph")
    if ascii_runs(paras) is None or len(paras) != 1024:
        return None

    def cut(h: np.ndarray, j: int, cap: int) -> list[str]:
        runs = ascii_runs(paras)
        n = len(h)
        targets = np.maximum(lo, exp_ints(unit_array(draw_array(h, j + 1)), mean))
        size = np.zeros(n, dtype=np.int64)
        cols = []
        act = np.flatnonzero(size < targets)
        t = 0
        while len(act):
            p = (draw_array(h[act], j + 2 + t) % np.uint64(1024)).astype(np.int64)
            col = np.full(n, -1, dtype=np.int64)
            col[act] = p
            cols.append(col)
            size[act] += runs.lens[p]
            act = act[size[act] < targets[act]]
            t += 1
        picks = np.stack(cols, axis=1) if cols else np.full((n, 0), -1, dtype=np.int64)
        return joined_runs(runs, picks, np.minimum(targets, cap))
    return cut


def _pool_vec_at(entries: tuple, t: int):
    """Vectorised twin of ``entries[stream.below(len(entries))]`` taken at draw ``j + t``
    (the draws before it spent on choices with one outcome): a "pool" column."""
    m = np.uint64(len(entries))
    return lambda h, j: ("pool", (draw_array(h, j + t) % m).astype(np.int64), entries)


def _string_by_name(col: Column, name: str, table: str) -> Callable[[Stream, int], str] | None:
    def pick(pool_name: str):
        pl = pool(pool_name)
        f = lambda st, k: pl[st.below(1024)]  # noqa: E731
        f.pool = pl  # a plain pick: _string_gen gives it a vectorised twin
        return f
    if "email" in name:
        fn, ln, dm = pool("first_name"), pool("last_name"), pool("email_domain")

        def email(st, k):
            return f"{fn[st.below(1024)]}.{ln[st.below(1024)]}{st.below(100)}@{dm[st.below(1024)]}".lower()
        email.many = lambda pre, keys, j: [  # generators/values.py _replay: same draws, same text
            f"{fn[a]}.{ln[b]}{c}@{dm[d]}".lower() for a, b, c, d in zip(
                *_below_cols(pre, j, (1024, 1024, 100, 1024)), strict=True)]
        return email
    for words, pname in ((("first_name", "firstname", "fname", "given_name"), "first_name"),
                         (("last_name", "lastname", "surname", "lname"), "last_name"),
                         (("username", "user_name", "login", "nick"), "user_name"),
                         (("city", "town"), "city"), (("country_code",), "country_code"),
                         (("country",), "country"), (("state", "region"), "state"),
                         (("zip", "postcode", "postal"), "postcode"),
                         (("street", "address", "addr"), "street_address"),
                         (("phone", "mobile", "tel"), "phone"), (("company", "employer"), "company"),
                         (("job", "occupation"), "job"), (("url", "website", "homepage", "link"), "url"),
                         (("ip",), "ipv4"), (("color", "colour"), "color"), (("currency",), "currency_code"),
                         (("agent",), "user_agent"), (("slogan", "tagline", "title"), "catch_phrase")):
        if any(name == w or name.endswith("_" + w) or name.startswith(w) for w in words):
            return pick(pname)
    if name in ("name", "full_name", "fullname", "customer_name", "contact"):
        if "product" in table or "item" in table:
            ws, cs = pool("word"), pool("color")

            def product(st, k):
                return f"{cs[st.below(1024)]} {ws[st.below(1024)]} {ws[st.below(1024)]}".title()
            product.many = lambda pre, keys, j: [
                f"{cs[a]} {ws[b]} {ws[c]}".title() for a, b, c in zip(
                    *_below_cols(pre, j, (1024, 1024, 1024)), strict=True)]
            return product
        return pick("name")
    if name in ("sku", "code", "ref", "reference"):
        def sku(st, k):
            return f"{chr(65 + st.below(26))}{chr(65 + st.below(26))}-{st.below(10**6):06d}"
        sku.many = lambda pre, keys, j: [
            f"{chr(65 + a)}{chr(65 + b)}-{c:06d}" for a, b, c in zip(
                *_below_cols(pre, j, (26, 26, 10**6)), strict=True)]
        return sku
    if any(w in name for w in ("description", "comment", "body", "text", "note", "bio", "content",
                               "message", "review", "summary")):
        text = lambda st, k: text_of_length(st, max(20, int(st.exp(280))))  # noqa: E731
        text.vec_cut = _paragraphs_cut(20, 280)
        return text
    return None


def _runs_vec(runs_cut: Callable, cap: int, char: bool):
    """ASCII words (fitted as they are: ``_ascii_fitter``) as ColumnArray "runs"; a CHAR's
    without their trailing spaces (what the fitter's ``rstrip`` drops)."""
    if not char:
        return lambda h, j: ("runs", *runs_cut(h, j, cap))

    def char_runs(h: np.ndarray, j: int) -> tuple:
        at, flat = runs_cut(h, j, cap)
        return "runs", strip_runs(at, flat), flat
    return char_runs


def _string_gen(col: Column, name: str, table: str, flavor: str, edge: bool, stress: float = 0.0):
    nchars, nbytes = char_limit(col, flavor)
    base = _string_by_name(col, name, table)
    if base is None:
        if col.type in ("CHAR", "VARCHAR"):
            top = min(nchars, 60)
            most = max(1, top // 6)

            def base(st, k):
                return _words(st, 1 + st.below(most))
            words = pool("word")

            def words_many(pre: np.ndarray, keys: np.ndarray, j: int) -> list[str]:
                counts = (1 + pre[:, j] % np.uint64(most)).tolist()
                picks = (pre[:, j + 1:j + 2 + most] % np.uint64(1024)).tolist()
                return [" ".join([words[x] for x in w[:c]]) for w, c in zip(picks, counts, strict=True)]
            base.draws = 2 + most  # the count and at most ``1 + most`` words: all in the draws matrix
            base.many = words_many
            if most == 1:  # below(1) spends draw j + 1; the one word is draw j + 2's pick
                base.one_word = words
            runs = ascii_runs(words) if len(words) == 1024 else None
            if runs is not None:
                def word_picks(pre: np.ndarray, j: int) -> np.ndarray:
                    # words_many's picks: a row's words left-aligned, -1 after its count
                    counts = (1 + pre[:, j] % np.uint64(most)).astype(np.int64)
                    picks = (pre[:, j + 1:j + 1 + most] % np.uint64(1024)).astype(np.int64)
                    picks[np.arange(most)[None, :] >= counts[:, None]] = -1
                    return picks

                def words_cut(pre: np.ndarray, keys: np.ndarray, j: int, cap: int) -> list[str]:
                    # words_many's text cut to ``cap``, as one gather of the words' bytes
                    return joined_runs(runs, word_picks(pre, j), np.full(len(pre), cap, dtype=np.int64))

                def words_runs(h: np.ndarray, j: int, cap: int) -> tuple[np.ndarray, np.ndarray]:
                    # words_cut's texts as ASCII runs (ColumnArray "runs"), the draws made here
                    pre = draws_matrix(h, j + 1 + most)
                    return joined_runs_array(runs, word_picks(pre, j), np.full(len(pre), cap, dtype=np.int64))
                base.many_cut = words_cut
                base.runs_cut = words_runs
        else:
            def base(st, k):
                return text_of_length(st, max(10, int(st.exp(400))))
            base.vec_cut = _paragraphs_cut(10, 400)
    cap = min(nchars, nbytes)

    def gen(st, k):
        s = base(st, k)
        if len(s) > cap:
            s = s[:cap]
        return fit_text(s, col, flavor)
    base_many = getattr(base, "many", None)
    fit_ascii = _ascii_fitter(col, flavor)
    if base_many is not None:
        fit = _fitter(col, flavor)
        gen.many = lambda pre, keys, j: [fit(s[:cap] if len(s) > cap else s) for s in base_many(pre, keys, j)]
        gen.draws = max(8, getattr(base, "draws", 8))
        many_cut = getattr(base, "many_cut", None)
        if many_cut is not None and fit_ascii is not None:  # ASCII text: cut by numpy, fitted as is
            gen.many = lambda pre, keys, j: fit_ascii(many_cut(pre, keys, j, cap))
    runs_cut = getattr(base, "runs_cut", None)
    if runs_cut is not None and fit_ascii is not None:
        gen.vec = _runs_vec(runs_cut, cap, col.type == "CHAR")
    vec_cut = getattr(base, "vec_cut", None)
    if vec_cut is not None and fit_ascii is not None:
        gen.vec = lambda h, j: ("list", fit_ascii(vec_cut(h, j, cap)), None)
    one = getattr(base, "one_word", None)
    if one is not None:  # one word, cut and fitted: a pick among the fitted words by draw j + 2
        gen.vec = _pool_vec_at(fitted_pool(one, col, flavor, cap), 2)
    pl = getattr(base, "pool", None)
    if pl is not None:  # pl[below(1024)], cut and fitted: a pick among the fitted entries
        gen.vec = pool_vec(fitted_pool(pl, col, flavor, cap))
    if stress > 0:
        gen = with_stress(gen, stress_pool(col, flavor), stress)
    if not edge:
        return gen
    wide = fit_text("é€中" * max(1, min(nchars, 300)), col, flavor)
    edges = ["", fit_text("x" * min(nchars, 400), col, flavor), wide or "",
             fit_text("O'Brien \"quoted\" back\\slash\ttab", col, flavor)]
    return with_edges(gen, edges, edge)


def _bytes_gen(col: Column, name: str, edge: bool):
    t = col.type
    if t == "BINARY":
        n = col.char_length() or 1

        def gen(st, k):
            return b"".join(st.next().to_bytes(8, "little") for _ in range((n + 7) // 8))[:n]
        gen.draws = min(64, (n + 7) // 8)
        gen.vec = lambda h, j: ("list", fixed_bytes(h, j, n), None)
        edges = [bytes(n), b"\xff" * n, b"a" + bytes(n - 1)]
        return with_edges(gen, edges, edge)
    limit = col.char_length() if t == "VARBINARY" else TEXT_LIMIT[t]
    mean = 16 if t == "VARBINARY" else 200

    def vgen(st, k):
        n = min(limit, int(st.exp(mean)))
        return b"".join(st.next().to_bytes(8, "little") for _ in range((n + 7) // 8))[:n]
    vgen.draws = 1 + (min(limit, 4 * mean) + 7) // 8

    def vvec(h, j):
        lens = np.minimum(limit, exp_ints(unit_array(draw_array(h, j + 1)), mean))
        return "list", drawn_bytes(h, j + 1, lens), None
    vgen.vec = vvec
    edges = [b"", b"\x00", b"\xff" * min(limit, 300)]
    return with_edges(vgen, edges, edge)


def string_generator(col: Column, table: str, flavor: str, edge: bool, charset_stress: float = 0.0):
    """The generator of a text or binary column; ``charset_stress``: the share of a text
    column's values from :func:`stress_pool` (binary columns draw arbitrary bytes anyway)."""
    name = col.name.lower()
    if col.type in TEXT_TYPES:
        return _string_gen(col, name, table, flavor, edge, charset_stress)
    return _bytes_gen(col, name, edge)


# ------------------------------------------------------------------------------------
# key-derived (unique) values
# ------------------------------------------------------------------------------------

def string_key_capacity(col: Column, flavor: str, prefix: int | None = None) -> int:
    t = col.type
    if t in TEXT_TYPES:
        n = char_limit(col, flavor)[0]
        if prefix:
            n = min(n, prefix)
        return 10 ** max(0, min(n - 1, 18))
    n = col.char_length() or TEXT_LIMIT[t]
    if prefix:
        n = min(n, prefix)
    return (1 << (8 * min(n, 8))) - 1  # key + 1 in the first min(n, 8) bytes


def string_key_generator(col: Column, flavor: str, table: str, primary: bool) -> Callable[[int], Any]:
    t = col.type
    if t in TEXT_TYPES:
        words = pool("word")
        nchars = char_limit(col, flavor)[0]
        low = col.name.lower()
        if "email" in low:
            firsts, lasts, doms = pool("first_name"), pool("last_name"), pool("email_domain")

            def email(k: int, h: int | None = None) -> str:
                if h is None:
                    h = hash64(salt("key", table, col.name), k)
                tail = f"{k}@{doms[h % 1024]}"
                local = f"{firsts[(h >> 10) % 1024]}.{lasts[(h >> 20) % 1024]}".lower()
                room = nchars - len(tail)
                if room <= 0:
                    return str(k)[:nchars]
                return (local[:room] + tail)[:nchars]
            email.vec = key_text_vec(email, salt("key", table, col.name))
            return email

        def text_key(k: int, h: int | None = None) -> str:
            if h is None:
                h = hash64(salt("key", table, col.name), k)
            s = f"{k}-{words[h % 1024]}-{words[(h >> 10) % 1024]}"
            return s[:nchars].rstrip(" ")
        text_key.vec = key_text_vec(text_key, salt("key", table, col.name))
        return text_key
    n = col.char_length() or 8
    w = min(n, 8)
    # key + 1 little-endian: its first bytes are its low bytes, so a prefix key (b(4)) tells
    # the keys apart as long as they fit in it (string_key_capacity)
    if t == "BINARY":
        return lambda k: (k + 1).to_bytes(w, "little") + bytes(n - w)
    return lambda k: (k + 1).to_bytes(w, "little")


def string_coerce(col: Column, v: Any, where: str) -> Any:
    t = col.type
    if t in ("BINARY", "VARBINARY") or t.endswith("BLOB"):
        return bytes.fromhex(v[2:]) if isinstance(v, str) and v.startswith("0x") else str(v).encode()
    return str(v)


def string_sql_literal(col: Column, v: Any, flavor: str) -> str:
    if col.type in BYTE_TYPES:
        b = bytes(v)
        return "X'" + b.hex() + "'" if b else "''"
    return quote(str(v))
