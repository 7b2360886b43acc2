"""Renderers: generators of lines (text, markdown, SVG); the sink is chosen last."""
