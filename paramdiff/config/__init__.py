"""The project's own files: sources.yaml, overlays, sources.lock."""
