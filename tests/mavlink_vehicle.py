"""A MAVLink parameter server for the tests: a pretend vehicle on 127.0.0.1, built on
pymavlink's own message classes, that can drop, duplicate and reorder what it sends.

It answers as ArduPilot does (GCS_Param.cpp): HEARTBEATs at 5 Hz; PARAM_REQUEST_LIST streams
every parameter with its index and the count; PARAM_REQUEST_READ by index sends that one;
MAV_CMD_REQUEST_MESSAGE(AUTOPILOT_VERSION) and MAV_CMD_REQUEST_AUTOPILOT_CAPABILITIES are
acknowledged (COMMAND_ACK) and send AUTOPILOT_VERSION (GCS_Common.cpp
send_autopilot_version: flight_sw_version major.minor.patch.type, flight_custom_version the
8 characters of the git hash). Its HEARTBEAT's type is Rover's (GCS_Rover::frame_type:
MAV_TYPE_SURFACE_BOAT when FRAME_CLASS is 2, else MAV_TYPE_GROUND_ROVER) unless one is given.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pymavlink.dialects.v20 import ardupilotmega as mavlink

MAV_PARAM_TYPE_INT8 = 2
MAV_PARAM_TYPE_INT16 = 4
MAV_PARAM_TYPE_INT32 = 6
MAV_PARAM_TYPE_REAL32 = 9


@dataclass
class Faults:
    """What the link does to the vehicle's PARAM_VALUE messages."""

    drop: float = 0.0  # each PARAM_VALUE is lost with this probability
    duplicate: float = 0.0  # ... sent twice with this one
    reorder: bool = False  # each burst is shuffled
    seed: int = 1
    answer_reads: bool = True  # False: PARAM_REQUEST_READ is ignored (a broken vehicle)
    answer_list: bool = True  # False: never streams (nothing but heartbeats)
    send_version: bool = True
    heartbeat: bool = True
    close_after: int | None = None  # close the TCP connection after this many PARAM_VALUEs
    gimbal: bool = False  # a gimbal (component 154) streams PARAM_VALUEs of its own too
    # a parameter sent under another one's name (its own value and index): a name twice
    rename: dict[str, str] = field(default_factory=dict)


@dataclass
class Vehicle:
    """The pretend vehicle's parameters (name -> (value, MAV_PARAM_TYPE)) and identity."""

    params: dict[str, tuple[float, int]]
    mav_type: int | None = None  # None: Rover's, from FRAME_CLASS (frame_type below)
    system: int = 1
    component: int = 1
    sw_version: int = (4 << 24) | (7 << 16) | (0 << 8) | 128  # 4.7.0-beta
    git_hash: bytes = b"1a2b3c4d"
    faults: Faults = field(default_factory=Faults)
    requests: list[str] = field(default_factory=list)  # what the client asked, in order

    def frame_type(self) -> int:
        """HEARTBEAT's type: the one given, else as ArduPilot's Rover reports its frame."""
        if self.mav_type is not None:
            return self.mav_type
        frame_class = self.params.get("FRAME_CLASS", (1.0, 0))[0]
        boat = frame_class == 2  # Rover::is_boat: FRAME_CLASS 2 (Boat)
        return mavlink.MAV_TYPE_SURFACE_BOAT if boat else mavlink.MAV_TYPE_GROUND_ROVER


class _Link:
    """A socket and the peer to answer: TCP (one accepted client) or UDP (the client's
    listening port)."""

    def __init__(self, sock: socket.socket, peer: tuple[str, int] | None) -> None:
        self.sock, self.peer = sock, peer

    def send(self, data: bytes) -> None:
        try:
            if self.sock.type == socket.SOCK_DGRAM:
                if self.peer is not None:
                    self.sock.sendto(data, self.peer)
            else:
                self.sock.sendall(data)
        except OSError:
            pass  # the client went away; the test's own assertions say what happened

    def recv(self) -> bytes:
        try:
            return self.sock.recv(4096)
        except (TimeoutError, BlockingIOError):
            return b""
        except OSError:
            return b""


class _Server:
    def __init__(self, vehicle: Vehicle, link: _Link) -> None:
        self.vehicle = vehicle
        self.link = link
        self.mav = mavlink.MAVLink(None, srcSystem=vehicle.system, srcComponent=vehicle.component)
        self.rng = random.Random(vehicle.faults.seed)
        self.stop = threading.Event()
        self.names = list(vehicle.params)
        self.sent = 0
        self.gimbal = mavlink.MAVLink(None, srcSystem=vehicle.system, srcComponent=154)

    def _send(self, msg: mavlink.MAVLink_message) -> None:
        if msg.get_type() == "PARAM_VALUE":
            self.sent += 1
            closing = self.vehicle.faults.close_after
            if closing is not None and self.sent > closing:
                self.stop.set()
                self.link.sock.close()
                return
        self.link.send(msg.pack(self.mav))

    def _param(self, index: int) -> mavlink.MAVLink_message:
        name = self.names[index]
        value, kind = self.vehicle.params[name]
        sent = self.vehicle.faults.rename.get(name, name)
        return self.mav.param_value_encode(sent.encode(), value, kind, len(self.names), index)

    def _burst(self, indices: list[int]) -> None:
        faults = self.vehicle.faults
        out = []
        for i in indices:
            if self.rng.random() < faults.drop:
                continue
            out.append(self._param(i))
            if self.rng.random() < faults.duplicate:
                out.append(self._param(i))
        if faults.reorder:
            self.rng.shuffle(out)
        for msg in out:
            self._send(msg)

    def _version(self) -> None:
        v = self.vehicle
        self._send(
            self.mav.autopilot_version_encode(
                0, v.sw_version, 0, 0, 0, list(v.git_hash), [0] * 8, [0] * 8, 0, 0, 0
            )
        )

    def handle(self, msg: mavlink.MAVLink_message) -> None:
        kind = msg.get_type()
        faults = self.vehicle.faults
        if kind == "PARAM_REQUEST_LIST":
            self.vehicle.requests.append("list")
            if faults.gimbal:
                for i in range(10):
                    msg = self.gimbal.param_value_encode(f"GIMBAL_P{i}".encode(), 99, 9, 10, i)
                    self.link.send(msg.pack(self.gimbal))
            if faults.answer_list:
                self._burst(list(range(len(self.names))))
        elif kind == "PARAM_REQUEST_READ":
            self.vehicle.requests.append(f"read {msg.param_index}")
            if faults.answer_reads and 0 <= msg.param_index < len(self.names):
                self._burst([msg.param_index])
        elif kind == "COMMAND_LONG" and msg.command in (512, 520):
            self.vehicle.requests.append(f"command {msg.command}")
            version = msg.command == 520 or int(msg.param1) == 148
            answered = faults.send_version and version
            result = mavlink.MAV_RESULT_ACCEPTED if answered else mavlink.MAV_RESULT_UNSUPPORTED
            self._send(self.mav.command_ack_encode(msg.command, result))
            if answered:
                self._version()

    def heartbeats(self) -> None:
        while not self.stop.wait(0.2):
            if self.vehicle.faults.heartbeat:
                self._send(  # custom mode 0 (MANUAL), standby, as a disarmed Rover sends
                    self.mav.heartbeat_encode(
                        self.vehicle.frame_type(),
                        mavlink.MAV_AUTOPILOT_ARDUPILOTMEGA,
                        mavlink.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED,
                        0,
                        mavlink.MAV_STATE_STANDBY,
                    )
                )

    def serve(self) -> None:
        self.link.sock.settimeout(0.05)
        while not self.stop.is_set():
            data = self.link.recv()
            if not data:
                continue
            for msg in self.mav.parse_buffer(data) or []:
                self.handle(msg)


@contextmanager
def tcp_vehicle(vehicle: Vehicle) -> Iterator[str]:
    """The vehicle listening on 127.0.0.1; yields the connection string for a client."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(10)
    port = listener.getsockname()[1]
    servers: list[_Server] = []

    def accept() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        server = _Server(vehicle, _Link(conn, None))
        servers.append(server)
        threading.Thread(target=server.heartbeats, daemon=True).start()
        server.serve()
        conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp:127.0.0.1:{port}"
    finally:
        listener.close()
        for s in servers:
            s.stop.set()
        thread.join(5)


@contextmanager
def udp_vehicle(vehicle: Vehicle) -> Iterator[str]:
    """The vehicle sending to a client that listens (``udpin:``), as SITL's
    ``--out udp:127.0.0.1:14550`` does; yields the client's connection string."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    client_port = probe.getsockname()[1]
    probe.close()  # the client binds it next (a race only with another process on loopback)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    server = _Server(vehicle, _Link(sock, ("127.0.0.1", client_port)))
    threads = [
        threading.Thread(target=server.heartbeats, daemon=True),
        threading.Thread(target=server.serve, daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        time.sleep(0)  # the threads start; the client connects after this
        yield f"udpin:127.0.0.1:{client_port}"
    finally:
        server.stop.set()
        for t in threads:
            t.join(5)
        sock.close()


def boat_params(n: int = 300) -> dict[str, tuple[float, int]]:
    """A BlueBoat-like set: servo functions, PWM limits, float gains; ``n`` in all."""
    params: dict[str, tuple[float, int]] = {
        "SERVO1_FUNCTION": (74.0, MAV_PARAM_TYPE_INT16),
        "SERVO3_FUNCTION": (73.0, MAV_PARAM_TYPE_INT16),
        "SERVO3_REVERSED": (1.0, MAV_PARAM_TYPE_INT8),
        "SERVO1_TRIM": (1512.0, MAV_PARAM_TYPE_INT16),
        "MOT_THST_ASYM": (1.6, MAV_PARAM_TYPE_REAL32),
        "ATC_STR_RAT_P": (0.2, MAV_PARAM_TYPE_REAL32),
        "FRAME_CLASS": (2.0, MAV_PARAM_TYPE_INT8),
    }
    i = 0
    while len(params) < n:
        params[f"TEST_P{i:04d}"] = (float(i) * 0.1, MAV_PARAM_TYPE_REAL32)
        i += 1
    return params
