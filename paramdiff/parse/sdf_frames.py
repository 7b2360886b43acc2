"""SDF poses and frames: where a frame sits in another (``Pose``: position and rotation),
rotations as sdformat builds them from ``<pose>`` (roll-pitch-yaw or a quaternion), and the
ArduPilotPlugin's transform from the Gazebo model frame to ArduPilot's FRD body frame.

Frames and units: positions come from the SDF in the model frame (Gazebo: x forward, y left,
z up, metres). ArduPilot's motor tables are in the body frame FRD (x forward, y right, z
down); the conversion is the plugin's ``modelXYZToAirplaneXForwardZDown`` (default roll 180°:
x_frd = x, y_frd = -y, z_frd = -z).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from paramdiff.errors import InputError, quote
from paramdiff.model.values import NUMBER_RE
from paramdiff.parse.sdf import _line, _local, _parse_xml, plugins

Vec = tuple[float, float, float]
Mat = tuple[Vec, Vec, Vec]
IDENTITY: Mat = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


@dataclass(frozen=True, slots=True)
class Pose:
    """A frame placed in another: position and rotation matrix (columns = the frame's axes)."""

    p: Vec = (0.0, 0.0, 0.0)
    r: Mat = IDENTITY

    def rotate(self, v: Vec) -> Vec:
        return (
            self.r[0][0] * v[0] + self.r[0][1] * v[1] + self.r[0][2] * v[2],
            self.r[1][0] * v[0] + self.r[1][1] * v[1] + self.r[1][2] * v[2],
            self.r[2][0] * v[0] + self.r[2][1] * v[1] + self.r[2][2] * v[2],
        )

    def __mul__(self, other: Pose) -> Pose:
        """This frame's pose composed with ``other`` expressed in it."""
        moved = self.rotate(other.p)
        cols = [self.rotate((other.r[0][j], other.r[1][j], other.r[2][j])) for j in range(3)]
        rot: Mat = (
            (cols[0][0], cols[1][0], cols[2][0]),
            (cols[0][1], cols[1][1], cols[2][1]),
            (cols[0][2], cols[1][2], cols[2][2]),
        )
        return Pose((self.p[0] + moved[0], self.p[1] + moved[1], self.p[2] + moved[2]), rot)


def rpy(roll: float, pitch: float, yaw: float) -> Mat:
    """Rz(yaw)·Ry(pitch)·Rx(roll), as sdformat / gz-math build a pose's rotation."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return (
        (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
        (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
        (-sp, cp * sr, cp * cr),
    )


def _quat(x: float, y: float, z: float, w: float) -> Mat:
    n = math.sqrt(x * x + y * y + z * z + w * w) or 1.0
    x, y, z, w = x / n, y / n, z / n, w / n
    return (
        (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
        (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
        (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
    )


def parse_numbers(elem: Any, file: str, count: int, what: str) -> list[float]:
    """``count`` numbers in ArduPilot's ASCII grammar (values.NUMBER_RE, as every other number
    paramdiff reads): ``float()`` alone would take Arabic-Indic or full-width digits."""
    text = (elem.text or "").split()
    values = [float(t) for t in text if NUMBER_RE.match(t)]
    # A model is metres and radians: 1e9 is already absurd, and 1e308 overflowed the geometry.
    if len(text) != count or len(values) != count or not all(abs(v) <= 1e9 for v in values):
        raise InputError(
            f"<{what}> '{quote((elem.text or '').strip())}' is not {count} numbers "
            "(ASCII digits 0-9, each within ±1e9)",
            f"write {count} numbers separated by spaces",
            file=file,
            line=_line(elem),
        )
    return values


def parse_pose(elem: Any, file: str) -> Pose:
    if elem is None or not (elem.text or "").strip():
        return Pose()
    if elem.get("rotation_format", "euler_rpy") == "quat_xyzw":
        x, y, z, qx, qy, qz, qw = parse_numbers(elem, file, 7, "pose")
        return Pose((x, y, z), _quat(qx, qy, qz, qw))
    x, y, z, r, p, yaw = parse_numbers(elem, file, 6, "pose")
    if elem.get("degrees", "false").strip().lower() in ("true", "1"):
        r, p, yaw = math.radians(r), math.radians(p), math.radians(yaw)
    return Pose((x, y, z), rpy(r, p, yaw))


GAZEBO = "Gazebo model frame: x forward, y left, z up"
FRD = "ArduPilot body frame FRD: x forward, y right, z down"
# The ArduPilotPlugin default for modelXYZToAirplaneXForwardZDown: roll 180 degrees.
DEFAULT_TO_FRD = Pose(r=rpy(math.pi, 0.0, 0.0))


def to_frd_pose(data: bytes, file: str) -> Pose:
    """The plugin's model -> FRD transform (``modelXYZToAirplaneXForwardZDown``)."""
    for plugin in plugins(_parse_xml(data, file)):
        for elem in plugin:
            if _local(elem.tag) == "modelXYZToAirplaneXForwardZDown":
                return parse_pose(elem, file)
    return DEFAULT_TO_FRD


def inverse_rotate(pose: Pose, v: Vec) -> Vec:
    r = pose.r
    return (
        r[0][0] * v[0] + r[1][0] * v[1] + r[2][0] * v[2],
        r[0][1] * v[0] + r[1][1] * v[1] + r[2][1] * v[2],
        r[0][2] * v[0] + r[1][2] * v[1] + r[2][2] * v[2],
    )
