"""Charset stress: multilingual text for CHAR/VARCHAR/TEXT columns (issue #29 §2,
``--charset-stress``): a fixed pool of strings of every script class (accents, Greek and
Cyrillic, CJK, RTL, combining marks, 4-byte emoji, symbols, edge characters), fitted to each
column by the rules of values.md §1 (:func:`generators.columns._fit.fit_text`), and a
share of a generator's values drawn from it."""

from __future__ import annotations

from binlogwriter.schema import Column
from generators.columns._common import with_edges
from generators.columns._fit import fitted_pool
from generators.hashing import hash64, salt

# -- charset stress: multilingual text (issue #29 §2) ---------------------------------------

STRESS_CLASSES: dict[str, tuple[str, ...]] = {
    # each class: fragments a stress value is built of (a value holds one or two classes)
    "latin": ("café", "naïve", "Ærøskøbing", "Straße", "façade", "señor", "Dvořák", "Łódź", "Þórsmörk", "crème brûlée"),
    "greek_cyrillic": ("Καλημέρα", "κόσμε", "Ωμέγα", "Привет", "мир", "Ёлка", "Україна", "Щука", "Җир", "Ђорђе"),
    "cjk": ("你好", "世界", "中文字符", "日本語", "テキスト", "ひらがな", "한국어", "테스트", "漢字", "〆切"),
    "rtl": ("שלום", "עולם", "مرحبا", "بالعالم", "سلام", "ژاله", "ܫܠܡܐ", "ދިވެހި", "עִבְרִית", "اردو"),
    "combining": ("e\u0301", "n\u0303o", "a\u0308\u0304", "Z\u0324\u0354\u0367\u0311\u0313", "o\u0338",
                  "i\u0307\u0301", "u\u031b\u0309", "c\u0327", "\u0915\u094d\u0937", "\u0e01\u0e34\u0e48"),
    "emoji": ("\U0001f600", "\U0001f44d\U0001f3fd", "\U0001f468\u200d\U0001f469\u200d\U0001f467",
              "\U0001f1eb\U0001f1f7", "\U0001f4a9", "\U0001f680", "\u2764\ufe0f", "\U0001f9d1\u200d\U0001f4bb",
              "\U00020bb7", "\U0001d11e"),
    "symbols": ("€", "™", "…", "«»", "±", "¥£", "→", "✓", "½", "°C"),
    "edge": ("", " ", "\t", "'\"\\", "\u00a0", "\u200b", "\ufeff", "\u2028", "x\u0000y", "\U0010fffd"),
}
_STRESS_NAMES = tuple(STRESS_CLASSES)
STRESS_POOL_SIZE = 256


def _stress_entries() -> tuple[str, ...]:
    """:data:`STRESS_POOL_SIZE` strings, entry ``i`` mainly of class ``i % 8`` (so a pick of
    about a hundred holds every class), some mixed with a second class and ASCII words;
    fixed (a function of nothing: the fragments and a salted hash)."""
    out = []
    for i in range(STRESS_POOL_SIZE):
        h = hash64(salt("charset-stress"), i)
        main = STRESS_CLASSES[_STRESS_NAMES[i % len(_STRESS_NAMES)]]
        parts = [main[h % len(main)], main[(h >> 8) % len(main)]]
        if (h >> 16) % 3 == 0:
            other = STRESS_CLASSES[_STRESS_NAMES[(h >> 20) % len(_STRESS_NAMES)]]
            parts.insert(1, other[(h >> 24) % len(other)])
        if (h >> 28) % 2 == 0:
            parts.append(("abc", "x", "Test", "42", "id")[(h >> 32) % 5])
        out.append(" ".join(parts))
    return tuple(out)


STRESS = _stress_entries()


def stress_pool(col: Column, flavor: str) -> list[str]:
    """The stress pool fitted to a column (:func:`_fit_text`: at most its characters and its
    byte limit in its charset, characters the charset cannot hold dropped — utf8mb3 loses the
    4-byte ones, latin1 keeps the accents, ascii only ASCII); entries that lose every
    character they were chosen for are kept as fitted (often empty or ASCII)."""
    return list(fitted_pool(STRESS, col, flavor))


def with_stress(gen, pool: list[str], share: float):
    """``gen`` with a share ``share`` of its values picked from ``pool`` (the column's
    :func:`stress_pool`) — the
    mechanism of ``_with_edges`` (draw ``j + 1`` decides, ``j + 2`` picks, ``gen`` draws from
    ``j + 2`` on), so its vectorised twin and its ``many`` face come with it."""
    from generators.columns._vec import edge_twin

    g = with_edges(gen, pool, True, share)
    g.stress = True
    tw = edge_twin(g)
    if tw is not None:
        g.vec = tw
    return g
