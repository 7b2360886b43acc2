"""Read YAML safely and remember the line of every key, so errors can point at it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from ..errors import ConfigError

KeyPath = tuple[str | int, ...]
# The C-accelerated safe loader when libyaml is present; both build plain data only.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
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
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            "not UTF-8 text", "save the file as UTF-8", file=file, line=line
        ) from None
    try:
        node = yaml.compose(text, Loader=SAFE_LOADER)
        value = yaml.load(text, Loader=SAFE_LOADER)  # a safe loader: plain data only
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"not valid YAML: {problem}", "fix the YAML syntax on that line", file=file, line=line
        ) from None
    doc = YamlDoc(file=file, data=value)
    if node is not None:
        _index(node, (), doc)
    return doc


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
            doc.lines[(*path, key)] = line
            _index(value_node, (*path, key), doc)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index(item, (*path, i), doc)


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(data: Any) -> str:
    """Deterministic YAML: sorted keys, block style, no aliases."""
    return yaml.dump(
        data, Dumper=_NoAliasDumper, sort_keys=True, default_flow_style=False, allow_unicode=True
    )
