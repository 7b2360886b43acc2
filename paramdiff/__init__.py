"""paramdiff — pinned, auditable ArduPilot parameter sets for SITL.

Library first: everything the CLI does is a function here. Heavy modules load lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from paramdiff.comparison.side_by_side import Comparison


def compare(*sources: Any, **kw: Any) -> Comparison:
    """Align parsed sources (``paramdiff.table.Source``) or file paths; returns a Comparison
    whose ``.frame`` is a pandas DataFrame indexed by parameter name."""
    # Imported here, not at the top: every `import paramdiff.<module>` (each command) runs
    # this file, and these cost ~50 ms (python -X importtime) that only a library call needs.
    from pathlib import Path

    from paramdiff.comparison.side_by_side import compare as _compare
    from paramdiff.model.source import Source
    from paramdiff.parse.named_files import local_sources

    if all(isinstance(s, Source) for s in sources):
        return _compare(list(sources), **kw)
    return _compare(local_sources([Path(s) for s in sources]), **kw)
