"""Tableside command-line entry points (the `tableside` console script)."""
