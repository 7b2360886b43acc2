"""paramdiff — pinned, auditable ArduPilot parameter sets for SITL.

Library first: everything the CLI does is a function here. Heavy modules load lazily.
"""

from __future__ import annotations

__version__ = "0.1.0"

# Not `from typing import TYPE_CHECKING`: every command imports this package first, and
# typing costs ~2 ms to import (`--help` needs none of it). mypy reads the name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .comparison.compare import Comparison


def compare(*sources: Any, **kw: Any) -> Comparison:
    """Align parsed sources (``paramdiff.table.Source``) or file paths; returns a Comparison
    whose ``.frame`` is a pandas DataFrame indexed by parameter name."""
    from pathlib import Path

    from .comparison.compare import compare as _compare
    from .model.source import Source
    from .parse.local import local_sources

    if all(isinstance(s, Source) for s in sources):
        return _compare(list(sources), **kw)
    return _compare(local_sources([Path(s) for s in sources]), **kw)
