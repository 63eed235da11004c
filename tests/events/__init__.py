"""Tests of binlogwriter/events/ (typed events and their vectors)."""
