"""The SITL layer stack as a text table (`paramdiff layers`).

Apart from the report's section (layers_section.py) because tabulate imports
importlib.metadata for its version: ~11 ms of the imports of `check` and `report`
(wall, median of 21 runs: 99.5 against 110.5 ms), which never print this table.
"""

from __future__ import annotations

from collections.abc import Iterator

from tabulate import tabulate

from paramdiff.comparison.sitl_layers import Flag, Layers
from paramdiff.model.metadata import Metadata
from paramdiff.model.values import format_value
from paramdiff.render.layers_section import firmware_defaults


def render_layers(
    layers: Layers, flags: list[Flag], metadata: Metadata | None = None
) -> Iterator[str]:

    flagged = {f.effective.name for f in flags}
    rows = []
    for e in layers.effective.values():
        over = "; ".join(
            f"{p.text} @ {p.file.rsplit('/', 1)[-1]}:{p.line}" for _, p in e.overridden
        )
        rows.append(
            [
                e.name,
                format_value(e.param.value),
                f"{e.param.file.rsplit('/', 1)[-1]}:{e.param.line}"
                + (f" ({e.param.note})" if e.param.note else ""),
                over,
                "UNCHOSEN" if e.name in flagged else "",
            ]
        )
    yield f"frame {layers.frame}: " + " → ".join(s.file.file for s in layers.layers)
    if metadata is not None:
        yield firmware_defaults(layers, metadata)
    yield ""
    # Values are already written as ArduPilot stores them (format_value); tabulate's number
    # parsing would re-format them (1043938 -> 1.04394e+06), so it is off.
    yield from tabulate(
        rows,
        headers=["name", "value", "set by", "overrode", "flag"],
        tablefmt="simple",
        disable_numparse=True,
        colalign=("left", "right", "left", "left", "left"),
    ).splitlines()
    yield ""
    yield f"{len(flags)} frame default(s) differ from the hardware and are not set by a later file"
    for f in flags:
        yield f"  {f}"
