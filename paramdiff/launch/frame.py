"""The frame a derived file states, against what a launch really runs.

Every derived file carries its vehicle's frame (FRAME_CLASS/FRAME_TYPE for Copter and Rover,
FRAME_CONFIG for Sub, the skid outputs SERVO1/3_FUNCTION for a skid Rover), so any launch that
loads it last flies the same vehicle. Two ways a launch still runs another frame: it does not
load the derived file at all, or a file loaded after it (a frame defaults file, a local file)
sets a frame parameter to another value and wins (AP_Param: the last defaults file wins).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model.values import format_value
from ..parse.launch import SIM_VEHICLE, Launch

if TYPE_CHECKING:
    from ..derive.layers import Layers
    from .verify import Layer

FRAME_PARAMS = {
    "ArduCopter": ("FRAME_CLASS", "FRAME_TYPE"),
    "ArduSub": ("FRAME_CONFIG",),
    "Rover": ("FRAME_CLASS", "FRAME_TYPE", "SERVO1_FUNCTION", "SERVO3_FUNCTION"),
}
NOT_LOADED = "the profile's derived file is not loaded"


def load_fix(launch: Launch, derived_path: str) -> str:
    """How this launch loads the derived file last."""
    if launch.form == SIM_VEHICLE:
        return f"add --add-param-file={derived_path} to the launch (it loads after -f's files)"
    listed = ",".join([*(f.path for f in launch.files if f.path != derived_path), derived_path])
    return f"put {derived_path} last in --defaults: --defaults {listed}"


def check(
    launch: Launch, layers: Sequence[Layer], stacked: Layers, derived_path: str
) -> list[tuple[str, str]]:
    """(finding, fix): the derived file missing from the launch, or each frame parameter of it
    a later file of the launch changes (naming the file that wins)."""
    ours = [ly for ly in layers if ly.kind == "derived"]
    if not ours:
        loaded = ", ".join(ly.path for ly in layers) or "no defaults file"
        return [
            (
                f"{NOT_LOADED}: the launch loads {loaded}, not {derived_path}, so it runs "
                "none of the profile's values (its frame, outputs and tuning)",
                load_fix(launch, derived_path),
            )
        ]
    derived = ours[-1].source.file.params
    pinned = {ly.source.role: ly for ly in layers if ly.kind == "pinned"}
    out = []
    for name in FRAME_PARAMS.get(launch.vehicle, ()):
        mine, won = derived.get(name), stacked.effective.get(name)
        # A local file loaded after ours is the user's own override, not a frame default.
        if mine is None or won is None or won.param.value == mine.value:
            continue
        winner = pinned.get(won.layer)
        if winner is None:
            continue
        line = f" (line {mine.line})" if mine.line > 0 else ""
        out.append(
            (
                f"{name}: {derived_path} sets {format_value(mine.value)}{line}, but "
                f"{winner.path} ({winner.origin}) loads after it and sets "
                f"{format_value(won.param.value)}, which wins: the launch runs another frame",
                load_fix(launch, derived_path),
            )
        )
    return out
