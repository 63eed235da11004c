"""The fast event decoder equals the declarative one on real MariaDB 10.11 binlogs (every
event of the corpus, FULL and MINIMAL metadata / images) and re-encodes byte-identically."""

from __future__ import annotations

import pytest

from tests.read.test_fastdecode import check


@pytest.mark.parametrize("meta,image", [("FULL", "FULL"), ("MINIMAL", "MINIMAL"), ("FULL", "NOBLOB")])
def test_fast_decode_real_mariadb_corpus(mariadb_corpus, meta: str, image: str) -> None:
    assert check(mariadb_corpus(meta, image)) > 10
