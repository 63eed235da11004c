"""The consumer conformance matrix (issue #31 §4): real consumers × binlog shapes (docs/consumers.md).

``base.py``: the served endpoint an adapter connects to and the adapter registry;
``matrix.py``: the shapes, one cell's run and the ``--write docs/consumers.md`` command;
``test_matrix.py``: the same cells as pytest tests; ``expectations.toml``: the cells known to
fail, with the reason and the public issue; ``<consumer>/adapter.py``: one per consumer.
"""
