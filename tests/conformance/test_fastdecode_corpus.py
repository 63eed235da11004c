"""The fast event decoder equals the declarative one on real MariaDB 10.11 binlogs (every
event of the corpus, FULL and MINIMAL metadata / images) and re-encodes byte-identically."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_fastdecode import check  # noqa: E402


@pytest.mark.parametrize("meta,image", [("FULL", "FULL"), ("MINIMAL", "MINIMAL"), ("FULL", "NOBLOB")])
def test_fast_decode_real_mariadb_corpus(mariadb_corpus, meta: str, image: str) -> None:
    assert check(mariadb_corpus(meta, image)) > 10
