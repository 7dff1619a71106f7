"""Defined once per process: a page script's wrapper is rebuilt, its source re-hashed, each run."""
