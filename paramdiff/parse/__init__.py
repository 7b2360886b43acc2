"""Parsers: bytes of one upstream format in, normalized model objects out."""
