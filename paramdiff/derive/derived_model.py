"""The model side of a derived vehicle: the pinned Gazebo model with its ArduPilotPlugin
``<control>`` blocks and gz-sim Thruster limits rewritten from the profile's sources.

Edits are made on the pinned bytes, never by re-serialising the XML: each changed element
keeps its place and indentation and gets ``<!-- paramdiff: <source> (was <old>) -->`` after it;
everything else stays byte for byte. An element whose value is already right is left alone,
so a model whose channels are right is rewritten only where its thrust differs, and deriving
from the derived model changes nothing.

What each value is (ArduPilotPlugin: cmd = multiplier · ((pwm − servo_min)/(servo_max −
servo_min) + offset), parse/sdf.py's Channel.command; gz-sim's Thruster with
``velocity_control`` 0 takes the command as a force in newtons, clamped to
``min_thrust_cmd``..``max_thrust_cmd`` and zero below ``deadband``, parse/sdf_thruster.py):

- channel N's ``jointName`` and ``cmd_topic``: the thruster on the side SERVO(N+1)_FUNCTION
  names (73 ThrottleLeft port, 74 ThrottleRight starboard), by the model's geometry;
- ``servo_min``/``servo_max``: SERVO(N+1)_MIN/MAX;
- ``offset``: the command is zero at SERVO(N+1)_TRIM;
- ``multiplier``: the larger bollard thrust over the longer side of TRIM, negative when
  SERVO(N+1)_REVERSED, so the command spans reverse..forward thrust before the clamps;
- the Thruster's ``max_thrust_cmd``/``min_thrust_cmd``: forward and reverse bollard thrust;
  ``deadband``: the force the command reaches at the edge of the data's zero-thrust band.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from paramdiff.errors import InputError
from paramdiff.parse.sdf_paths import Resolver
from paramdiff.parse.sdf_thruster import read_actuation
from paramdiff.simulation.actuators import place
from paramdiff.simulation.geometry import read_model
from paramdiff.simulation.thrust_curve import ThrustSummary
from paramdiff.simulation.thrusters import THROTTLE_LEFT, THROTTLE_RIGHT

_COMMENT = re.compile(rb"<!--.*?-->", re.DOTALL)
_PLUGIN = re.compile(rb"<plugin\b[^>]*>.*?</plugin>", re.DOTALL)
_CONTROL = re.compile(
    rb"<control\b[^>]*\bchannel\s*=\s*[\"'](\d+)[\"'][^>]*>.*?</control>", re.DOTALL
)


class Change(NamedTuple):
    """One element rewritten: where, what it was, what it is, and why."""

    where: str  # "channel 0" or "Thruster motor_port_joint"
    element: str
    old: str | None  # None: the element was not set (gz-sim's default)
    new: str
    source: str


class ChannelPlan(NamedTuple):
    """What one control channel must say."""

    channel: int
    joint: str
    cmd_topic: str
    servo_min: float
    servo_max: float
    offset: float
    multiplier: float
    sources: dict[str, str]  # element -> what it comes from


class ThrusterPlan(NamedTuple):
    joint: str
    max_thrust_cmd: float
    min_thrust_cmd: float
    deadband: float
    source: str


def number(value: float) -> str:
    """A value as the model writes it: at most 6 significant digits, no trailing zeros."""
    text = f"{value:.6g}"
    return "0" if text == "-0" else text


def channel_plan(
    channel: int,
    joint: str,
    cmd_topic: str,
    params: dict[str, float],
    summary: ThrustSummary,
    function_source: str,
) -> ChannelPlan:
    """Channel ``channel``'s control from SERVO(channel+1)_* and the thrust data."""
    n = channel + 1
    low, high = params.get(f"SERVO{n}_MIN", 1100), params.get(f"SERVO{n}_MAX", 1900)
    trim = params.get(f"SERVO{n}_TRIM", (low + high) / 2)
    if not low < trim < high:
        raise InputError(
            f"SERVO{n}_TRIM {trim:g} is not between SERVO{n}_MIN {low:g} and MAX {high:g}",
            "fix the servo range in the overlay before deriving the model",
        )
    span = high - low
    offset = -(trim - low) / span
    # The command reaches the larger bollard thrust at the end of the longer side of TRIM;
    # the Thruster's clamps then hold each direction to its own bollard thrust.
    longer = max(high - trim, trim - low) / span
    multiplier = max(summary.forward_n, -summary.reverse_n) / longer
    if params.get(f"SERVO{n}_REVERSED", 0):
        multiplier = -multiplier
    at = f"{summary.forward_n:.2f} / {summary.reverse_n:.2f} N at {summary.voltage:g} V"
    return ChannelPlan(
        channel=channel,
        joint=joint,
        cmd_topic=cmd_topic,
        servo_min=low,
        servo_max=high,
        offset=offset,
        multiplier=multiplier,
        sources={
            "jointName": function_source,
            "cmd_topic": function_source,
            "servo_min": f"SERVO{n}_MIN {low:g}",
            "servo_max": f"SERVO{n}_MAX {high:g}",
            "offset": f"zero command at SERVO{n}_TRIM {trim:g}",
            "multiplier": f"thrust data {at}" + (f", SERVO{n}_REVERSED" if multiplier < 0 else ""),
        },
    )


def thruster_plan(
    joint: str, multiplier: float, span: float, summary: ThrustSummary
) -> ThrusterPlan:
    deadband = abs(multiplier) * summary.deadband_half / span
    return ThrusterPlan(
        joint=joint,
        max_thrust_cmd=summary.forward_n,
        min_thrust_cmd=summary.reverse_n,
        deadband=deadband,
        source=f"thrust data at {summary.voltage:g} V ({summary.how}; zero thrust "
        f"{summary.deadband[0]:g}–{summary.deadband[1]:g} µs)",
    )


def _masked(data: bytes) -> bytes:
    """``data`` with its comments blanked (same length), so a tag inside one is never edited."""
    return _COMMENT.sub(lambda m: b" " * len(m.group(0)), data)


class _Edit(NamedTuple):
    start: int
    end: int
    text: bytes


def _element(masked: bytes, start: int, end: int, tag: str) -> re.Match[bytes] | None:
    pattern = re.compile(rb"<" + tag.encode() + rb">([^<]*)</" + tag.encode() + rb">")
    return pattern.search(masked, start, end)


def _same(old: str, new: str) -> bool:
    try:
        return abs(float(old) - float(new)) <= 1e-6 * max(1.0, abs(float(new)))
    except ValueError:
        return old.strip() == new.strip()


def _set(
    data: bytes, masked: bytes, span: tuple[int, int], tag: str, new: str, source: str, where: str
) -> Iterator[tuple[_Edit, Change]]:
    found = _element(masked, span[0], span[1], tag)
    if found is None:
        yield from _insert(data, masked, span, tag, new, source, where)
        return
    old = data[found.start(1) : found.end(1)].decode()
    if _same(old, new):
        return
    # "--" may not stand inside an XML comment: an old value holding it is shown with "- -"
    was = old.strip().replace("--", "- -")
    text = f"<{tag}>{new}</{tag}> <!-- paramdiff: {source} (was {was}) -->"
    yield (
        _Edit(found.start(), found.end(), text.encode()),
        Change(where, tag, old.strip(), new, source),
    )


def _insert(
    data: bytes, masked: bytes, span: tuple[int, int], tag: str, new: str, source: str, where: str
) -> Iterator[tuple[_Edit, Change]]:
    """A new element after the block's opening tag, on its own line, indented like the
    block's first child."""
    opening = masked.index(b">", span[0]) + 1
    child = re.compile(rb"\n([ \t]*)<").search(masked, opening, span[1])
    indent = child.group(1).decode() if child else "  "
    text = f"\n{indent}<{tag}>{new}</{tag}> <!-- paramdiff: {source} (was unset) -->"
    yield _Edit(opening, opening, text.encode()), Change(where, tag, None, new, source)


def rewrite(
    data: bytes, file: str, channels: list[ChannelPlan], thrusters: list[ThrusterPlan]
) -> tuple[bytes, list[Change]]:
    """The model's bytes with each plan's elements set; the changes, in the file's order."""
    masked = _masked(data)
    edits: list[tuple[_Edit, Change]] = []
    plugins = [m.span() for m in _PLUGIN.finditer(masked)]
    ardupilot = [
        s for s in plugins if b"ArduPilotPlugin" in masked[s[0] : masked.index(b">", s[0])]
    ]
    controls = {
        int(m.group(1)): m.span()
        for start, end in ardupilot
        for m in _CONTROL.finditer(masked, start, end)
    }
    for plan in channels:
        if plan.channel not in controls:
            raise InputError(
                f'the model has no ArduPilotPlugin <control channel="{plan.channel}">, which '
                f"SERVO{plan.channel + 1}_FUNCTION needs",
                "add the control block to the model (paramdiff rewrites, never adds, channels)",
                file=file,
            )
        where = f"channel {plan.channel}"
        span = controls[plan.channel]
        for tag, value in (
            ("jointName", plan.joint),
            ("multiplier", number(plan.multiplier)),
            ("offset", number(plan.offset)),
            ("servo_min", number(plan.servo_min)),
            ("servo_max", number(plan.servo_max)),
            ("cmd_topic", plan.cmd_topic),
        ):
            edits += _set(data, masked, span, tag, value, plan.sources[tag], where)
    for thruster in thrusters:
        span = _thruster_span(masked, plugins, thruster.joint, file)
        where = f"Thruster {thruster.joint}"
        for tag, value in (
            ("max_thrust_cmd", number(thruster.max_thrust_cmd)),
            ("min_thrust_cmd", number(thruster.min_thrust_cmd)),
            ("deadband", number(thruster.deadband)),
        ):
            edits += _set(data, masked, span, tag, value, thruster.source, where)
    out = bytearray(data)
    # From the end, so each edit's offsets still hold; at one place (inserted elements) the
    # last first, so they read in the order planned.
    order = sorted(range(len(edits)), key=lambda i: (edits[i][0].start, i), reverse=True)
    for edit, _ in (edits[i] for i in order):
        out[edit.start : edit.end] = edit.text
    return bytes(out), [c for e, c in sorted(edits, key=lambda e: e[0].start)]


def _thruster_span(
    masked: bytes, plugins: list[tuple[int, int]], joint: str, file: str
) -> tuple[int, int]:
    for start, end in plugins:
        head = masked[start : masked.index(b">", start)].lower()
        if b"thruster" not in head:
            continue
        name = _element(masked, start, end, "joint_name")
        if name is not None and name.group(1).strip().decode() == joint:
            return start, end
    raise InputError(
        f"the model has no gz-sim Thruster system for joint {joint!r}",
        "add a Thruster plugin for the joint, or name the joint the channel drives",
        file=file,
    )


class DerivedModel(NamedTuple):
    """The model side: its bytes, what changed, and the thrust data it was set from."""

    data: bytes
    changes: list[Change]
    summary: ThrustSummary
    pinned: str  # the pinned model's label
    pinned_data: bytes  # what it was made from (the report's "old" column)


def derive_model(
    data: bytes,
    file: str,
    resolve: Resolver,
    params: dict[str, float],
    summary: ThrustSummary,
    pinned: str = "",
) -> DerivedModel:
    """The pinned model with each skid-steer output's channel rewritten: channel N drives the
    thruster on the side SERVO(N+1)_FUNCTION names, found by the model's geometry (a
    thruster at FRD y < 0 is the port one, simulation/thrusters.py)."""
    channels, tree, to_frd = read_model(data, file, resolve)
    thrusters = read_actuation(data, file).thrusters
    topics = {t.joint: "/" + t.topic for t in thrusters}
    sides: dict[int, str] = {}
    if channels:
        # Each Thruster's joint placed as if a channel drove it: whichever channel drives
        # it now, its side is where the geometry puts it.
        probes = [channels[0]._replace(channel=i, joint=t.joint) for i, t in enumerate(thrusters)]
        placed, _ = place(probes, tree, to_frd)
        for act in placed.values():
            sides[THROTTLE_LEFT if act.frd_position[1] < 0 else THROTTLE_RIGHT] = act.joint.name
    plans: list[ChannelPlan] = []
    for n in range(1, 33):
        function = params.get(f"SERVO{n}_FUNCTION")
        if function is None or function not in (THROTTLE_LEFT, THROTTLE_RIGHT):
            continue
        side = "port" if function == THROTTLE_LEFT else "starboard"
        joint = sides.get(int(function))
        if joint is None or joint not in topics:
            raise InputError(
                f"SERVO{n}_FUNCTION {function:g} needs a {side} thruster, and the model has "
                "none a channel drives through a gz-sim Thruster",
                "derive the model side only for a model with both thrusters",
                file=file,
            )
        name = "ThrottleLeft" if function == THROTTLE_LEFT else "ThrottleRight"
        source = f"SERVO{n}_FUNCTION {function:g} ({name}) is the {side} thruster"
        plans.append(channel_plan(n - 1, joint, topics[joint], params, summary, source))
    limits = [
        thruster_plan(p.joint, p.multiplier, p.servo_max - p.servo_min, summary) for p in plans
    ]
    out, changes = rewrite(data, file, plans, limits)
    return DerivedModel(out, changes, summary, pinned, data)
