"""``arrowbuild.joined_spans`` (the export's gather of CHAR / VARCHAR / TEXT / BLOB values,
issue 30) gives exactly ``b"".join`` of the slices it names: spans of every length around the
12 bytes an Arrow view holds inline, empty ones, overlapping ones, at the buffer's ends."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.read.arrowbuild import joined_spans
from binlogwriter.read.arrowcols import PAD


@st.composite
def _spans(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int]]]:
    raw = draw(st.binary(min_size=0, max_size=300))
    n = draw(st.integers(0, 40))
    spans = []
    for _ in range(n):
        a = draw(st.integers(0, len(raw)))
        size = draw(st.one_of(st.integers(0, 16), st.integers(0, len(raw) - a)))
        spans.append((a, min(size, len(raw) - a)))
    return raw, spans


@settings(max_examples=400, deadline=None)
@given(_spans())
def test_joined_spans_is_the_join_of_the_slices(case: tuple[bytes, list[tuple[int, int]]]) -> None:
    raw, spans = case
    buf = np.frombuffer(raw + bytes(PAD), dtype=np.uint8)
    start = np.array([a for a, _ in spans], dtype=np.int64)
    size = np.array([s for _, s in spans], dtype=np.int64)
    got = joined_spans(raw, buf, start, size)
    assert got.dtype == np.uint8
    assert got.tobytes() == b"".join(raw[a:a + s] for a, s in spans)


def test_multibyte_text_values() -> None:
    values = ["é" * 7, "", "日本語テキスト", "x", "ü" * 6 + "a", "🙂" * 3]
    raw = b"".join(v.encode() for v in values)
    buf = np.frombuffer(raw + bytes(PAD), dtype=np.uint8)
    lens = np.array([len(v.encode()) for v in values], dtype=np.int64)
    start = np.cumsum(lens) - lens
    assert joined_spans(raw, buf, start, lens).tobytes().decode() == "".join(values)
