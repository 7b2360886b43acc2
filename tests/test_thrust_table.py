"""The thrust_table role format: the maker's xlsx (one sheet a voltage) and a bench CSV."""

from __future__ import annotations

import io
from pathlib import Path

import openpyxl
import pytest

from paramdiff.errors import InputError
from paramdiff.parse.thrust_table import G0, parse_thrust_table

T200 = (
    "raw/MateusPedrosa/BlueROV_practical/9970d288997c1a806b29dd4d9a296d82dcd89d32/"
    "T200-Public-Performance-Data-10-20V-September-2019.xlsx"
)


def workbook(sheets: dict[str, list[tuple[float, float]]], force: str = " Force (Kg f)") -> bytes:
    """An xlsx laid out like Blue Robotics' (stray leading spaces in the headers)."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        sheet.append([" PWM (µs)", " RPM", force])
        for pwm, kgf in rows:
            sheet.append([pwm, 0, kgf])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


ROWS_12 = [(1100, -2.0), (1500, 0.0), (1900, 3.0)]
ROWS_16 = [(1100, -4.0), (1500, 0.0), (1900, 5.0)]


def test_a_sheet_at_the_voltage_is_read_in_newtons() -> None:
    curve = parse_thrust_table(workbook({"12 V": ROWS_12, "16 V": ROWS_16}), "t.xlsx", 16)
    assert curve.pwm_us == (1100, 1500, 1900)
    assert curve.thrust_n == pytest.approx((-4 * G0, 0, 5 * G0))
    assert curve.how == "sheet '16 V' of t.xlsx"


def test_between_two_sheets_the_curve_is_interpolated_and_says_so() -> None:
    curve = parse_thrust_table(workbook({"12 V": ROWS_12, "16 V": ROWS_16}), "t.xlsx", 13)
    assert curve.thrust_n == pytest.approx((-2.5 * G0, 0, 3.5 * G0))
    assert "interpolated linearly between sheets '12 V' and '16 V'" in curve.how


@pytest.mark.parametrize(
    ("data", "voltage", "what", "line"),
    [
        (workbook({"12 V": ROWS_12}), 20, "no sheet at or around 20 V", 1),
        (workbook({"12 V": [(1100, 1), (1500, 2), (1400, 3)]}), 12, "does not rise", 4),
        (workbook({"12 V": ROWS_12}, force="Force (lbf)"), 12, "cannot tell the units", 1),
        (workbook({"12 V": ROWS_12})[:500], 12, "not a readable xlsx workbook", 1),
        (b"pwm,thrust\n1100,1\n", 12, "cannot tell the columns or units", 1),
        (b"pwm_us,thrust_n\n1100,1\n1100,2\n", 12, "does not rise", 3),
        (b"pwm_us,thrust_n\n1100,x\n", 12, "is not a PWM width and a thrust", 2),
        (b"pwm_us,thrust_n\n1100,1\n1700,nan\n", 12, "is not a PWM width and a thrust", 3),
        (b"pwm_us,thrust_n\nnan,1\n1700,2\n", 12, "is not a PWM width and a thrust", 2),
        (b"pwm_us,thrust_n\n1100,1\n1900,inf\n", 12, "is not a PWM width and a thrust", 3),
        # milliseconds for microseconds; a flipped sign (#27 review: both derived a model)
        (b"pwm_us,thrust_n\n1.1,-30\n1.5,0\n1.9,40\n", 12, "no PWM width inside 800–2200", 2),
        (b"pwm_us,thrust_n\n1100,30\n1500,0\n1900,-40\n", 12, "sign is flipped", 4),
        (workbook({"12 V": [(1100, 2.0), (1500, 0.0), (1900, -3.0)]}), 12, "sign is flipped", 4),
    ],
)
def test_a_table_it_cannot_trust_is_refused_with_its_line(
    data: bytes, voltage: float, what: str, line: int
) -> None:
    with pytest.raises(InputError) as caught:
        parse_thrust_table(data, "t.xlsx", voltage)
    assert what in caught.value.what
    assert caught.value.line == line


def test_bench_csv_in_newtons_or_kgf() -> None:
    newtons = parse_thrust_table(b"pwm_us,thrust_n\n1100,-30\n1500,0\n1900,40\n", "b.csv", 16)
    assert newtons.thrust_n == (-30, 0, 40)
    kgf = parse_thrust_table(b"# bench, 2026\npwm_us,thrust_kgf\n1100,-1\n1900,2\n", "b.csv", 16)
    assert kgf.thrust_n == pytest.approx((-G0, 2 * G0))


def test_the_t200_workbook_at_16_v(upstream: Path) -> None:
    curve = parse_thrust_table((upstream / T200).read_bytes(), "t200.xlsx", 16)
    assert len(curve.pwm_us) == 201
    assert (curve.pwm_us[0], curve.pwm_us[-1]) == (1100, 1900)
    assert max(curve.thrust_n) == pytest.approx(51.44, abs=0.01)
    assert min(curve.thrust_n) == pytest.approx(-39.91, abs=0.01)


THRUSTERS_YAML = """version: 1
profiles:
  boat:
    thrusters: {thrusters}
    pins:
      "1":
        hardware: {{repo: o/r, ref: master, path: a.params, format: params}}
        t200: {{repo: o/r, ref: master, path: t.xlsx, format: thrust_table}}
"""


@pytest.mark.parametrize(
    ("thrusters", "what"),
    [
        ("{role: hardware, voltage: 16, voltage_reason: x}", "not a thrust_table role"),
        ("{role: t200, voltage: -1, voltage_reason: x}", "is not a number of volts"),
        ("{role: t200, voltage: 16}", "voltage_reason"),
        ("{role: t200, voltage: 16, voltage_reason: x, model: sources.yaml}", "must not write"),
        (
            "{role: t200, voltage: 16, voltage_reason: x, model: derived/boat_sitl.params}",
            "derive would write SDF over another kind of file",
        ),
    ],
)
def test_a_bad_thrusters_block_is_refused_on_its_line(
    tmp_path: Path, thrusters: str, what: str
) -> None:
    from paramdiff.config.sources import parse_config

    data = THRUSTERS_YAML.format(thrusters=thrusters).encode()
    with pytest.raises(InputError) as caught:
        parse_config(data, "sources.yaml", tmp_path)
    assert what in str(caught.value)
    assert caught.value.line == 4


def test_a_thrusters_block_is_read(tmp_path: Path) -> None:
    from paramdiff.config.sources import parse_config

    block = "{role: t200, voltage: 14.8, voltage_reason: 4S nominal, model: out/m.sdf}"
    config = parse_config(THRUSTERS_YAML.format(thrusters=block).encode(), "sources.yaml", tmp_path)
    thrusters = config.profile("boat").thrusters
    assert thrusters is not None
    assert (thrusters.role, thrusters.voltage, thrusters.model) == ("t200", 14.8, "out/m.sdf")
