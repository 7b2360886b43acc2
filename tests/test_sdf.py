"""The ArduPilotPlugin control block as parameters, and its refusals."""

from __future__ import annotations

import pytest
from helpers import FIXTURES

from paramdiff.errors import InputError
from paramdiff.parse.sdf import parse_sdf, read_channels
from paramdiff.simulation.channels import channel_findings

ROLES = {"motor_port_joint": 73, "motor_stbd_joint": 74}


def test_channels_become_servo_rows_with_plugin_defaults() -> None:
    f = parse_sdf((FIXTURES / "model.sdf").read_bytes(), "m.sdf", ROLES)
    values = f.values()
    assert values == {
        "SERVO1_MIN": 1000,
        "SERVO1_MAX": 2000,
        "SERVO1_TRIM": 1500,
        "SERVO1_REVERSED": 0,
        "SERVO1_FUNCTION": 73,
        "SERVO3_MIN": 1000,
        "SERVO3_MAX": 2000,
        "SERVO3_TRIM": 1500,
        "SERVO3_REVERSED": 0,
        "SERVO3_FUNCTION": 74,
    }
    assert f.params["SERVO1_TRIM"].line == 10  # the <offset> element
    assert f.params["SERVO3_MIN"].line == 15  # defaulted: the <control> element
    assert not f.can_represent("MOT_THST_ASYM")
    facts = {(x.subject, x.key): x.value for x in f.facts}
    assert facts[("channel 2 (motor_stbd_joint)", "type")] == "VELOCITY (default)"
    assert facts[("plugin", "gazeboXYZToNED")] == "0 0 0 180 0 90"


def test_neutral_reversal_and_command() -> None:
    sdf = (
        b'<sdf><model><plugin name="ArduPilotPlugin" filename="libArduPilotPlugin.so">'
        b"<control channel='1'><jointName>j</jointName><multiplier>-2</multiplier>"
        b"<offset>-0.25</offset><servo_min>1100</servo_min><servo_max>1900</servo_max>"
        b"</control></plugin></model></sdf>"
    )
    (ch,), _ = read_channels(sdf, "s")
    assert ch.output == 2 and ch.reversed
    assert ch.neutral_pwm == 1300
    assert ch.command(ch.neutral_pwm) == 0
    assert ch.command(1900) == -1.5
    f = parse_sdf(sdf, "s", {})
    assert f.params["SERVO2_REVERSED"].value == 1
    assert "has no role in the profile's joint_roles" in str(f.warnings[0])


def test_unset_servo_range_means_the_firmware_default() -> None:
    """SRV_Channel's defaults (1100/1900/1500) apply when no file sets MIN/MAX/TRIM."""
    channels, _ = read_channels((FIXTURES / "model.sdf").read_bytes(), "m.sdf")
    params = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0, "SERVO3_MAX": 2000.0}
    found = [str(f) + " | " + f.fix for f in channel_findings(channels, params, ROLES)]
    assert found == [
        "channel 0 (motor_port_joint, SERVO1): drives motor_port_joint, which is 73, but "
        "SERVO1_FUNCTION is 74 | <jointName>motor_stbd_joint</jointName>",
        "channel 0 (motor_port_joint, SERVO1): model range 1000–2000 vs SERVO1_MIN/MAX "
        "1100–1900 (not set: firmware default) (20% less PWM span: every command maps to a "
        "different thrust) | <servo_min>1100</servo_min> <servo_max>1900</servo_max> "
        "<offset>-0.5</offset>",
        "channel 2 (motor_stbd_joint, SERVO3): drives motor_stbd_joint, which is 74, but "
        "SERVO3_FUNCTION is 73 | <jointName>motor_port_joint</jointName>",
        "channel 2 (motor_stbd_joint, SERVO3): model range 1000–2000 vs SERVO3_MIN/MAX "
        "1100–2000 (not set: firmware default) (10% less PWM span: every command maps to a "
        "different thrust) | <servo_min>1100</servo_min> <servo_max>2000</servo_max> "
        "<offset>-0.444444</offset>",
    ]
    matching = {
        "SERVO1_FUNCTION": 73.0,
        "SERVO3_FUNCTION": 74.0,
        **{f"SERVO{n}_{k}": v for n in (1, 3) for k, v in (("MIN", 1000.0), ("MAX", 2000.0))},
    }
    assert channel_findings(channels, matching, ROLES) == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<sdf><model/></sdf>", "s:1: no ArduPilotPlugin in this SDF"),
        (
            b"<sdf><plugin filename='ArduPilotPlugin'>\n<control><jointName>j</jointName></control>"
            b"</plugin></sdf>",
            "s:2: <control> has no valid channel attribute (None)",
        ),
        (
            b"<sdf><plugin filename='ArduPilotPlugin'><control channel='0'/></plugin></sdf>",
            's:1: <control channel="0"> has no <jointName>',
        ),
        (
            b"<sdf><plugin filename='ArduPilotPlugin'>\n"
            b"<control channel='0'><jointName>a</jointName>"
            b"</control>\n<control channel='0'><jointName>b</jointName></control></plugin></sdf>",
            "s:3: channel 0 is controlled twice (first at line 2)",
        ),
        (
            b"<sdf><plugin filename='ArduPilotPlugin'><control channel='0'><jointName>a</jointName>"
            b"<servo_min>2000</servo_min><servo_max>1000</servo_max></control></plugin></sdf>",
            "s:1: servo_min 2000 is not below servo_max 1000 on channel 0",
        ),
        (b"<sdf><model>", "s:1: not well-formed XML"),
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>\n'
            b"<sdf>&b;</sdf>",
            "s:2: refused unsafe XML (EntitiesForbidden",
        ),
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
            b"<sdf>&x;</sdf>",
            "s:2: refused unsafe XML",
        ),
    ],
)
def test_sdf_errors(body: bytes, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_sdf(body, "s", ROLES)
    assert str(err.value).startswith(message)
