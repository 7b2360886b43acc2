"""The frame a derived file states, against what a launch really runs.

Every derived file carries its vehicle's frame (FRAME_CLASS/FRAME_TYPE for Copter and Rover,
FRAME_CONFIG for Sub, the skid outputs SERVO1/3_FUNCTION for a skid Rover), so any launch that
loads it last flies the same vehicle. Two ways a launch still runs another frame: it does not
load the derived file at all, or a file loaded after it (a frame defaults file, a local file)
sets a frame parameter to another value and wins (AP_Param: the last defaults file wins).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from paramdiff.model.source import Source
from paramdiff.model.values import format_value, same_value
from paramdiff.parse.launch import SIM_VEHICLE, Launch

if TYPE_CHECKING:
    from paramdiff.comparison.sitl_layers import Layers


class Layer(Protocol):
    """What this module reads of one file of a launch (verify.Layer has it; verify imports
    this module, so it names only what it uses)."""

    @property
    def path(self) -> str: ...
    @property
    def origin(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def source(self) -> Source: ...


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


def layered_fix(
    launch: Launch,
    layers: Sequence[Layer],
    stacked: Layers,
    derived: Source,
    derived_path: str,
    name: str,
    want: float,
) -> str | None:
    """The fix for a value the launch runs where ``want`` is needed, when the derived file
    already sets ``name`` to ``want`` (its overlay has the delta): the cause is then in the
    launch's layers, so the fix is there too: load the derived file, or drop the file (or its
    line) that loads after it and wins. None when the derived file does not carry ``want``
    (then a delta in the overlay is the fix)."""
    mine = derived.file.params.get(name)
    if mine is None or not same_value(mine.value, want):
        return None
    if not any(ly.kind == "derived" for ly in layers):
        return load_fix(launch, derived_path)
    won = stacked.effective.get(name)
    winner = next((ly for ly in reversed(layers) if won and ly.source.role == won.layer), None)
    if won is None or winner is None or winner.kind == "derived":
        return None
    if winner.kind == "pinned":  # a frame defaults file: the derived file must load after it
        return load_fix(launch, derived_path)
    line = f"line {won.param.line} ({name} {won.param.text}) of " if won.param.line > 0 else ""
    return (
        f"drop {line}{winner.path}, or {winner.path} from the launch: it loads after "
        f"{derived_path} ({name} {mine.text}) and wins"
    )


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


# Copter quad frames by FRAME_TYPE (FRAME_CLASS 1), and the pinned frame defaults file that
# sets each (Tools/autotest/pysim/vehicleinfo.py: -f gazebo-iris loads copter.parm then
# gazebo-iris.parm, which sets FRAME_CLASS 1 / FRAME_TYPE 1; -f quad and -f X load only
# copter.parm, which sets FRAME_TYPE 0).
QUAD_TYPES = {0.0: ("quad +", ""), 1.0: ("quad X", "-f gazebo-iris")}


def model_frame(
    params: dict[str, float],
    findings_with: Callable[[dict[str, float]], frozenset[str]],
    launch: Launch,
    from_layers: Callable[[str, float], str | None],
) -> tuple[str, str, frozenset[str]] | None:
    """(finding, fix, the findings it explains) when some of the Gazebo model's channel
    findings are there only because the launch runs another quad FRAME_TYPE than the model's
    rotors are laid out for: the cause is the frame parameter, so the fix is that parameter
    (or the frame flag that sets it), not per-channel SERVOn_FUNCTION deltas.
    ``findings_with`` re-runs the model check on other parameters; ``from_layers`` is the fix
    when the derived file already carries the value (``layered_fix``): then neither a delta
    nor a flag is, only what the layers do wrong. The flag is offered to sim_vehicle.py
    only: a SITL binary takes no -f."""
    if params.get("FRAME_CLASS") != 1.0:
        return None
    have = params.get("FRAME_TYPE", 0.0)
    now = findings_with(params)
    for want, (name, flag) in QUAD_TYPES.items():
        alt = findings_with({**params, "FRAME_TYPE": want}) if want != have else now
        if not alt < now:  # it must clear some findings and add none
            continue
        running = QUAD_TYPES.get(have, (f"FRAME_TYPE {format_value(have)}", ""))[0]
        offer = flag and launch.form == SIM_VEHICLE
        also = f", or {flag} on the launch (its defaults file sets it)" if offer else ""
        fix = from_layers("FRAME_TYPE", want) or (
            f"FRAME_TYPE {format_value(want)} (a delta in the overlay, so the derived file "
            f"carries it){also}"
        )
        return (
            f"the model's rotors are laid out as a {name} (FRAME_TYPE {format_value(want)}), "
            f"but the launch runs FRAME_TYPE {format_value(have)} ({running}): "
            f"{len(now - alt)} channel finding(s) follow from that",
            fix,
            now - alt,
        )
    return None
