"""The six real loaders, re-implemented in paramdiff.parse.loaders, on small fixtures.

Each rule has a fixture that would load differently without it. pymavlink installs from
PyPI, so its loader is also checked against the real ``MAVParmDict.load``.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from paramdiff.parse.loaders import (
    LOADERS,
    Loaded,
    ap_fgets,
    ardupilot_defaults,
    disagreements,
    mavproxy_param_load,
    methodic_configurator,
    mission_planner,
    mission_planner_old,
    qgroundcontrol,
    strtof,
)


def values(loaded: Loaded) -> dict[str, float]:
    return {n: v.value for n, v in loaded.values.items()}


def long_comment(payload: bytes, at: int = 99) -> bytes:
    """A comment line with ``payload`` starting at 1-based byte ``at``."""
    head = b"# DELTA: a long reason "
    return head + b"x" * (at - 1 - len(head)) + payload


# --------------------------------------------------------------------- ArduPilot


def test_ap_fgets_returns_at_most_98_bytes_and_the_rest_as_the_next_line() -> None:
    line = long_comment(b"SERVO1_TRIM 1510")
    chunks = list(ap_fgets(b"A 1\n" + line + b"\nB 2\r\nC 3"))
    assert [(n, byte, len(c)) for n, byte, c in chunks] == [
        (1, 1, 3),
        (2, 1, 98),
        (2, 99, 16),
        (3, 1, 3),
        (3, 5, 0),  # the \n after \r comes back as an empty line
        (4, 1, 3),
    ]
    assert chunks[2][2] == b"SERVO1_TRIM 1510"
    # A line of exactly 98 bytes is read whole (its newline then reads as an empty line).
    exact = b"#" + b"y" * 97
    assert [c for _, _, c in ap_fgets(exact + b"\nA 1\n")] == [exact, b"", b"A 1"]


def test_ap_fgets_reads_short_lines_the_same_with_or_without_a_long_one() -> None:
    # A file of short \n lines is split at once; a long line or a \r takes the 98-byte walk.
    short = b"A 1\n\n# " + b"z" * 95 + b"\nB 2\nC 3"
    whole = list(ap_fgets(short))
    assert [(n, byte) for n, byte, _ in whole] == [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)]
    for tail in (b"\n" + b"#" * 120, b"\r\nD 4"):
        assert list(ap_fgets(short + tail))[: len(whole)] == whole
    assert list(ap_fgets(short + b"\n")) == whole
    assert list(ap_fgets(b"")) == []


def test_ardupilot_reads_a_long_comments_tail_as_a_parameter_line() -> None:
    data = b"SERVO1_TRIM 1500\n" + long_comment(b"SERVO1_TRIM 1510 and more") + b"\n"
    got = ardupilot_defaults(data)
    assert values(got) == {"SERVO1_TRIM": 1510.0}
    assert (got.values["SERVO1_TRIM"].line, got.values["SERVO1_TRIM"].byte) == (2, 99)
    # 98 bytes of comment per line keep the same text harmless.
    safe = b"SERVO1_TRIM 1500\n# " + b"x" * 96 + b"\n# SERVO1_TRIM 1510\n"
    assert values(ardupilot_defaults(safe)) == {"SERVO1_TRIM": 1500.0}


def test_ardupilot_older_fgets_loses_byte_100() -> None:
    line = long_comment(b"XSERVO1_TRIM 1510", at=100)
    assert values(ardupilot_defaults(line, size=99, drop=1)) == {"SERVO1_TRIM": 1510.0}
    # Byte 99 starts "xXSERVO1_TRIM 1510": not upper-case, so AP_Param::find matches nothing.
    assert values(ardupilot_defaults(line)) == {}
    assert ardupilot_defaults(line.upper()).values.keys() == {"XXSERVO1_TRIM"}


def test_ardupilot_parse_param_line_rules() -> None:
    data = (
        b"A_EQ=1\n"
        b"B_COMMA,2\n"
        b"C_TAB\t3 @READONLY\n"
        b"  D_LEAD 4\n"  # strtok skips leading delimiters
        b"e_lower 5\n"  # AP_Param::find compares a group prefix with strncmp: skipped
        b"F_PREFIX 6.5abc\n"  # strtof reads the longest number prefix
        b"G_WORD abc\n"  # ... or 0
        b"H_HEX 0x10\n"
        b"I_NAN nan\n"  # set_float ignores NaN
        b"ABCDEFGHIJKLMNOPQ 7\n"  # 17 characters: skipped
        b"FORMAT_VERSION 120\n"  # SITL ignores it
        b" # indented comment 9\n"  # only a '#' in byte 1 makes a comment
        b"J_LAST 1\nJ_LAST 2\n"  # every line calls set_float: the last wins
        b"K_ONLY\n"
        b"L_FLAG 8 @readonly\n"  # strcmp: not the flag, the value loads writable
        b"M_FLAG 9 @READONLY more\n"  # a fourth token is ignored
    )
    got = ardupilot_defaults(data)
    assert values(got) == {
        "A_EQ": 1.0,
        "B_COMMA": 2.0,
        "C_TAB": 3.0,
        "D_LEAD": 4.0,
        "F_PREFIX": 6.5,
        "G_WORD": 0.0,
        "H_HEX": 16.0,
        "J_LAST": 2.0,
        "L_FLAG": 8.0,
        "M_FLAG": 9.0,
    }
    assert {n for n, v in got.values.items() if v.read_only} == {"C_TAB", "M_FLAG"}
    assert got.values["J_LAST"].line == 14
    # ... yet get_default_value answers the first: a value set twice is a conflict.
    assert [n for n, _ in got.conflicts] == [14]
    assert {n for n, _ in got.skipped} == {5, 9, 10, 11, 12, 15}


def test_strtof_is_c_strtof_rounded_to_float32() -> None:
    assert strtof(b"0.1") == pytest.approx(0.1) and strtof(b"0.1") != 0.1
    assert strtof(b" -2.5e2x") == -250.0
    assert strtof(b"1e") == 1.0
    assert strtof(b"0x1.8p1") == 3.0
    assert strtof(b"-inf") == float("-inf")
    assert strtof(b".") == 0.0


# --------------------------------------------------------------------- MAVProxy / pymavlink


def test_mavproxy_rules() -> None:
    data = b"A 1 # why\nB,2\nC 3 4\nFORMAT_VERSION 9\nD 0x10\n#E 5\nlower 6\n"
    got = mavproxy_param_load(data)
    assert values(got) == {"A": 1.0, "B": 2.0, "D": 16.0, "lower": 6.0}
    assert [n for n, _ in got.skipped] == [3, 4]
    bad = mavproxy_param_load(b"A 1\nB one\n")
    assert bad.refused is not None and bad.refused[0] == 2


PYMAVLINK_CASES = [
    b"SERVO1_TRIM 1500\n# comment\n\nSERVO3_REVERSED,0\n",
    b"A 1 # trailing comment\nB 2 3\nC\t0x1F\nFORMAT_VERSION 3\nA 7\n",
    b"X 1.5e3\r\nY -0.25\rZ 2\n",
    b"# a long comment " + b"z" * 120 + b" SERVO1_TRIM 1510\nSERVO1_TRIM 1500\n",
]


@pytest.mark.parametrize("data", PYMAVLINK_CASES)
def test_mavproxy_loader_matches_the_real_pymavlink(tmp_path: Path, data: bytes) -> None:
    from pymavlink import mavparm

    path = tmp_path / "f.params"
    path.write_bytes(data)
    real = mavparm.MAVParmDict()
    with contextlib.redirect_stdout(io.StringIO()):
        assert real.load(str(path))
    assert values(mavproxy_param_load(data)) == {k: float(v) for k, v in real.items()}


# --------------------------------------------------------------------- Methodic Configurator


def test_methodic_configurator_rules() -> None:
    got = methodic_configurator(b"# header\nA,1  # the reason\nB 2\nC\t3\n\n")
    assert values(got) == {"A": 1.0, "B": 2.0, "C": 3.0}
    assert got.values["A"].comment == "the reason"
    for bad, line in [
        (b"A 1\nA 2\n", 2),  # duplicated
        (b"a 1\n", 1),  # name not ^[A-Z][A-Z_0-9]*$
        (b"A 1 2\n", 1),  # value "1 2"
        (b"A\n", 1),  # no separator
        (b"A 1\n# \xff\n", 2),  # not UTF-8
    ]:
        refused = methodic_configurator(bad).refused
        assert refused is not None and refused[0] == line, bad


# --------------------------------------------------------------------- Mission Planner


def test_mission_planner_old_needs_exactly_two_items() -> None:
    data = b"A,1\nB 2 # reason\nC\t3\n#D 4\nSYSID_SW_MREV 5\n"
    assert values(mission_planner_old(data)) == {"A": 1.0, "C": 3.0}
    assert values(mission_planner(data)) == {"A": 1.0, "B": 2.0, "C": 3.0}


def test_mission_planner_refuses_a_bad_number_and_skips_excluded_names() -> None:
    refused = mission_planner(b"A 1\nB 0x10\n").refused
    assert refused == (2, "Invalid number on param B : 0x10")
    assert values(mission_planner(b"BARO1_GND_PRESS 9\nA 1\nA 2\n")) == {"A": 2.0}
    assert values(mission_planner_old(b"BARO1_GND_PRESS 9\n")) == {"BARO1_GND_PRESS": 9.0}


# --------------------------------------------------------------------- QGroundControl


def test_qgroundcontrol_reads_five_or_two_fields() -> None:
    data = b"# Onboard parameters\n1\t1\tA\t1.5\t9\nB,2\nC 3 # reason\n  \nD 4 5\n"
    got = qgroundcontrol(data)
    assert values(got) == {"A": 1.5, "B": 2.0}
    assert [n for n, _ in got.skipped] == [4, 6]
    assert qgroundcontrol(b"A 1 # c\n").refused == (1, "No valid parameters found in file")


# --------------------------------------------------------------------- all of them


def test_a_plain_name_value_file_means_the_same_to_all_six() -> None:
    data = b"# header\n#\nSERVO1_TRIM 1500\nCRUISE_SPEED 1.5\n\nATC_INPUT_TC 0.1\n"
    expected = {"SERVO1_TRIM": (1500.0, 3), "CRUISE_SPEED": (1.5, 4), "ATC_INPUT_TC": (0.1, 6)}
    for name, load in LOADERS.items():
        assert disagreements(expected, load(data)) == [], name


def test_disagreements_name_the_line_and_the_loader() -> None:
    data = b"SERVO1_TRIM 1500\n" + long_comment(b"SERVO3_TRIM 1510") + b"\n"
    found = disagreements({"SERVO1_TRIM": (1500.0, 1)}, ardupilot_defaults(data))
    assert found == [
        (
            2,
            "ArduPilot defaults reader (sim_vehicle.py --add-param-file) loads SERVO3_TRIM = "
            "1510 (the part from byte 99), which paramdiff does not report",
        )
    ]
    found = disagreements({"A": (1.0, 1)}, qgroundcontrol(b"A 1 # c\n"))
    assert found == [(1, "QGroundControl refuses the file: No valid parameters found in file")]
    found = disagreements({"A": (1.0, 1), "B": (2.0, 2)}, mission_planner(b"A 1.5\n"))
    assert found == [
        (1, "Mission Planner loads A = 1.5, paramdiff reports 1 (line 1)"),
        (2, "Mission Planner does not load B = 2"),
    ]


def test_the_number_grammars_compiled_on_first_use_ignore_case() -> None:
    """.NET's and Qt's grammars (parse.loaders compiles them when a value is not a plain
    number) keep IGNORECASE: INF, Infinity and NaN in any case, exponents."""
    mp = mission_planner(b"A INFINITY\nB -Infinity\nC +.5\nD 1E3\n").values
    assert [v.value for v in mp.values()] == [float("inf"), float("-inf"), 0.5, 1000.0]
    qgc = qgroundcontrol(b"A INF\nB NaN\nC 1e-3\n")
    assert qgc.values["A"].value == float("inf") and qgc.values["C"].value == 0.001
    assert qgc.values["B"].value != qgc.values["B"].value  # NaN
    assert strtof(b" 1.5E2xyz") == 150.0 and strtof(b"abc") == 0.0
