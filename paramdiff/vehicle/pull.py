"""Every parameter of a vehicle, or of a running SITL, over MAVLink (pymavlink).

The parameter protocol (mavlink.io/en/services/parameter.html): PARAM_REQUEST_LIST makes the
vehicle stream one PARAM_VALUE per parameter, each carrying its index and the total count; a
lossy link drops some, so every index still missing when the stream goes quiet is asked for
again with PARAM_REQUEST_READ, a bounded number of times, until ``param_count`` are in.
Duplicates and reordering are harmless: values are kept by index.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pymavlink import mavutil

from ..errors import FetchError, UsageError
from ..model.values import check_name, float32
from . import PULL_TIMEOUT

MAV_TYPE_GCS = 6
MAV_AUTOPILOT_INVALID = 8
MAV_CMD_REQUEST_MESSAGE = 512
MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES = 520  # the older request; ArduPilot 4.x answers both
AUTOPILOT_VERSION_ID = 148
PARAM_INDEX_BY_NAME = 65535  # a PARAM_VALUE answering a read by name, or an unsolicited change

# ArduPilot's FIRMWARE_VERSION_TYPE (the low byte of flight_sw_version), as its own version
# strings spell them (AP_Common/AP_FWVersion: "4.7.0-beta")
RELEASE_TYPES = {0: "dev", 64: "alpha", 128: "beta", 192: "rc", 255: ""}

Progress = Callable[[int, int], None]  # (received, total) as parameters come in


@dataclass(frozen=True)
class PullLimits:
    """How long a pull may take, and how hard it tries on a lossy link."""

    timeout: float = PULL_TIMEOUT  # the whole pull, connection to last parameter
    heartbeat_timeout: float = 10.0  # for the vehicle's first HEARTBEAT
    quiet: float = 1.0  # no new parameter for this long: ask for the missing ones
    retries: int = 5  # PARAM_REQUEST_READ per missing index before giving up
    version_wait: float = 2.0  # for AUTOPILOT_VERSION after the parameters are in


@dataclass(frozen=True)
class Vehicle:
    """What the vehicle says it is."""

    system: int
    component: int
    mav_type: int
    autopilot: int
    firmware: str | None = None  # "4.7.0-beta", from AUTOPILOT_VERSION
    git_hash: str | None = None  # the firmware's git hash (8 characters), likewise

    @property
    def type_name(self) -> str:
        return _enum_name("MAV_TYPE", self.mav_type)

    @property
    def autopilot_name(self) -> str:
        return _enum_name("MAV_AUTOPILOT", self.autopilot)


@dataclass(frozen=True)
class PulledParam:
    name: str
    value: float  # float32, exactly as received
    mav_type: int  # MAV_PARAM_TYPE
    index: int


@dataclass(frozen=True)
class Pulled:
    """A vehicle's parameters, by name, in the vehicle's index order."""

    connection: str
    time: str  # UTC, ISO 8601
    vehicle: Vehicle
    params: dict[str, PulledParam] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def _enum_name(enum: str, value: int) -> str:
    entry = mavutil.mavlink.enums.get(enum, {}).get(value)
    return entry.name if entry is not None else f"{enum} {value}"


def open_connection(connection: str, timeout: float) -> Any:
    """A pymavlink connection from a MAVProxy-style string: ``tcp:HOST:PORT``,
    ``udpin:ADDR:PORT``, ``udpout:HOST:PORT``, or a serial device with an optional
    ``,BAUD`` (``/dev/ttyACM0,115200``)."""
    device, baud = connection, 115200
    head, sep, tail = connection.rpartition(",")
    if sep and tail.isdigit():
        device, baud = head, int(tail)
    if not device:
        raise UsageError(f"'{connection}' names no connection", _CONNECTION_FIX)
    # MAVLink 2 as MAVProxy speaks it by default; its parser reads MAVLink 1 packets too.
    os.environ.setdefault("MAVLINK20", "1")
    try:
        # pymavlink prints its own diagnostics on stdout, where a pulled file may be going
        with contextlib.redirect_stdout(sys.stderr):
            return mavutil.mavlink_connection(
                device,
                baud=baud,
                source_system=255,
                source_component=190,  # MAV_COMP_ID_MISSIONPLANNER: a ground station
                dialect="ardupilotmega",
                retries=0,  # one attempt; the overall timeout is ours
                autoreconnect=False,
            )
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise FetchError(f"{connection}: cannot connect ({reason})", _CONNECTION_FIX) from exc


_CONNECTION_FIX = (
    "is the vehicle or SITL running there? Connections are written as MAVProxy takes them: "
    "tcp:127.0.0.1:5760, udpin:0.0.0.0:14550, /dev/ttyACM0,115200"
)


class _Session:
    """One pull's state: the link, the deadline and what has arrived."""

    def __init__(self, link: Any, connection: str, limits: PullLimits) -> None:
        self.link = link
        self.connection = connection
        self.limits = limits
        self.deadline = time.monotonic() + limits.timeout
        self.values: dict[int, Any] = {}  # index -> PARAM_VALUE
        self.count: int | None = None
        self.version: Any = None  # AUTOPILOT_VERSION, when the vehicle answers

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def receive(self, wait: float) -> Any:
        """The next message from the vehicle within ``wait`` seconds (never past the
        deadline), or None."""
        wait = min(wait, self.remaining())
        if wait <= 0:
            return None
        try:
            with contextlib.redirect_stdout(sys.stderr):
                return self.link.recv_match(blocking=True, timeout=wait)
        except OSError as exc:
            raise FetchError(
                f"{self.connection}: the link failed ({exc.strerror or exc})", _CONNECTION_FIX
            ) from exc

    def take(self, msg: Any, system: int) -> bool:
        """Keep a message from the vehicle; True when it is a new parameter."""
        if msg is None or msg.get_srcSystem() != system:
            return False
        kind = msg.get_type()
        if kind == "AUTOPILOT_VERSION":
            self.version = msg
        if kind != "PARAM_VALUE":
            return False
        if self.count is None and msg.param_count > 0:
            self.count = msg.param_count
        index = msg.param_index
        if index == PARAM_INDEX_BY_NAME or (self.count is not None and index >= self.count):
            return False
        new = index not in self.values
        self.values[index] = msg  # a duplicate carries the same value; the last one wins
        return new


def _heartbeat(session: _Session) -> Any:
    """The vehicle's first HEARTBEAT (not a ground station's)."""
    until = time.monotonic() + min(session.limits.heartbeat_timeout, session.remaining())
    while time.monotonic() < until:
        msg = session.receive(until - time.monotonic())
        if (
            msg is not None
            and msg.get_type() == "HEARTBEAT"
            and msg.type != MAV_TYPE_GCS
            and msg.autopilot != MAV_AUTOPILOT_INVALID
        ):
            return msg
    raise FetchError(
        f"{session.connection}: no vehicle HEARTBEAT within "
        f"{min(session.limits.heartbeat_timeout, session.limits.timeout):g} s",
        "check the connection string and that the vehicle (or SITL) is running and sending to it",
    )


def _request_version(link: Any, system: int, component: int) -> None:
    link.mav.command_long_send(
        system, component, MAV_CMD_REQUEST_MESSAGE, 0, AUTOPILOT_VERSION_ID, 0, 0, 0, 0, 0, 0
    )
    link.mav.command_long_send(
        system, component, MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES, 0, 1, 0, 0, 0, 0, 0, 0
    )


def _missing(session: _Session) -> list[int]:
    if session.count is None:
        return []
    return [i for i in range(session.count) if i not in session.values]


def _collect(session: _Session, system: int, component: int, progress: Progress | None) -> None:
    """PARAM_REQUEST_LIST, then PARAM_REQUEST_READ for what is still missing whenever the
    stream goes quiet, each index at most ``retries`` times."""
    link, limits = session.link, session.limits
    link.mav.param_request_list_send(system, component)
    asked: dict[int, int] = {}
    lists_sent = 1
    while session.count is None or len(session.values) < session.count:
        if session.remaining() <= 0:
            raise _timed_out(session)
        quiet_until = time.monotonic() + limits.quiet
        while time.monotonic() < quiet_until and session.remaining() > 0:
            if session.take(session.receive(quiet_until - time.monotonic()), system):
                quiet_until = time.monotonic() + limits.quiet
                if progress and session.count:
                    progress(len(session.values), session.count)
            if session.count is not None and len(session.values) >= session.count:
                return
        if session.count is None:  # not one PARAM_VALUE yet: the list request was lost
            if lists_sent > limits.retries:
                raise _timed_out(session)
            link.mav.param_request_list_send(system, component)
            lists_sent += 1
            continue
        for index in _missing(session):
            if asked.get(index, 0) >= limits.retries:
                raise FetchError(
                    f"{session.connection}: parameter index {index} of {session.count} did "
                    f"not arrive after {limits.retries} requests",
                    "the link is losing most messages: try again, or a wired connection",
                )
            asked[index] = asked.get(index, 0) + 1
            link.mav.param_request_read_send(system, component, b"", index)


def _timed_out(session: _Session) -> FetchError:
    got = len(session.values)
    total = f" of {session.count}" if session.count is not None else ""
    return FetchError(
        f"{session.connection}: {got}{total} parameters after {session.limits.timeout:g} s",
        "try again, or allow longer (--timeout SECONDS)",
    )


def _firmware(msg: Any) -> tuple[str | None, str | None]:
    """(version, git hash) from AUTOPILOT_VERSION, as ArduPilot spells them."""
    if msg is None:
        return None, None
    sw = int(msg.flight_sw_version)
    release = RELEASE_TYPES.get(sw & 0xFF, "dev")
    version = f"{sw >> 24 & 0xFF}.{sw >> 16 & 0xFF}.{sw >> 8 & 0xFF}"
    version = f"{version}-{release}" if release else version
    raw = bytes(msg.flight_custom_version)
    git = raw.split(b"\0", 1)[0].decode("ascii", "replace") or None
    return version, git


def _params(session: _Session) -> tuple[dict[str, PulledParam], list[str]]:
    params: dict[str, PulledParam] = {}
    warnings = []
    for index in sorted(session.values):
        msg = session.values[index]
        name = msg.param_id.rstrip("\0") if isinstance(msg.param_id, str) else ""
        problem = check_name(name)
        if problem:
            warnings.append(f"parameter index {index}: {problem[0]} (left out)")
            continue
        if name in params:
            warnings.append(f"parameter index {index}: {name} again (index {params[name].index})")
        params[name] = PulledParam(name, float32(msg.param_value), int(msg.param_type), index)
    return params, warnings


def pull(
    connection: str, limits: PullLimits | None = None, progress: Progress | None = None
) -> Pulled:
    """Every parameter of the vehicle at ``connection`` (see ``open_connection``)."""
    limits = limits or PullLimits()
    link = open_connection(connection, limits.timeout)
    try:
        session = _Session(link, connection, limits)
        beat = _heartbeat(session)
        system, component = beat.get_srcSystem(), beat.get_srcComponent()
        _request_version(link, system, component)
        _collect(session, system, component, progress)
        _wait_for_version(session, system)
        params, warnings = _params(session)
    finally:
        with contextlib.suppress(OSError):
            link.close()
    version, git = _firmware(session.version)
    vehicle = Vehicle(system, component, beat.type, beat.autopilot, version, git)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return Pulled(connection, stamp, vehicle, params, tuple(warnings))


def _wait_for_version(session: _Session, system: int) -> None:
    """A little longer for AUTOPILOT_VERSION, which a vehicle may not send at all."""
    until = time.monotonic() + session.limits.version_wait
    while session.version is None and time.monotonic() < until:
        session.take(session.receive(until - time.monotonic()), system)


def values(pulled: Pulled) -> Iterator[tuple[str, float]]:
    for p in pulled.params.values():
        yield p.name, p.value
