"""The Gazebo ArduPilotPlugin (the JSON backend) as a response: output PWMs → force and torque.

Each ``<control channel="N">`` reads output N+1 and commands its joint with
multiplier × (clamp((pwm - servo_min) / (servo_max - servo_min), 0, 1) + offset)
(ArduPilotPlugin.cc; parse.sdf.Channel.command). Where the joint sits and which way it points
come from simulation.geometry (FRD body frame). A thruster (gz-sim Thruster) pushes along its joint
axis by the command; a rotor lifts by the size of its command and its reaction torque opposes
its spin (the command times its axis).
"""

from __future__ import annotations

from collections.abc import Callable

from paramdiff.parse.sdf import Channel
from paramdiff.parse.sdf_thruster import Actuation
from paramdiff.simulation.actuators import Actuator
from paramdiff.simulation.physics import Wrench

ROTOR_TORQUE = 0.1  # reaction torque per unit command: only its sign matters here


def _cross(r: tuple[float, float, float], f: tuple[float, float, float]) -> tuple[float, ...]:
    return (r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0])


def response(
    channels: list[Channel], placed: dict[int, Actuator], rotors: bool
) -> Callable[[dict[int, float]], Wrench]:
    """Output PWMs → the model's wrench; an output no channel reads does nothing, as does a
    channel whose joint is not in the model."""

    def wrench(pwm: dict[int, float]) -> Wrench:
        total = [0.0] * 6
        for ch in channels:
            act = placed.get(ch.channel)
            if act is None or ch.output not in pwm:
                continue
            cmd = ch.command(pwm[ch.output])
            axis = act.frd_axis
            if rotors:
                force = (0.0, 0.0, -abs(cmd))
                spin = tuple(-ROTOR_TORQUE * cmd * a for a in axis)
            else:
                force = (cmd * axis[0], cmd * axis[1], cmd * axis[2])
                spin = (0.0, 0.0, 0.0)
            torque = _cross(act.frd_position, force)
            for i, v in enumerate((*force, *(t + s for t, s in zip(torque, spin, strict=True)))):
                total[i] += v
        return (total[0], total[1], total[2], total[3], total[4], total[5])

    return wrench


def reads(channels: list[Channel], placed: dict[int, Actuator]) -> set[int]:
    """The outputs the model turns into motion."""
    return {ch.output for ch in channels if ch.channel in placed and ch.multiplier != 0}


def follow_topics(
    channels: list[Channel], actuation: Actuation
) -> tuple[list[Channel], list[tuple[str, str]]]:
    """The channels as the water sees them, and (finding, fix) where that is not their
    ``<jointName>``. A COMMAND control publishes on its ``<cmd_topic>`` (ArduPilotPlugin.cc),
    and what moves is the Thruster subscribed to that topic, whatever the control's jointName
    says: a channel whose topic reaches another joint's Thruster moves that joint, one whose
    topic reaches no Thruster moves nothing (it is left out)."""
    moved: list[Channel] = []
    found: list[tuple[str, str]] = []
    for ch in channels:
        topic = actuation.topics.get(ch.channel)
        if topic is None:
            moved.append(ch)
            continue
        where = f"channel {ch.channel} (<jointName> {ch.joint}, SERVO{ch.output})"
        thruster = actuation.reached(ch.channel)
        if thruster is None:
            found.append(
                (
                    f"{where}: its cmd_topic {topic} reaches no Thruster of the model, so "
                    f"output {ch.output} drives nothing",
                    f"set the control's <cmd_topic> to the topic of {ch.joint}'s Thruster",
                )
            )
            continue
        if thruster.joint != ch.joint:
            found.append(
                (
                    f"{where}: its cmd_topic {topic} reaches the Thruster of joint "
                    f"{thruster.joint} (line {thruster.line}), so output {ch.output} moves "
                    f"{thruster.joint}, not {ch.joint}",
                    f"make <jointName> and <cmd_topic> name the same thruster (<jointName>"
                    f"{thruster.joint}</jointName>, or the cmd_topic of {ch.joint}'s Thruster)",
                )
            )
            moved.append(ch._replace(joint=thruster.joint))
            continue
        moved.append(ch)
    return moved, found
