"""The command line, on click: each command a small module here (loaded when it runs) that
parses its options, calls one library function and chooses the sink; options.py holds the
options several commands share; boundary.guarded maps exceptions to exit codes."""

from paramdiff.cli.app import console, main
from paramdiff.cli.boundary import guarded

__all__ = ["console", "guarded", "main"]
