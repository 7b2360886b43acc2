"""The SITL layer stack as a table (`paramdiff layers`) and as report markdown."""

from __future__ import annotations

from collections.abc import Iterator

from tabulate import tabulate

from paramdiff.comparison.sitl_layers import Flag, Layers
from paramdiff.derive.derived import Derived
from paramdiff.model.metadata import Metadata
from paramdiff.model.values import format_value


def firmware_defaults(layers: Layers, metadata: Metadata) -> str:
    """The bottom layer no file lists: what none of the loaded files sets runs the firmware's
    default (sim_vehicle.py -w wipes stored parameters first)."""
    # (a set difference in C: a generator over ~3,500 names per metadata cost ~0.2 ms)
    unset = len(set(metadata.params).difference(layers.effective))
    from_frame = sum(1 for e in layers.effective.values() if e.layer in layers.frame_roles)
    return (
        f"Underneath, the firmware's own defaults (`-w` wipes stored parameters): {unset} of "
        f"the {len(metadata.params)} parameters in {metadata.file} are set by none of these "
        f"files and run their default; {from_frame} run a frame file's value and "
        f"{len(layers.effective) - from_frame} the derived file's."
    )


def layer_md(
    layers: Layers,
    derived: Derived,
    flags: list[Flag],
    accepted: list[Flag],
    metadata: Metadata | None = None,
) -> Iterator[str]:
    order = " → ".join(s.file.file.rsplit("/", 1)[-1] for s in layers.layers)
    vehicle = derived.vehicle or "<vehicle>"
    yield (
        f"{vehicle}'s frame `{layers.frame}` (sim_vehicle.py -f) stacked under the derived file "
        f"loads {order}; the last file wins (each declared launch has its own stack under "
        "Launches)."
    )
    yield ""
    if metadata is not None:
        yield firmware_defaults(layers, metadata)
        yield ""
    survivors = layers.from_frame()
    yield (
        f"{len(survivors)} parameters keep a frame default because the derived file does not "
        f"set them; {len(flags)} of those differ from the hardware in a category the derived "
        "file carries (a value nobody chose):"
    )
    yield ""
    for f in flags:
        yield f"- **{f}**"
    if not flags:
        yield "- none"
    yield ""
    if accepted:
        yield (
            f"{len(accepted)} more differ from the hardware in categories left out on purpose "
            "(SITL's own values are the right ones there): "
            + ", ".join(f"`{f.effective.name}` {f.effective.param.text}" for f in accepted)
        )
        yield ""
    overridden = [
        e for e in layers.effective.values() if e.overridden and e.layer not in layers.frame_roles
    ]
    if overridden:
        yield (
            f"The derived file overrides {len(overridden)} frame defaults, e.g. "
            + ", ".join(
                f"`{e.name}` {e.overridden[-1][1].text} → {e.param.text}" for e in overridden[:6]
            )
            + "."
        )


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
