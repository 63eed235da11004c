"""Fuzzing the decoder: seeds, mutator, targets and runner (docs/fuzzing.md)."""
