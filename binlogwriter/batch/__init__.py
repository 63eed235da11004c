"""The batch encoder: many transaction groups into one buffer, byte-identical to the
declarative construct path (:mod:`binlogwriter.batch.encoder`), with numpy dtypes derived
from the construct layouts (:mod:`binlogwriter.batch.dtypes`)."""

from binlogwriter.batch.dtypes import HEADER_DTYPE, fixed_dtype, post_header_dtype
from binlogwriter.batch.encoder import Batch, BatchBuilder, encode_events, plan_batch, transaction_length

__all__ = ["Batch", "BatchBuilder", "plan_batch", "encode_events", "transaction_length", "HEADER_DTYPE", "fixed_dtype",
           "post_header_dtype"]
