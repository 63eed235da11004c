"""The batch planner lays out every flavor's default settings (binlogwriter/batch/columnar.py
``columnar_supported``): a type the flavor's FDE does not declare (MariaDB's MySQL GTIDs 33/34,
MySQL 8.4's v1 rows events 23-25) is never written, so it does not send the flavor to the
per-transaction path. Whether the batch bytes equal the declarative path's is
tests/batch/test_batch_equivalence.py's property."""

from __future__ import annotations

import dataclasses

import pytest

from binlogwriter.batch.columnar import columnar_supported
from binlogwriter.format import FLAVORS, BinlogFormat
from binlogwriter.write.writer import BinlogWriter


@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("checksum", [True, False])
def test_every_flavor_takes_the_batch_path(tmp_path, flavor: str, checksum: bool) -> None:
    w = BinlogWriter(tmp_path, BinlogFormat.preset(flavor, checksum=checksum))
    try:
        assert columnar_supported(w)
    finally:
        w.close()


@pytest.mark.parametrize("gtid,compress", [("anonymous", True), ("3e11fa47-71ca-11e1-9e33-c80aa9429562:tag_1", False),
                                           ("3e11fa47-71ca-11e1-9e33-c80aa9429562:tag_1", True)])
def test_compression_and_tagged_gtids_take_the_batch_path(tmp_path, gtid: str, compress: bool) -> None:
    from binlogwriter.write.transaction import SessionSettings

    w = BinlogWriter(tmp_path, BinlogFormat.preset("mysql84"),
                     settings=SessionSettings(gtid=gtid, transaction_compression=compress))
    try:
        assert columnar_supported(w)
    finally:
        w.close()


def test_a_longer_declared_post_header_still_declines(tmp_path) -> None:
    fmt = BinlogFormat.preset("mysql80")
    lengths = list(fmt.post_header_lengths)
    lengths[30 - 1] += 2  # WRITE_ROWS v2 with two bytes the templates do not write
    longer = dataclasses.replace(fmt, post_header_lengths=tuple(lengths))
    w = BinlogWriter(tmp_path, longer)
    try:
        assert not columnar_supported(w)
    finally:
        w.close()
