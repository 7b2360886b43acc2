"""Category rules as plain data: how sources.yaml sorts parameter names (no YAML needed to use
them, so `diff` never imports the YAML stack)."""

from __future__ import annotations

import re
from typing import NamedTuple


class Category(NamedTuple):
    """One category rule of sources.yaml: name, reason and what selects its parameters."""

    name: str
    rule: str
    params: tuple[str, ...] = ()
    calibration_list: bool = False
    metadata_flags: tuple[str, ...] = ()
    script_defined: bool = False


class ScriptParams(NamedTuple):
    """Parameter globs a profile's scripts create, with the reason."""

    params: str
    reason: str


def compile_globs(globs: tuple[str, ...]) -> re.Pattern[str]:
    """One compiled pattern for a list of name globs (fnmatch syntax, case-sensitive)."""
    import fnmatch

    return re.compile("|".join(fnmatch.translate(g) for g in globs) or r"(?!)")
