"""Renderers: lines of text from stage results; the sink is chosen by the caller."""
