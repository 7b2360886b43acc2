"""MAVLink types for QGC export: the declared-type table, its lookup and the writer."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, location_args, run_cli

from paramdiff.errors import InputError
from paramdiff.model.mavtypes import expand, packaged_types, parse_type_table, qgc_types
from paramdiff.model.params import Param
from paramdiff.parse.param_text import parse_params, write_rows

SRC = "ArduPilot/ardupilot@" + "a" * 40 + ":libraries/X/X.h"
SMALL = (
    "# comment\n"
    f"SERVO{{1..3}}_MIN\t4\tAP_Int16\t{SRC}\n"
    f"SERVO{{1..3}}_REVERSED\t2\tAP_Int8\t{SRC}\n"
    f"CRUISE_SPEED\t9\tAP_Float\t{SRC}\n"
)


def test_expand_a_range_pattern() -> None:
    assert expand("SERVO{1..3}_MIN") == ["SERVO1_MIN", "SERVO2_MIN", "SERVO3_MIN"]
    assert expand("CRUISE_SPEED") == ["CRUISE_SPEED"]


def test_lookup_gives_type_declaration_and_source() -> None:
    table = parse_type_table(SMALL, "t.tsv")
    assert len(table) == 7
    row = table.lookup("SERVO2_REVERSED")
    assert row is not None
    assert (row.mav_type, row.declared, row.source, row.line) == (2, "AP_Int8", SRC, 3)
    assert table.lookup("SERVO4_MIN") is None


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("A\t9\tAP_Float", "3 tab-separated columns, expected 4"),
        (f"A\t6\tAP_Int16\t{SRC}", "AP_Int16 is sent as MAV_PARAM_TYPE 4, not '6'"),
        (f"A\t9\tfloat\t{SRC}", "unknown declared type 'float'"),
        ("A\t9\tAP_Float\tsomewhere", "source 'somewhere' is not owner/repo@COMMIT:PATH"),
        (f"a_b\t9\tAP_Float\t{SRC}", "'a_b' is not a parameter name"),
        (f"CRUISE_SPEED\t9\tAP_Float\t{SRC}", "CRUISE_SPEED is already typed at line 4"),
    ],
)
def test_a_bad_row_is_an_input_error_naming_its_line(row: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_type_table(SMALL + row + "\n", "t.tsv")
    assert str(err.value).startswith(f"t.tsv:5: {message}")


def test_packaged_table_has_the_servo_and_cruise_declarations() -> None:
    table = packaged_types()
    expected = {"FUNCTION": 4, "MIN": 4, "MAX": 4, "TRIM": 4, "REVERSED": 2}
    for n in (1, 16, 32):
        for field, mav_type in expected.items():
            row = table.lookup(f"SERVO{n}_{field}")
            assert row is not None and row.mav_type == mav_type, (n, field)
    cruise = table.lookup("CRUISE_SPEED")
    assert cruise is not None and (cruise.mav_type, cruise.declared) == (9, "AP_Float")
    assert cruise.source.startswith("ArduPilot/ardupilot@")


def test_type_follows_the_name_not_the_value() -> None:
    table = parse_type_table(SMALL, "t.tsv")
    rows = [Param("CRUISE_SPEED", 1.0, "1", "f", 1), Param("SERVO1_MIN", 1100.0, "1100", "f", 2)]
    assert qgc_types(rows, table).types == {"CRUISE_SPEED": 9, "SERVO1_MIN": 4}
    delta = [Param("CRUISE_SPEED", 1.5, "1.5", "f", 1)]
    assert qgc_types(delta, table).types == {"CRUISE_SPEED": 9}


def test_a_row_that_states_its_type_keeps_it() -> None:
    table = parse_type_table(SMALL, "t.tsv")
    dumped = [Param("SERVO1_MIN", 1100.0, "1100", "f", 1, mav_type=3)]
    assert qgc_types(dumped, table).types == {"SERVO1_MIN": 3}


def test_unknown_names_are_listed_in_the_warning() -> None:
    table = parse_type_table(SMALL, "t.tsv")
    typing = qgc_types([Param("NOT_TYPED", 2.0, "2", "f", 1)], table)
    assert typing.unknown == ("NOT_TYPED",)
    warning = typing.warning()
    assert warning is not None and "NOT_TYPED" in warning
    assert qgc_types([Param("CRUISE_SPEED", 1.0, "1", "f", 1)], table).warning() is None


def test_writer_uses_the_given_types() -> None:
    rows = [Param("CRUISE_SPEED", 1.0, "1", "f", 1), Param("SERVO1_REVERSED", 0.0, "0", "f", 2)]
    lines = list(write_rows(rows, "qgc", {"CRUISE_SPEED": 9, "SERVO1_REVERSED": 2}))
    assert lines == ["1\t1\tCRUISE_SPEED\t1\t9", "1\t1\tSERVO1_REVERSED\t0\t2"]


def test_show_as_qgc_types_rows_and_warns_on_stderr(tmp_path: Path) -> None:
    f = tmp_path / "boat.params"
    f.write_text("CRUISE_SPEED 1\nSERVO1_TRIM 1500\nSERVO1_REVERSED 0\nNOT_A_REAL_PARAM 3\n")
    result = run_cli(["show", str(f), "--as", "qgc"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "1\t1\tCRUISE_SPEED\t1\t9",
        "1\t1\tSERVO1_TRIM\t1500\t4",
        "1\t1\tSERVO1_REVERSED\t0\t2",
        "1\t1\tNOT_A_REAL_PARAM\t3\t6",
    ]
    assert result.stderr == (
        "warning: 1 row(s) of this file carry a guessed type: paramdiff does not know their "
        "declared type, so it guessed it from the value (INT32 if integral, else REAL32): "
        "NOT_A_REAL_PARAM — QGroundControl uses the vehicle's own type for a parameter the "
        "vehicle has, but sends one it does not have yet with this guess: set such a parameter "
        "in QGC by hand; report the names to paramdiff's maintainers to have their types added\n"
    )
    again = parse_params(result.stdout.encode(), "out", "qgc")
    assert again.params["SERVO1_TRIM"].mav_type == 4


# --------------------------------------------------------------------------- real mirror


def test_derive_qgc_writes_the_declared_types(upstream: Path, tmp_path: Path) -> None:
    out = tmp_path / "blueboat.qgc"
    loc = location_args(ROOT, tmp_path / "cache", upstream)
    args = ["derive", "--profile", "blueboat", "--format", "qgc", "-o", str(out), *loc]
    result = run_cli(args)
    assert result.exit_code == 0, result.output
    types = {
        f[2]: int(f[4])
        for f in (ln.split("\t") for ln in out.read_text().splitlines())
        if len(f) == 5
    }
    for n in range(1, 17):
        assert types[f"SERVO{n}_FUNCTION"] == 4
        assert types[f"SERVO{n}_MIN"] == types[f"SERVO{n}_MAX"] == types[f"SERVO{n}_TRIM"] == 4
        assert types[f"SERVO{n}_REVERSED"] == 2
    assert types["CRUISE_SPEED"] == 9
    # Names without a declaration are named on stderr, not guessed in silence: one line,
    # ten names and how many more (what the user can do, not the package's data file).
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("warning:")]
    assert warnings[0].startswith("warning: 78 row(s) of this file carry a guessed type")
    assert len(warnings) == 1 and "(+68 more) — QGroundControl uses the vehicle's" in warnings[0]
    assert "param_types.tsv" not in result.stderr
    untyped = result.stderr.split("REAL32): ", 1)[1].split(" (+", 1)[0].split(", ")
    assert len(untyped) == 10 and "CRUISE_SPEED" not in untyped and "SERVO1_TRIM" not in untyped


BLUEBOAT_42_DUMP = (
    "raw/bluerobotics/Blueos-Parameter-Repository/c331bf1c7988e4c3f14dc07099b28020bde2748b/"
    "params/ardupilot/ArduRover/4.2/Navigator/BlueBoat120.params"
)


def test_table_agrees_with_a_real_qgc_dump(upstream: Path) -> None:
    """Blue Robotics' first BlueBoat set is a QGC export from a vehicle (ArduRover 4.2.3): the
    types it records are what that firmware sent. Every name both know must agree."""
    dump = parse_params((upstream / BLUEBOAT_42_DUMP).read_bytes(), "dump", "qgc")
    table = packaged_types()
    both = [p for p in dump.params.values() if table.lookup(p.name) is not None]
    assert len(both) > 200
    disagree = {
        p.name: (p.mav_type, table.lookup(p.name).mav_type)  # type: ignore[union-attr]
        for p in both
        if p.mav_type != table.lookup(p.name).mav_type  # type: ignore[union-attr]
    }
    assert disagree == {}
