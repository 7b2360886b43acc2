"""Parsers: bytes in, rows with provenance out. No I/O, no higher layers."""
