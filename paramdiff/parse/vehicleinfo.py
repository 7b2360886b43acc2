"""sim_vehicle.py's frames as its pinned source chooses them (data/launch/vehicleinfo.json).

The data was read from ArduPilot's Tools/autotest/pysim/vehicleinfo.py and sim_vehicle.py at
the commit the file records (``SOURCE``); ``options_for_frame`` below follows
VehicleInfo.options_for_frame at that commit.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from paramdiff.errors import UsageError

DATA = Path(__file__).resolve().parent.parent / "data" / "launch" / "vehicleinfo.json"


@cache
def _data() -> dict[str, Any]:
    return dict(json.loads(DATA.read_text("utf-8")))


def source() -> str:
    """``repo@commit`` the frame table was read from."""
    src = _data()["_source"]
    return f"{src['repo']}@{src['commit']}"


def commit() -> str:
    return str(_data()["_source"]["commit"])


class FrameInfo(NamedTuple):
    """What vehicleinfo.py says about one frame of one vehicle."""

    vehicle: str  # the sim_vehicle.py vehicle name: Rover, ArduSub, ArduCopter
    frame: str  # as given with -f (or the vehicle's default_frame)
    defaults: tuple[str, ...]  # repository paths, in load order
    model: str  # the SITL --model it passes (the frame name unless the entry says otherwise)
    external: bool  # vehicleinfo's "external" flag (the pinned sim_vehicle.py ignores it)
    known: bool  # False: vehicleinfo has no entry; sim_vehicle.py warns and loads no defaults
    matched: str  # the frames entry used ("" when none)


def vehicle_name(given: str) -> str:
    """sim_vehicle.py's -v: one of its choices (case-sensitive: the vehicle names, the aliases
    and the few lower-case forms it lists) → the vehicle."""
    data = _data()
    lower = {k: data["aliases"][k.capitalize()] for k in data["lower_case_choices"]
             if k.capitalize() in data["aliases"]}  # fmt: skip
    aliases = {**data["aliases"], **lower}
    choices = {*data["vehicles"], *aliases, *data["lower_case_choices"]}
    if given not in choices:
        near = next((c for c in sorted(choices) if c.lower() == given.lower()), None)
        if near is not None:
            raise UsageError(
                f"-v {given}: sim_vehicle.py's -v choices are case-sensitive, and {given} is "
                "not one of them (sim_vehicle.py stops: invalid choice)",
                f"use -v {near}",
            )
    name = aliases.get(given, given)
    if name not in data["vehicles"]:
        raise UsageError(
            f"-v {given}: paramdiff knows sim_vehicle.py's frames for "
            f"{', '.join(data['vehicles'])} only",
            "use -v Rover, -v ArduSub or -v ArduCopter",
        )
    return str(name)


def binary_vehicle(binary: str) -> str:
    """The vehicle a SITL binary (path or name) runs."""
    base = binary.rsplit("/", 1)[-1]
    for name, v in _data()["vehicles"].items():
        if base == v["binary"]:
            return str(name)
    known = ", ".join(v["binary"] for v in _data()["vehicles"].values())
    raise UsageError(
        f"{binary!r} is not a SITL binary paramdiff knows", f"start the command with {known}"
    )


def default_frame(vehicle: str) -> str:
    return str(_data()["vehicles"][vehicle]["default_frame"])


def options_for_frame(vehicle: str, frame: str, model: str | None) -> FrameInfo:
    """VehicleInfo.options_for_frame: the frame's entry, else the first prefix entry the
    frame starts with, else none (sim_vehicle.py prints "WARNING: no config for frame" and
    loads no defaults); the model is the entry's, else the frame name; --model overrides."""
    data = _data()
    frames = data["vehicles"][vehicle]["frames"]
    entry: dict[str, Any] | None = None
    matched = ""
    if frame in frames:
        entry, matched = frames[frame], frame
    else:
        for prefix in data["prefix_frames"]:
            if frame.startswith(prefix):
                if prefix not in frames:
                    # vehicleinfo.py indexes frames[prefix]: a KeyError, sim_vehicle.py stops
                    raise UsageError(
                        f"-f {frame}: sim_vehicle.py ({source()}) looks up frame '{prefix}' for "
                        f"it, which {vehicle} does not have, and stops with a KeyError",
                        f"use one of {vehicle}'s frames: {', '.join(frames)}",
                    )
                entry, matched = frames[prefix], prefix
                break
        if entry is None and frame.endswith("-heli") and "heli" in frames:
            entry, matched = frames["heli"], "heli"
    info = entry or {}
    return FrameInfo(
        vehicle=vehicle,
        frame=frame,
        defaults=tuple(f"{data['autotest_dir']}/{p}" for p in (info.get("defaults") or ())),
        model=model if model is not None else str(info.get("model", frame)),
        external=bool(info.get("external", False)),
        known=entry is not None,
        matched=matched,
    )
