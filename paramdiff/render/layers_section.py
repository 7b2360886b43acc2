"""The SITL layer stack as the report's markdown section (`paramdiff layers` prints it as a
text table: layers_table.py)."""

from __future__ import annotations

from collections.abc import Iterator

from paramdiff.comparison.sitl_layers import Flag, Layers
from paramdiff.derive.derived import Derived
from paramdiff.model.metadata import Metadata


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
