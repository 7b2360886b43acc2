"""The ArduPilotPlugin block of a Gazebo SDF model, read as the parameters it implies.

The plugin turns an output's PWM into a joint command:

    cmd = multiplier * (clamp((pwm - servo_min) / (servo_max - servo_min), 0, 1) + offset)

with ``channel`` 0-based (channel 0 is SERVO1) and defaults servo_min 1000,
servo_max 2000, offset 0, multiplier 1, type VELOCITY. So for output n = channel + 1:

- SERVOn_MIN / SERVOn_MAX are servo_min / servo_max;
- the neutral PWM, where cmd = 0, is ``servo_min - offset * (servo_max - servo_min)``,
  comparable to SERVOn_TRIM;
- reversal exists only as a negative multiplier, comparable to SERVOn_REVERSED;
- SERVOn_FUNCTION follows from the joint the channel drives, through the
  profile's joint-role map.

Comments inside the SDF (like "SERVO1_FUNCTION 73") are not data and are ignored.
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from typing import Any, NamedTuple

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from paramdiff.errors import InputError, quote
from paramdiff.model.params import Diagnostic, Fact, Param, ParamFile
from paramdiff.model.values import format_value, parse_number
from paramdiff.parse.text import TextWords, check_text

DEFAULTS = {"servo_min": 1000.0, "servo_max": 2000.0, "offset": 0.0, "multiplier": 1.0}
DEFAULT_TYPE = "VELOCITY"
MAX_SERVO_CHANNELS = 32  # NUM_SERVO_CHANNELS on boards over 1 MB flash, and in SITL
# Elements of <control> (and of the plugin) that have no parameter equivalent.
CONTROL_FACT_KEYS = (
    "type",
    "cmd_topic",
    "p_gain",
    "i_gain",
    "d_gain",
    "i_max",
    "i_min",
    "cmd_max",
    "cmd_min",
    "controlVelocitySlowdownSim",
    "useForce",
)
PLUGIN_FACT_KEYS = ("gazeboXYZToNED", "modelXYZToAirplaneXForwardZDown", "imuName", "lock_step")


class Channel(NamedTuple):
    """One ``<control>`` of an ArduPilotPlugin, with the plugin's defaults applied."""

    channel: int
    joint: str
    servo_min: float
    servo_max: float
    offset: float
    multiplier: float
    type: str
    file: str
    line: int
    lines: dict[str, int]

    @property
    def output(self) -> int:
        return self.channel + 1

    @property
    def neutral_pwm(self) -> float:
        return self.servo_min - self.offset * (self.servo_max - self.servo_min)

    @property
    def reversed(self) -> bool:
        return self.multiplier < 0

    def command(self, pwm: float) -> float:
        span = self.servo_max - self.servo_min
        return self.multiplier * (min(max((pwm - self.servo_min) / span, 0.0), 1.0) + self.offset)


SDF_WORDS: TextWords = {
    "empty": ("SDF file is empty", "check the path, or fetch the model again"),
    "utf16": (
        "SDF model is UTF-16 text; paramdiff reads SDF models as UTF-8 XML",
        'save the model as UTF-8 (and say encoding="UTF-8" in its <?xml?> line, if any)',
    ),
    "nul": (
        "NUL byte in an SDF model (binary data, not XML text)",
        "pass the model's .sdf text file",
    ),
    "utf8": ("SDF model is not UTF-8 text", "save the model as UTF-8"),
}


def check_sdf_bytes(data: bytes, file: str) -> None:
    """An SDF model is UTF-8 XML text: an empty file, UTF-16/32 text or a NUL byte is an
    SDF error here (it was "binary data, not a parameter file", the params reader's words)."""
    check_text(data, file, SDF_WORDS)


@functools.lru_cache(maxsize=32)
def _parse_xml(data: bytes, file: str) -> Any:
    """Parse with defusedxml, remembering the source line of every element.

    One parse per file and run: `check` reads each model for its channels, its geometry
    and its includes (it parsed the same bytes eight times per profile). The tree is shared
    between its readers, so none of them may change it."""

    class LineBuilder(ET.TreeBuilder):
        parser: Any = None

        def start(self, tag: Any, attrs: Any) -> Any:
            elem = super().start(tag, attrs)
            elem.set("__line__", str(self.parser.parser.CurrentLineNumber))
            return elem

    check_sdf_bytes(data, file)
    builder = LineBuilder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=False, forbid_entities=True)
    builder.parser = parser
    try:
        parser.feed(data)
        return parser.close()
    except DefusedXmlException as exc:
        line = getattr(parser.parser, "CurrentLineNumber", 1)
        raise InputError(
            f"refused unsafe XML ({type(exc).__name__}: entity declarations and external "
            "references are not allowed)",
            "remove the DOCTYPE/ENTITY declarations; SDF models do not need them",
            file=file,
            line=line,
        ) from None
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else 1
        raise InputError(
            f"not well-formed XML ({str(exc).split(':')[0]})",
            "fix the XML, or check this is an SDF model",
            file=file,
            line=line,
        ) from None


def _line(elem: Any) -> int:
    return int(elem.get("__line__", "1"))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child_text(elem: Any, name: str) -> tuple[str | None, int]:
    for child in elem:
        if _local(child.tag) == name:
            return (child.text or "").strip(), _line(child)
    return None, _line(elem)


def plugins(root: Any) -> list[Any]:
    found = []
    for elem in root.iter():
        if _local(elem.tag) != "plugin":
            continue
        label = f"{elem.get('name', '')} {elem.get('filename', '')}"
        if "ArduPilotPlugin" in label:
            found.append(elem)
    return found


# Memoized per process like _parse_xml (sdf.py): the result is shared, so read-only.
@functools.lru_cache(maxsize=32)
def read_channels(data: bytes, file: str) -> tuple[list[Channel], list[Fact]]:
    """Every ``<control>`` channel of the model's ArduPilotPlugin(s), sorted by channel, and
    what the plugin says that has no parameter equivalent."""
    blocks = plugins(_parse_xml(data, file))
    if not blocks:
        raise InputError(
            "no ArduPilotPlugin in this SDF",
            'pass the model.sdf whose <plugin filename="ArduPilotPlugin"> drives the vehicle',
            file=file,
            line=1,
        )
    if len(blocks) > 1:
        # gz-sim makes one system per <plugin> element, so each block is its own
        # ArduPilotPlugin with its own fdm_port_in (read from its SDF; default 9002) and its
        # own SITL: one parameter set describes one of them, and which one is the user's call.
        raise InputError(
            f"a second ArduPilotPlugin block (the first at line {_line(blocks[0])}); Gazebo "
            "runs each as its own plugin, driven by its own SITL",
            "keep one ArduPilotPlugin in the model paramdiff compares (one model per vehicle)",
            file=file,
            line=_line(blocks[1]),
        )
    channels: list[Channel] = []
    facts: list[Fact] = []
    seen: dict[int, Channel] = {}
    for plugin in blocks:
        for key in PLUGIN_FACT_KEYS:
            text, line = _child_text(plugin, key)
            if text is not None:
                facts.append(Fact("plugin", key, text, file, line, "no parameter equivalent"))
        for control in plugin:
            if _local(control.tag) != "control":
                continue
            ch = _channel(control, file, seen)
            seen[ch.channel] = ch
            channels.append(ch)
            facts += _control_facts(control, ch)
    channels.sort(key=lambda c: c.channel)
    return channels, facts


def _channel_number(raw: str | None, file: str, line: int) -> int:
    """The 0-based output index of ``channel="N"``: ASCII digits, below ArduPilot's output
    count (NUM_SERVO_CHANNELS, 32, in libraries/SRV_Channel/SRV_Channel_config.h)."""
    text = (raw or "").strip()
    if not (text.isascii() and text.isdigit()):
        shown = repr(raw if raw is None else quote(raw))
        raise InputError(
            f"<control> has no valid channel attribute ({shown})",
            'add channel="N" (0-based: channel 0 is SERVO1)',
            file=file,
            line=line,
        )
    if len(text) > 3 or int(text) >= MAX_SERVO_CHANNELS:
        raise InputError(
            f"<control> channel '{quote(text)}' is beyond ArduPilot's {MAX_SERVO_CHANNELS} outputs",
            f"use a channel from 0 to {MAX_SERVO_CHANNELS - 1} (channel 0 is SERVO1)",
            file=file,
            line=line,
        )
    return int(text)


def _channel(control: Any, file: str, seen: dict[int, Channel]) -> Channel:
    line = _line(control)
    number = _channel_number(control.get("channel"), file, line)
    joint, _ = _child_text(control, "jointName")
    if not joint:
        raise InputError(
            f'<control channel="{number}"> has no <jointName>',
            "name the joint this channel drives",
            file=file,
            line=line,
        )
    if number in seen:
        raise InputError(
            f"channel {number} is controlled twice (first at line {seen[number].line})",
            "give each <control> its own channel",
            file=file,
            line=line,
        )
    values, lines = _control_numbers(control, file)
    if values["servo_min"] >= values["servo_max"]:
        raise InputError(
            f"servo_min {format_value(values['servo_min'])} is not below servo_max "
            f"{format_value(values['servo_max'])} on channel {number}",
            "servo_min must be the lower PWM bound",
            file=file,
            line=lines["servo_min"],
        )
    ctype, _ = _child_text(control, "type")
    return Channel(
        number,
        joint,
        values["servo_min"],
        values["servo_max"],
        values["offset"],
        values["multiplier"],
        ctype or DEFAULT_TYPE,
        file,
        line,
        lines,
    )


def _control_numbers(control: Any, file: str) -> tuple[dict[str, float], dict[str, int]]:
    """servo_min, servo_max, offset, multiplier (the plugin's defaults where absent), and the
    line each was read from."""
    values: dict[str, float] = {}
    lines: dict[str, int] = {}
    for key, default in DEFAULTS.items():
        text, at = _child_text(control, key)
        lines[key] = at
        if text is None:
            values[key] = default
            continue
        value, problem = parse_number(text)  # ArduPilot's ASCII grammar, finite
        if value is None:
            raise InputError(f"<{key}> {problem}", "write a number", file=file, line=at)
        values[key] = value
    return values, lines


def _control_facts(control: Any, ch: Channel) -> list[Fact]:
    subject = f"channel {ch.channel} ({ch.joint})"
    facts = []
    for key in CONTROL_FACT_KEYS:
        text, at = _child_text(control, key)
        if key == "type" and text is None:
            text, at = f"{DEFAULT_TYPE} (default)", ch.line
        if text is not None:
            facts.append(Fact(subject, key, text, ch.file, at, "no parameter equivalent"))
    facts.append(
        Fact(
            subject,
            "|multiplier|",
            format_value(abs(ch.multiplier)),
            ch.file,
            ch.lines["multiplier"],
            "command scale (thrust/velocity per unit); no parameter equivalent",
        )
    )
    return facts


def parse_sdf(
    data: bytes,
    file: str,
    joint_roles: dict[str, int] | None = None,
) -> ParamFile:
    """The SERVOn_* rows an SDF's control channels imply, plus the facts that have no parameter."""
    channels, facts = read_channels(data, file)
    out = ParamFile(file=file, format="sdf", facts=facts)
    names: set[str] = set()
    joint_roles = joint_roles or {}

    def row(name: str, value: float, line: int, note: str) -> None:
        out.params[name] = Param(name, value, format_value(value), file, line, note=note)
        names.add(name)

    for ch in channels:
        n = ch.output
        row(f"SERVO{n}_MIN", ch.servo_min, ch.lines["servo_min"], "servo_min")
        row(f"SERVO{n}_MAX", ch.servo_max, ch.lines["servo_max"], "servo_max")
        row(
            f"SERVO{n}_TRIM",
            ch.neutral_pwm,
            ch.lines["offset"],
            f"neutral PWM = servo_min - offset*(servo_max - servo_min) = "
            f"{format_value(ch.servo_min)} - ({format_value(ch.offset)})*"
            f"{format_value(ch.servo_max - ch.servo_min)}",
        )
        row(
            f"SERVO{n}_REVERSED",
            1.0 if ch.reversed else 0.0,
            ch.lines["multiplier"],
            f"multiplier {format_value(ch.multiplier)} "
            f"({'negative: reversed' if ch.reversed else 'positive: not reversed'})",
        )
        if ch.joint in joint_roles:
            row(
                f"SERVO{n}_FUNCTION",
                float(joint_roles[ch.joint]),
                ch.line,
                f"jointName {ch.joint} (joint_roles in sources.yaml)",
            )
        else:
            names.add(f"SERVO{n}_FUNCTION")
            out.warnings.append(
                Diagnostic(
                    file,
                    ch.line,
                    f"joint '{quote(ch.joint)}' on channel {ch.channel} has no role in the "
                    f"profile's joint_roles, so SERVO{n}_FUNCTION cannot be derived",
                    f"add '{quote(ch.joint)}: <SERVOn_FUNCTION>' under joint_roles in sources.yaml",
                )
            )
    out.representable = frozenset(names)
    return out
