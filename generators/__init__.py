"""Synthetic workloads for binlogwriter (issue: `binlogwriter generate`)."""
