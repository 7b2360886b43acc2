"""Every parameter of a vehicle, or of a running SITL, over MAVLink (pymavlink).

The parameter protocol (mavlink.io/en/services/parameter.html): PARAM_REQUEST_LIST makes the
vehicle stream one PARAM_VALUE per parameter, each carrying its index and the total count; a
lossy link drops some, so every index still missing when the stream goes quiet is asked for
again with PARAM_REQUEST_READ, a bounded number of times, until ``param_count`` are in.
Duplicates and reordering are harmless: values are kept by index.
"""

from __future__ import annotations

import contextlib
import math
import os
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from paramdiff.errors import FetchError, UsageError
from paramdiff.model.values import check_name, float32, format_value
from paramdiff.parse.param_text import MAX_PARAMS
from paramdiff.vehicle import PULL_TIMEOUT

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
    total: int = 0  # the parameters the vehicle announced (PARAM_VALUE's param_count)
    lost: tuple[str, ...] = ()  # why each announced parameter is not in ``params``

    def values(self) -> dict[str, float]:
        """Each parameter's value as the vehicle holds it (float32)."""
        return {name: p.value for name, p in self.params.items()}


# pymavlink is imported where a link is used, not at the top: it costs ~117 ms (numpy with
# it; `python -X importtime`), which `paramdiff --help` would pay for listing pull and verify.
def _enum_name(enum: str, value: int) -> str:
    from pymavlink import mavutil

    entry = mavutil.mavlink.enums.get(enum, {}).get(value)
    return entry.name if entry is not None else f"{enum} {value}"


NETWORK_PREFIXES = ("tcp:", "tcpin:", "udp:", "udpin:", "udpout:", "udpbcast:")
MAX_PARAM_COUNT = (
    MAX_PARAMS  # no ArduPilot vehicle has a third of it; PARAM_VALUE's index is 16-bit
)
READS_PER_ROUND = 64  # PARAM_REQUEST_READs sent at once: a telemetry radio is ~5 KB/s


class LinkClosed(Exception):
    """The vehicle closed the connection (pymavlink's TCP EOF or reset)."""


def _closed() -> None:
    raise LinkClosed


def _device(connection: str) -> tuple[str, int]:
    """(device, baud): a network connection as pymavlink names it, or a serial device."""
    device, baud = connection, 115200
    head, sep, tail = connection.rpartition(",")
    if sep and tail.isdigit():
        device, baud = head, int(tail)
    if not device:
        raise UsageError(f"'{connection}' names no connection", _CONNECTION_FIX)
    if device.startswith(NETWORK_PREFIXES):
        return device, baud
    # Anything else is a serial device; pymavlink would open a regular file as a log and
    # read it forever (no timeout applies to a log).
    try:
        mode = os.stat(device).st_mode
    except OSError as exc:
        raise UsageError(
            f"{connection}: no such device ({exc.strerror})", _CONNECTION_FIX
        ) from None
    if not stat.S_ISCHR(mode):
        raise UsageError(f"{connection}: not a serial device or a connection", _CONNECTION_FIX)
    return device, baud


def open_connection(connection: str) -> Any:
    """A pymavlink connection from a MAVProxy-style string: ``tcp:HOST:PORT``,
    ``udpin:ADDR:PORT``, ``udpout:HOST:PORT``, or a serial device with an optional
    ``,BAUD`` (``/dev/ttyACM0,115200``)."""
    device, baud = _device(connection)
    # MAVLink 2 as MAVProxy speaks it by default; its parser reads MAVLink 1 packets too.
    os.environ.setdefault("MAVLINK20", "1")
    from pymavlink import mavutil  # (see _enum_name)

    try:
        link = mavutil.mavlink_connection(
            device,
            baud=baud,
            source_system=255,
            source_component=190,  # MAV_COMP_ID_MISSIONPLANNER: a ground station
            dialect="ardupilotmega",
            retries=0,  # one attempt; the overall timeout is ours
            autoreconnect=False,
        )
    except (OSError, ValueError, OverflowError) as exc:  # OverflowError: a port past 65535
        reason = getattr(exc, "strerror", None) or str(exc)
        raise FetchError(f"{connection}: cannot connect ({reason})", _CONNECTION_FIX) from exc
    except ImportError as exc:  # pragma: no cover - pyserial is a dependency
        raise FetchError(
            f"{connection}: serial links need pyserial ({exc})", "pip install pyserial"
        ) from exc
    # pymavlink's TCP link prints and carries on when the peer closes; a pull must stop
    link.handle_eof = _closed
    link.handle_disconnect = _closed
    return link


_CONNECTION_FIX = (
    "is the vehicle or SITL running there? Connections are written as MAVProxy takes them: "
    "tcp:127.0.0.1:5760, udpin:0.0.0.0:14550, /dev/ttyACM0,115200"
)


class _Session:
    """One pull's state: the link, the deadline, the vehicle and what it has sent."""

    def __init__(self, link: Any, connection: str, limits: PullLimits) -> None:
        self.link = link
        self.connection = connection
        self.limits = limits
        self.started = time.monotonic()
        self.deadline = self.started + limits.timeout
        self.values: dict[int, Any] = {}  # index -> PARAM_VALUE
        self.count: int | None = None
        self.version: Any = None  # AUTOPILOT_VERSION, when the vehicle answers
        self.vehicle: tuple[int, int] | None = None  # (system, component) pulled from
        self.beat: Any = None  # its first HEARTBEAT
        self.others: set[int] = set()  # other vehicles' system ids heard on the link
        self.notes: list[str] = []

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def elapsed(self) -> str:
        return f"{time.monotonic() - self.started:.1f} s"

    def receive(self, wait: float) -> Any:
        """The next message within ``wait`` seconds (never past the deadline), or None."""
        wait = min(wait, self.remaining())
        if wait <= 0:
            return None
        try:
            return self.link.recv_match(blocking=True, timeout=wait)
        except LinkClosed:
            raise FetchError(
                f"{self.connection}: the vehicle closed the connection after "
                f"{self.received()} parameters",
                "try again; if it keeps closing, check what else holds that connection",
            ) from None
        except OSError as exc:
            raise FetchError(
                f"{self.connection}: the link failed ({exc.strerror or exc})", _CONNECTION_FIX
            ) from exc

    def received(self) -> str:
        """How many parameters have arrived, of how many once the vehicle has said: "12 of
        900" ("0" before its first PARAM_VALUE); the count in a failed pull's message."""
        of = f" of {self.count}" if self.count is not None else ""
        return f"{len(self.values)}{of}"

    def take(self, msg: Any) -> bool:
        """Keep a message from the vehicle pulled from; True when it is a new parameter."""
        if msg is None or self.vehicle is None:
            return False
        kind = msg.get_type()
        source = (msg.get_srcSystem(), msg.get_srcComponent())
        if kind == "HEARTBEAT" and source[0] != self.vehicle[0] and _is_vehicle(msg):
            self.others.add(source[0])
        if source != self.vehicle:  # another system, or a gimbal's or camera's parameters
            return False
        if kind == "AUTOPILOT_VERSION":
            self.version = msg
        return kind == "PARAM_VALUE" and self._param(msg)

    def _param(self, msg: Any) -> bool:
        count = int(msg.param_count)
        if count > MAX_PARAM_COUNT:
            raise FetchError(
                f"{self.connection}: the vehicle says it has {count} parameters; no ArduPilot "
                f"vehicle has more than {MAX_PARAM_COUNT:,}",
                "this is not an ArduPilot parameter server: check the connection",
            )
        if count > 0 and count != self.count:
            if self.count is not None:  # a Lua script added parameters after boot, say
                self.notes.append(
                    f"the vehicle's parameter count changed from {self.count} to {count} "
                    "during the pull (a script adding parameters?): pulled as it ended"
                )
                self.values = {i: m for i, m in self.values.items() if i < count}
            self.count = count
        index = msg.param_index
        if index == PARAM_INDEX_BY_NAME or (self.count is not None and index >= self.count):
            return False
        new = index not in self.values
        self.values[index] = msg  # a duplicate carries the same value; the last one wins
        return new

    def complete(self) -> bool:
        return self.count is not None and len(self.values) >= self.count


def _is_vehicle(msg: Any) -> bool:
    return msg.type != MAV_TYPE_GCS and msg.autopilot != MAV_AUTOPILOT_INVALID


def _heartbeat(session: _Session) -> None:
    """The first vehicle HEARTBEAT (not a ground station's) picks the vehicle pulled from."""
    until = time.monotonic() + min(session.limits.heartbeat_timeout, session.remaining())
    while time.monotonic() < until:
        msg = session.receive(until - time.monotonic())
        if msg is not None and msg.get_type() == "HEARTBEAT" and _is_vehicle(msg):
            session.vehicle = (msg.get_srcSystem(), msg.get_srcComponent())
            session.beat = msg
            return
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


def _stream(session: _Session, progress: Progress | None) -> bool:
    """Take messages until the stream goes quiet for ``limits.quiet``; True if any new
    parameter arrived."""
    quiet = session.limits.quiet
    arrived = False
    quiet_until = time.monotonic() + quiet
    while time.monotonic() < quiet_until and session.remaining() > 0:
        if session.take(session.receive(quiet_until - time.monotonic())):
            arrived = True
            quiet_until = time.monotonic() + quiet
            if progress and session.count:
                progress(len(session.values), session.count)
        if session.complete():
            break
    return arrived


def _collect(session: _Session, progress: Progress | None) -> None:
    """PARAM_REQUEST_LIST, then, each time the stream goes quiet, PARAM_REQUEST_READ for
    what is still missing (at most READS_PER_ROUND at a time). It gives up after
    ``retries`` quiet rounds in a row that brought nothing new, or at the deadline."""
    assert session.vehicle is not None
    system, component = session.vehicle
    link, limits = session.link, session.limits
    link.mav.param_request_list_send(system, component)
    barren = 0  # quiet rounds in a row with no new parameter
    while not session.complete():
        if session.remaining() <= 0:
            raise _timed_out(session)
        barren = 0 if _stream(session, progress) else barren + 1
        if session.complete():
            return
        if barren > limits.retries:
            raise _gave_up(session)
        if session.count is None:  # not one PARAM_VALUE yet: the list request was lost
            link.mav.param_request_list_send(system, component)
            continue
        for index in _missing(session)[:READS_PER_ROUND]:
            link.mav.param_request_read_send(system, component, b"", index)


def _timed_out(session: _Session) -> FetchError:
    return FetchError(
        f"{session.connection}: {session.received()} parameters after "
        f"{session.limits.timeout:g} s (--timeout)",
        "try again, or allow longer (--timeout SECONDS)",
    )


def _gave_up(session: _Session) -> FetchError:
    missing = _missing(session)
    if session.count is None:
        asked = session.limits.retries + 1
        what = f"the vehicle sent no parameter in {session.elapsed()} (asked {asked} times)"
    else:
        what = (
            f"{len(missing)} of {session.count} parameters (index {missing[0]} first) did not "
            f"arrive in {session.limits.retries + 1} requests each, {session.elapsed()} in"
        )
    return FetchError(
        f"{session.connection}: {what}",
        "the link is losing messages or the vehicle does not answer PARAM_REQUEST_READ: try "
        "again, or a wired connection",
    )


def _firmware(msg: Any) -> tuple[str | None, str | None]:
    """(version, git hash) from AUTOPILOT_VERSION, as ArduPilot spells them."""
    if msg is None:
        return None, None
    sw = int(msg.flight_sw_version)
    release = RELEASE_TYPES.get(sw & 0xFF, "dev")
    version = f"{sw >> 24 & 0xFF}.{sw >> 16 & 0xFF}.{sw >> 8 & 0xFF}"
    version = f"{version}-{release}" if release else version
    # ArduPilot sends the 8 hex digits of fw_hash_str; any byte but printable ASCII (and the
    # backslash, so an escape is never ambiguous) is kept as its escape (\x1b, \x0a, \xff):
    # a control byte never reaches the record, the report or a terminal as itself
    raw = bytes(msg.flight_custom_version).split(b"\0", 1)[0]
    git = "".join(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else f"\\x{b:02x}" for b in raw)
    return version, git or None


def _params(session: _Session) -> tuple[dict[str, PulledParam], list[str], list[str]]:
    """(params by name, warnings, lost): ``lost`` says of each announced parameter the file
    cannot hold as the vehicle has it why not — a name no loader reads, a value no loader
    reads (NaN, infinity), or a name sent at two indices with different values (which one
    the vehicle runs is unknowable: the name is left out)."""
    params: dict[str, PulledParam] = {}
    warnings: list[str] = []
    lost: list[str] = []
    conflicting: set[str] = set()
    for index in sorted(session.values):
        msg = session.values[index]
        name = msg.param_id.rstrip("\0") if isinstance(msg.param_id, str) else ""
        problem = check_name(name)
        if problem:
            lost.append(f"parameter index {index}: {problem[0]}")
            continue
        value = float(msg.param_value)
        if not math.isfinite(value):
            lost.append(f"{name} (index {index}) is {value}, which no loader reads")
            continue
        row = PulledParam(name, float32(value), int(msg.param_type), index)
        first = params.get(name)
        if first is None:
            params[name] = row
        elif first.value == row.value:
            warnings.append(f"parameter index {index}: {name} again (index {first.index})")
        else:
            lost.append(
                f"{name} is sent twice with different values: {format_value(first.value)} "
                f"(index {first.index}) and {format_value(row.value)} (index {index}), "
                "both left out"
            )
            conflicting.add(name)
    # A name the vehicle gave two values is left out whole: either would be a guess.
    return {n: p for n, p in params.items() if n not in conflicting}, warnings, lost


def pull(
    connection: str,
    limits: PullLimits | None = None,
    progress: Progress | None = None,
    allow_incomplete: bool = False,
) -> Pulled:
    """Every parameter of the vehicle at ``connection`` (see ``open_connection``). A pull
    the file cannot hold whole (``Pulled.lost``) is a FetchError, unless
    ``allow_incomplete``: then it is returned with its losses counted and warned of."""
    limits = limits or PullLimits()
    # pymavlink prints its diagnostics on stdout, where a pulled file may be going: the
    # whole pull writes them to stderr (the file is written after it)
    with contextlib.redirect_stdout(sys.stderr):
        link = open_connection(connection)
        session = _Session(link, connection, limits)
        try:
            _heartbeat(session)
            assert session.vehicle is not None
            _request_version(link, *session.vehicle)
            _collect(session, progress)
            _wait_for_version(session)
        finally:
            with contextlib.suppress(OSError, LinkClosed):
                link.close()
    params, warnings, lost = _params(session)
    total = session.count or 0
    if lost and not allow_incomplete:
        raise FetchError(
            f"{connection}: the dump would be incomplete: {len(lost)} of {total} parameters "
            f"cannot be written as the vehicle holds them ({lost[0]}"
            + (f"; and {len(lost) - 1} more" if len(lost) > 1 else "")
            + ")",
            "fix them on the vehicle and pull again, or pass --allow-incomplete to write the "
            "other parameters (the header counts what is left out)",
        )
    if lost:
        warnings.append(
            f"incomplete: {len(params)} of {total} parameters written; "
            f"{total - len(params)} left out: "
            + "; ".join(lost[:5])
            + (f"; and {len(lost) - 5} more" if len(lost) > 5 else "")
        )
    if session.others:
        others = ", ".join(str(s) for s in sorted(session.others))
        warnings.append(
            f"other vehicles on this link (system {others}): pulled system "
            f"{session.vehicle[0]}, the first to send a HEARTBEAT"
        )
    version, git = _firmware(session.version)
    beat = session.beat
    system, component = session.vehicle
    vehicle = Vehicle(system, component, beat.type, beat.autopilot, version, git)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    notes = tuple([*session.notes, *warnings])
    return Pulled(connection, stamp, vehicle, params, notes, total, tuple(lost))


def _wait_for_version(session: _Session) -> None:
    """A little longer for AUTOPILOT_VERSION, which a vehicle may not send at all."""
    until = time.monotonic() + session.limits.version_wait
    while session.version is None and time.monotonic() < until:
        session.take(session.receive(until - time.monotonic()))
