"""ArduPilot parameter metadata (``apm.pdef.json`` from ArduPilot/ParameterRepository).

One file per vehicle and firmware minor version. Gives each value its meaning:
display name, units, range, enum labels, bitmask bits, and the Calibration /
ReadOnly / RebootRequired flags.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from paramdiff.errors import InputError
from paramdiff.model.values import format_value

T = TypeVar("T")


def is_flag_set(raw: Mapping[str, Any], flag: str) -> bool:
    """A metadata flag (``Calibration``, ``ReadOnly``, ``RebootRequired``, ...) is set."""
    return str(raw.get(flag, "")).lower() in ("1", "true")


def summarize(raw: Mapping[str, Any]) -> tuple[str, str | None]:
    """(display name, units) of a parameter's entry: what every table row reads. Units are None
    when the entry has values or bits to name (its label needs its label tables)."""
    plain = not raw.get("Values") and not raw.get("Bitmask")
    return str(raw.get("DisplayName", "")), str(raw.get("Units", "")) if plain else None


def _range(raw: Mapping[str, Any]) -> tuple[float, float] | None:
    r = raw.get("Range")
    if not isinstance(r, dict):
        return None
    try:
        return float(r["low"]), float(r["high"])
    except (KeyError, ValueError, TypeError):
        return None


def _values(raw: Mapping[str, Any]) -> dict[float, str]:
    out = {}
    for k, v in (raw.get("Values") or {}).items():
        try:
            out[float(k)] = str(v)
        except ValueError:
            continue
    return out


def _bitmask(raw: Mapping[str, Any]) -> dict[int, str]:
    out = {}
    for k, v in (raw.get("Bitmask") or {}).items():
        try:
            out[int(k)] = str(v)
        except ValueError:
            continue
    return out


def label_tables_of(raw: Mapping[str, Any]) -> LabelTables | None:
    """What ``label_of`` reads of a parameter's entry, or None when its Values or Bitmask is
    not an object (``ParamMeta`` then reads the entry as it always did)."""
    if not all(isinstance(raw.get(k) or {}, dict) for k in ("Values", "Bitmask")):
        return None
    return LabelTables(_values(raw), _bitmask(raw), str(raw.get("Units", "")))


class LabelTables(NamedTuple):
    """A parameter's enum values, bits and units, as ParamMeta reads them from its entry."""

    values: dict[float, str]
    bitmask: dict[int, str]
    units: str


def label_of(meta: ParamMeta | LabelTables, value: float) -> str:
    """``value`` labelled by ``meta``: ``74 (ThrottleRight)``, ``3 (Barometer, Compass)``,
    ``3.5 m``, or the number."""
    text = format_value(value)
    values = meta.values
    if values:
        name = values.get(value)
        return f"{text} ({name})" if name else f"{text} (not in enum)"
    bits = meta.bitmask
    if bits and value == int(value) and value >= 0:
        set_bits = [b for b in range(64) if int(value) >> b & 1]
        names = [bits.get(b, f"bit {b}?") for b in set_bits]
        return f"{text} ({', '.join(names) if names else 'none'})"
    return f"{text} {meta.units}".strip() if meta.units else text


@dataclass(eq=False)  # an entry's view, made once per name per run (Metadata.get)
class ParamMeta:
    """One parameter's entry in apm.pdef.json."""

    name: str
    raw: dict[str, Any]

    # one ParamMeta per name per run (Metadata.get): a table reads these often
    @functools.cached_property
    def range(self) -> tuple[float, float] | None:
        return _range(self.raw)

    @functools.cached_property
    def values(self) -> dict[float, str]:
        return _values(self.raw)

    @functools.cached_property
    def bitmask(self) -> dict[int, str]:
        return _bitmask(self.raw)

    @property
    def display_name(self) -> str:
        return str(self.raw.get("DisplayName", ""))

    @property
    def units(self) -> str:
        return str(self.raw.get("Units", ""))

    def flag(self, name: str) -> bool:
        return is_flag_set(self.raw, name)

    @property
    def read_only(self) -> bool:
        return self.flag("ReadOnly")

    def label(self, value: float) -> str:
        """``74 (ThrottleRight)``, ``3 (bits: Barometer, Compass)``, or the number."""
        return label_of(self, value)

    def problems(self, value: float) -> list[str]:
        """What is wrong with ``value`` for this parameter, per the metadata."""
        return problems_of(Limits(self.values, self.bitmask, self.range), value)


class Limits(NamedTuple):
    """What ``problems_of`` reads of a parameter's entry: its enum values, bits and range."""

    values: dict[float, str]
    bitmask: dict[int, str]
    range: tuple[float, float] | None


def problems_of(limits: Limits, value: float) -> list[str]:
    """What is wrong with ``value`` for a parameter of these ``limits``."""
    out = []
    values, bits, rng = limits
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


class Metadata:
    """A firmware's parameter metadata (apm.pdef.json), looked up by name."""

    __slots__ = (
        "_flagged",
        "_limits",
        "_made",
        "_summary",
        "_tables",
        "file",
        "firmware",
        "params",
    )
    file: str
    firmware: str  # e.g. "4.7"
    # name -> the file's entry; a read-only mapping (fetch/parsed.py decodes each entry of
    # a cached parse on first lookup)
    params: Mapping[str, dict[str, Any]]

    def __init__(self, file: str, firmware: str, params: Mapping[str, dict[str, Any]]) -> None:
        self.file = file
        self.firmware = firmware
        self.params = params
        self._made: dict[str, ParamMeta | None] = {}
        self._flagged: dict[str, frozenset[str]] = {}
        # A cached parse keeps every name's summary beside its names (nothing to decode), and
        # each distinct label table once (fetch/parsed.py): a label decodes no entry.
        self._summary: Callable[[str], tuple[str, str | None] | None] = (
            getattr(params, "summary", None) or self._summary_of_entry
        )
        self._tables: Callable[[str], LabelTables | None] | None = getattr(
            params, "label_tables", None
        )
        # ... and each name's range: validating a file decodes no entry either.
        self._limits: Callable[[str], Limits | None] | None = getattr(params, "limits", None)

    def _summary_of_entry(self, name: str) -> tuple[str, str | None] | None:
        raw = self.params.get(name)
        return summarize(raw) if raw is not None else None

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

    def bits_of(self, name: str) -> ParamMeta | LabelTables | None:
        """What a rename's conversion reads of ``name`` (its ``bitmask``): its label tables when
        the cached parse has them, so its entry stays unread; else its ParamMeta."""
        summary = self._summary(name)
        if summary is not None and summary[1] is not None:  # no Values, no Bitmask
            return LabelTables({}, {}, summary[1])
        tables = self._tables(name) if summary is not None and self._tables else None
        return tables if tables is not None else self.get(name)

    def problems(self, name: str, value: float) -> list[str] | None:
        """``ParamMeta.problems`` of ``name`` for ``value``, None when ``name`` is not here:
        from the cached parse's label tables and ranges when it has them (validating the
        ~500 values of a derived file decoded ~500 entries, ~4 ms)."""
        limits = self._limits(name) if self._limits is not None else None
        if limits is not None:
            return problems_of(limits, value)
        meta = self.get(name)
        return meta.problems(value) if meta is not None else None

    def read_only(self, name: str) -> bool:
        """``ParamMeta.read_only`` of ``name``, from the flag index (see ``flagged``)."""
        return name in self.flagged("ReadOnly")

    def display_name(self, name: str) -> str | None:
        """``name``'s DisplayName ("" when the entry has none), None when ``name`` is not here."""
        summary = self._summary(name)
        return summary[0] if summary is not None else None

    def label(self, name: str, value: float) -> str:
        """``value`` as ``ParamMeta.label`` writes it, from the summary (a number and units:
        most of a table's ~1,400 values) or the label tables when the cached parse has them."""
        summary = self._summary(name)
        if summary is not None and (units := summary[1]) is not None:
            text = format_value(value)
            return f"{text} {units}".strip() if units else text
        tables = self._tables(name) if summary is not None and self._tables else None
        if tables is not None:
            return label_of(tables, value)
        meta = self.get(name)
        return meta.label(value) if meta else format_value(value)


def parse_pdef(data: bytes, file: str, firmware: str) -> Metadata:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # or nested too deep
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
