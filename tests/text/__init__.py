"""Tests of binlogwriter/text/ (the inspect listing)."""
