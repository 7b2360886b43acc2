"""ArduPilot parameter metadata (``apm.pdef.json`` from ArduPilot/ParameterRepository).

One file per vehicle and firmware minor version. Gives each value its meaning:
display name, units, range, enum labels, bitmask bits, and the Calibration /
ReadOnly / RebootRequired flags.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..errors import InputError
from .values import format_value


def is_flag_set(raw: Mapping[str, Any], flag: str) -> bool:
    """A metadata flag (``Calibration``, ``ReadOnly``, ``RebootRequired``, ...) is set."""
    return str(raw.get(flag, "")).lower() in ("1", "true")


@dataclass(frozen=True)
class ParamMeta:
    """One parameter's entry in apm.pdef.json."""

    name: str
    raw: dict[str, Any]

    @property
    def display_name(self) -> str:
        return str(self.raw.get("DisplayName", ""))

    @property
    def units(self) -> str:
        return str(self.raw.get("Units", ""))

    @cached_property  # one ParamMeta per name per run (Metadata.get): a table reads it often
    def range(self) -> tuple[float, float] | None:
        r = self.raw.get("Range")
        if not isinstance(r, dict):
            return None
        try:
            return float(r["low"]), float(r["high"])
        except (KeyError, ValueError, TypeError):
            return None

    @cached_property
    def values(self) -> dict[float, str]:
        out = {}
        for k, v in (self.raw.get("Values") or {}).items():
            try:
                out[float(k)] = str(v)
            except ValueError:
                continue
        return out

    @cached_property
    def bitmask(self) -> dict[int, str]:
        out = {}
        for k, v in (self.raw.get("Bitmask") or {}).items():
            try:
                out[int(k)] = str(v)
            except ValueError:
                continue
        return out

    def flag(self, name: str) -> bool:
        return is_flag_set(self.raw, name)

    @property
    def read_only(self) -> bool:
        return self.flag("ReadOnly")

    def label(self, value: float) -> str:
        """``74 (ThrottleRight)``, ``3 (bits: Barometer, Compass)``, or the number."""
        text = format_value(value)
        values = self.values
        if values:
            name = values.get(value)
            return f"{text} ({name})" if name else f"{text} (not in enum)"
        bits = self.bitmask
        if bits and value == int(value) and value >= 0:
            set_bits = [b for b in range(64) if int(value) >> b & 1]
            names = [bits.get(b, f"bit {b}?") for b in set_bits]
            return f"{text} ({', '.join(names) if names else 'none'})"
        return f"{text} {self.units}".strip() if self.units else text

    def problems(self, value: float) -> list[str]:
        """What is wrong with ``value`` for this parameter, per the metadata."""
        out = []
        values = self.values
        bits = self.bitmask
        rng = self.range
        # @Values beside a @Range are presets (e.g. ATC_ACC_P_MAX: Slow, Medium, Fast); the
        # firmware takes any value in the range.
        in_range = rng is not None and rng[0] <= value <= rng[1]
        if values and value not in values and not in_range:
            out.append(
                f"{format_value(value)} is not one of its values "
                f"({', '.join(f'{format_value(k)}={v}' for k, v in sorted(values.items())[:12])}"
                f"{', …' if len(values) > 12 else ''})"
            )
        elif bits:
            if value != int(value) or value < 0:
                out.append(f"{format_value(value)} is not a bitmask")
            else:
                undefined = [b for b in range(64) if int(value) >> b & 1 and b not in bits]
                if undefined:
                    out.append(f"bits {undefined} of {format_value(value)} are not defined")
        if rng and not values and not (rng[0] <= value <= rng[1]):
            out.append(
                f"{format_value(value)} is outside its range "
                f"{format_value(rng[0])}..{format_value(rng[1])}"
            )
        return out


@dataclass
class Metadata:
    """A firmware's parameter metadata (apm.pdef.json), looked up by name."""

    file: str
    firmware: str  # e.g. "4.7"
    # name -> the file's entry; a read-only mapping (upstream/parsed.py decodes each entry of
    # a cached parse on first lookup)
    params: Mapping[str, dict[str, Any]]

    _made: dict[str, ParamMeta | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _flagged: dict[str, frozenset[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def get(self, name: str) -> ParamMeta | None:
        if name in self._made:
            return self._made[name]
        raw = self.params.get(name)
        made = ParamMeta(name, raw) if raw is not None else None
        self._made[name] = made
        return made

    def flagged(self, flag: str) -> frozenset[str]:
        """The names whose ``flag`` is set (``ParamMeta.flag``), from the cached parse's index
        when there is one (so classifying a name decodes nothing)."""
        if flag not in self._flagged:
            index = getattr(self.params, "flagged", None)
            self._flagged[flag] = (
                index(flag)
                if index is not None
                else frozenset(n for n, raw in self.params.items() if is_flag_set(raw, flag))
            )
        return self._flagged[flag]

    def __contains__(self, name: str) -> bool:
        return name in self.params

    def label(self, name: str, value: float) -> str:
        meta = self.get(name)
        return meta.label(value) if meta else format_value(value)


def parse_pdef(data: bytes, file: str, firmware: str) -> Metadata:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", 1)
        raise InputError(
            "metadata is not valid JSON", "fetch apm.pdef.json again", file=file, line=line
        ) from None
    if not isinstance(doc, dict):
        raise InputError("metadata is not a JSON object", "fetch apm.pdef.json again", file=file)
    params: dict[str, dict[str, Any]] = {}
    for group, members in doc.items():
        if group == "json" or not isinstance(members, dict):
            continue
        for name, raw in members.items():
            if isinstance(raw, dict):
                params[name] = raw
    if not params:
        raise InputError("metadata lists no parameters", "fetch apm.pdef.json again", file=file)
    return Metadata(file=file, firmware=firmware, params=params)


def firmware_of(version_header: str | None) -> str | None:
    """``4.7.0-BETA`` -> ``4.7``."""
    if not version_header:
        return None
    parts = version_header.strip().split(".")
    if len(parts) >= 2 and parts[0].isdigit() and parts[1].split("-")[0].isdigit():
        return f"{parts[0]}.{parts[1].split('-')[0]}"
    return None
