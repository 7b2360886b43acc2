"""renames.yaml, the reviewed source of the renames paramdiff ships, expanded into the table
a run reads (``paramdiff/data/renames.json``, comparison/renames.py): only ``write_table``
(after editing the YAML) and the test that keeps the two equal read the YAML, so no command
imports PyYAML for the renames. The entries' form is described at the top of renames.yaml.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from typing import Any

from paramdiff.comparison.renames import DATA, RULES, Conversion, Rename, table_bytes
from paramdiff.config.yamlfile import load_shipped
from paramdiff.errors import InputError

DATA_FILE = "paramdiff/data/renames.yaml"
_REQUIRED_KEYS = {"old", "new", "since", "source"}
_ENTRY_KEYS = {*_REQUIRED_KEYS, "for", "convert"}
_PLACEHOLDER = re.compile(r"\{(\w+)(?:\+(\d+))?\}")


def _values(spec: Any, where: str) -> list[Any]:
    if isinstance(spec, str) and ".." in spec:
        lo, hi = spec.split("..", 1)
        return list(range(int(lo), int(hi) + 1))
    if isinstance(spec, list) and spec:
        return spec
    raise InputError(
        f"{where}: a value list or an 'a..b' range is expected",
        "fix the entry",
        file=DATA_FILE,
    )


def _fill(template: str, bound: Mapping[str, Any]) -> str:
    def sub(m: re.Match[str]) -> str:
        value = bound[m.group(1)]
        return str(int(value) + int(m.group(2))) if m.group(2) else str(value)

    return _PLACEHOLDER.sub(sub, template)


def _conversion(spec: Any, where: str) -> Conversion:
    if spec is None:
        return Conversion()
    if not isinstance(spec, dict) or set(spec) - {"scale", "units", "rule"}:
        raise InputError(f"{where}: bad 'convert'", "use {scale, units} or {rule}", file=DATA_FILE)
    rule = str(spec.get("rule", ""))
    if rule and rule not in RULES:
        raise InputError(f"{where}: unknown rule '{rule}'", f"use one of {RULES}", file=DATA_FILE)
    return Conversion(float(spec.get("scale", 1.0)), str(spec.get("units", "")), rule)


def _expand(entry: Any, index: int) -> Iterator[Rename]:
    where = f"renames[{index}]"
    if not isinstance(entry, dict) or not _REQUIRED_KEYS <= set(entry) <= _ENTRY_KEYS:
        raise InputError(
            f"{where}: needs old, new, since and source", "fix the entry", file=DATA_FILE
        )
    conversion = _conversion(entry.get("convert"), where)
    variables = entry.get("for") or {}
    names = list(variables)
    choices = [_values(variables[n], f"{where}.for.{n}") for n in names]
    for combo in itertools.product(*choices):
        bound = dict(zip(names, combo, strict=True))
        yield Rename(
            _fill(str(entry["old"]), bound),
            _fill(str(entry["new"]), bound),
            str(entry["since"]),
            conversion,
            " ".join(str(entry["source"]).split()),
        )


def parse_renames(text: str) -> dict[str, Rename]:
    """Every rename in a renames.yaml text, keyed by old name."""
    doc = load_shipped(text, DATA_FILE)  # the shipped table uses anchors: not load_yaml
    if not isinstance(doc, dict) or not isinstance(doc.get("renames"), list):
        raise InputError("no 'renames:' list", "see the file's header", file=DATA_FILE)
    out: dict[str, Rename] = {}
    for i, entry in enumerate(doc["renames"]):
        for r in _expand(entry, i):
            out[r.old] = r
    return out


def write_table() -> None:
    """Regenerate renames.json from renames.yaml (after editing renames.yaml)."""
    table = parse_renames((DATA / "renames.yaml").read_text(encoding="utf-8"))
    (DATA / "renames.json").write_bytes(table_bytes(table))
