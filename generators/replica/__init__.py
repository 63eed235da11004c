"""Replica truth (issue #32, docs/replica.md): what a MariaDB 10.11 replica whose tables differ
from the primary's holds after replicating a run — or where it stops.

The model replays ``truth/changes`` (commit order) onto the replica's schema with the server's
own rules, one module per rule:

- :mod:`~generators.replica.columns`: column facts (family, widths, the type names the 1677
  message prints);
- :mod:`~generators.replica.classes`: column mapping by position and the conversion class of
  each column pair (``table_def::compatible_with``, ``Field::rpl_conv_type_from``);
- :mod:`~generators.replica.convert`: value conversion per type family (``unpack_row`` +
  ``Field::store``) and extra columns' defaults;
- :mod:`~generators.replica.lookup`: the replica's rows, WL#5092 row lookup
  (``Rows_log_event::find_row``) and unique-key checks (1032, 1062);
- :mod:`~generators.replica.provision`: the replica's starting rows (``truth/snapshot.sql``
  loaded into its tables, ``truth/replica/provision.sql``);
- :mod:`~generators.replica.ddl`: ``--ddl-every`` ALTERs run on the replica's own definitions;
- :mod:`~generators.replica.replay`: the replay, the stop, and ``truth/replica/``;
- :mod:`~generators.replica.catalogue`: the same replay on a catalogue entry's binlog.
"""

from generators.replica.replay import compute_replica_truth
from generators.replica.settings import CONVERSIONS, ReplicaSettings

__all__ = ["compute_replica_truth", "ReplicaSettings", "CONVERSIONS"]
