"""Read YAML safely and remember the line of every key, so errors can point at it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import yaml

from paramdiff.config.yaml12 import Dumper, Refused, check_scalars, loader_class
from paramdiff.errors import ConfigError, quote

KeyPath = tuple[str | int, ...]
# Lists and mappings nested deeper than this are refused on the event stream: paramdiff's
# deepest file (sources.lock: profiles/pin/role/includes/item/key) nests 6, and the loaders
# (composer, constructor, our line index) recurse once per level, so ~1000 levels were a
# RecursionError (exit 3) instead of an input error.
MAX_DEPTH = 64


@cache
def safe_loader() -> Any:
    """The safe loader (C-accelerated when libyaml is present; plain data only) resolving
    plain scalars by YAML 1.2's core schema (config/yaml12.py)."""
    return loader_class()


@dataclass(slots=True)
class YamlDoc:
    """The data of a YAML file plus the 1-based line of each key path."""

    file: str
    data: Any
    lines: dict[KeyPath, int] = field(default_factory=dict)

    def line(self, path: KeyPath) -> int:
        """Line of ``path``, or of its nearest ancestor that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return 1

    def error(self, path: KeyPath, what: str, fix: str) -> ConfigError:
        return ConfigError(what, fix, file=self.file, line=self.line(path))


def key_name(path: KeyPath) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def load_yaml(data: bytes, file: str) -> YamlDoc:
    """Parse with the safe loader only; refuse duplicate keys (YAML keeps the last silently)."""
    return _parse(data, file)


def _parse(data: bytes, file: str) -> YamlDoc:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            "not UTF-8 text", "save the file as UTF-8", file=file, line=line
        ) from None
    try:
        _refuse_aliases(text, file)  # before anything builds or walks the document
        node, value = _compose_and_construct(text)
        doc = YamlDoc(file=file, data=value)
        if node is not None:
            _index(node, (), doc)
    except RecursionError:  # a backstop: MAX_DEPTH refuses deep documents before this
        raise ConfigError(
            "YAML nested too deeply to read",
            f"flatten the file (paramdiff's files nest a few levels, at most {MAX_DEPTH})",
            file=file,
            line=1,
        ) from None
    except Refused as exc:
        raise ConfigError(exc.what, exc.fix, file=file, line=exc.line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"not valid YAML: {problem}", "fix the YAML syntax on that line", file=file, line=line
        ) from None
    return doc


def load_shipped(text: str, file: str) -> Any:
    """The data of a YAML file paramdiff ships (anchors allowed: renames.yaml uses them),
    read by the same YAML 1.2 rules as every other YAML file."""
    try:
        return _compose_and_construct(text)[1]
    except Refused as exc:
        raise ConfigError(exc.what, exc.fix, file=file, line=exc.line) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}", "fix the file", file=file) from None


def _compose_and_construct(text: str) -> tuple[yaml.Node | None, Any]:
    """One parse for both the node tree (lines) and the data (what ``yaml.load`` does with
    the same safe loader: plain data only)."""
    loader = safe_loader()(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            check_scalars(node)  # a scalar YAML 1.1 and 1.2 read differently: refused
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _refuse_aliases(text: str, file: str) -> None:
    """Anchors and aliases are refused: none of paramdiff's files needs one, and an alias is
    how a few lines of YAML become gigabytes (nested aliases) or a cycle (``x: &r [*r]``).
    Checked on the event stream, which is linear in the text and never expands an alias; so is
    the nesting depth (MAX_DEPTH), before anything recurses over the document."""

    def refused(event: Any, what: str, fix: str) -> ConfigError:
        mark = event.start_mark
        return ConfigError(what, fix, file=file, line=mark.line + 1 if mark is not None else 1)

    depth = 0
    for event in yaml.parse(text, Loader=safe_loader()):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise refused(
                    event,
                    f"lists or mappings nested more than {MAX_DEPTH} deep",
                    "flatten the file; paramdiff's files nest a few levels",
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        tag = getattr(event, "tag", None)
        if tag is not None:  # `!!float 1:00` would read YAML 1.1's way, past the 1.2 rule
            raise refused(
                event,
                f"YAML tag '{quote(str(tag))}' is not allowed",
                "write the plain value (quote it for text); paramdiff's files use no tags",
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            sign, kind = ("*", "alias") if isinstance(event, yaml.AliasEvent) else ("&", "anchor")
            raise refused(
                event,
                f"YAML {kind} '{sign}{quote(str(anchor))}' is not allowed",
                "write the value out in full; paramdiff's files use no anchors or aliases",
            )


def _index(node: yaml.Node, path: KeyPath, doc: YamlDoc) -> None:
    doc.lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                raise ConfigError(
                    f"key '{key_name((*path, key))}' appears twice (first on line {seen[key]})",
                    "keep one of them; YAML would silently use the last",
                    file=doc.file,
                    line=line,
                )
            seen[key] = line
            key_path = (*path, key)  # not inside [...]: mypy on Python 3.10 refuses x[(*a, b)]
            doc.lines[key_path] = line
            _index(value_node, key_path, doc)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index(item, (*path, i), doc)


def dump_yaml(data: Any) -> str:
    """Deterministic YAML: sorted keys, block style, no aliases; a string either YAML schema
    would read as something else is quoted (config/yaml12.py Dumper)."""
    return yaml.dump(
        data, Dumper=Dumper, sort_keys=True, default_flow_style=False, allow_unicode=True
    )
