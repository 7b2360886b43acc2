"""Numbers as YAML 1.2 reads them (issue 19 item 3) and integers too long for int()
(item 4): every YAML file paramdiff reads, and every other input that holds an integer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import (
    OVERLAY_YAML,
    SOURCES_YAML,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
    tree_bytes,
)

from paramdiff.config.yamlfile import dump_yaml, load_yaml
from paramdiff.errors import ConfigError

HUGE = "9" * 5000

# (plain scalar, its YAML 1.1 reading as the message shows it, its YAML 1.2 reading, the fix)
DISAGREE = [
    ("0100", "64", "100", "write 100 (or 0o100 for octal)"),
    ("-0100", "-64", "-100", "write -100 (or 0o-100 for octal)"),
    ("1:00", "60", "the text '1:00'", "write 60, or quote it ('1:00') for text"),
    ("1:30:00", "5400", "the text '1:30:00'", "write 5400, or quote it ('1:30:00') for text"),
    ("1_000", "1000", "the text '1_000'", "write 1000, or quote it ('1_000') for text"),
    ("1_000.5", "1000.5", "the text '1_000.5'", "write 1000.5, or quote it ('1_000.5') for text"),
    ("0b101", "5", "the text '0b101'", "write 5, or quote it ('0b101') for text"),
    ("-0x1F", "-31", "the text '-0x1F'", "write -31, or quote it ('-0x1F') for text"),
    ("0x_1F", "31", "the text '0x_1F'", "write 31, or quote it ('0x_1F') for text"),
    ("yes", "true", "the text 'yes'", "write true, or quote it ('yes') for text"),
    ("No", "false", "the text 'No'", "write false, or quote it ('No') for text"),
    ("on", "true", "the text 'on'", "write true, or quote it ('on') for text"),
    ("OFF", "false", "the text 'OFF'", "write false, or quote it ('OFF') for text"),
    ("2026-01-01", "the date 2026-01-01", "the text '2026-01-01'", "quote it ('2026-01-01')"),
]
# What both schemas read alike, or YAML 1.2 reads as a number where 1.1 read text.
AGREE = [
    ("100", 100),
    ("-7", -7),
    ("0", 0),
    ("0x1F", 31),
    ("0o100", 64),
    ("09", 9),
    ("1.5", 1.5),
    ("1e3", 1000.0),
    ("+.inf", float("inf")),
    ("-.inf", float("-inf")),
    ("true", True),
    ("False", False),
    ("~", None),
    ("null", None),
    ("'0100'", "0100"),
    ('"yes"', "yes"),
    ("y", "y"),
]


@pytest.mark.parametrize(("text", "old", "new", "fix"), DISAGREE, ids=[d[0] for d in DISAGREE])
def test_a_form_the_two_schemas_read_differently_is_refused(
    text: str, old: str, new: str, fix: str
) -> None:
    for doc, line in ((f"a: 1\nb: {text}\n", 2), (f"a:\n  - x\n  - {text}\n", 3)):
        with pytest.raises(ConfigError) as err:
            load_yaml(doc.encode(), "overlays/x.yaml")
        assert str(err.value).startswith(f"overlays/x.yaml:{line}: value {text} reads as ")
        assert f" reads as {old} in YAML 1.1 and {new} in YAML 1.2 — {fix}" in str(err.value)


def test_a_key_is_read_by_the_same_rule() -> None:
    with pytest.raises(ConfigError, match=r"x.yaml:2: value on reads as true in YAML 1.1"):
        load_yaml(b"a: 1\non: 2\n", "x.yaml")
    with pytest.raises(ConfigError, match=r"x.yaml:1: value << reads as a merge key in YAML 1.1"):
        load_yaml(b"<<: 1\n", "x.yaml")


@pytest.mark.parametrize(
    "text", ["!!str on", "!!int 0100", "!!float 1_5:0_0", "!!float 0x10", "!!bool 1", "!x 1"]
)
def test_an_explicit_tag_is_refused(text: str) -> None:
    """A tag reads YAML 1.1's way (`!!float 1_5:0_0` is 900) or fails in the constructor:
    paramdiff's files need none."""
    with pytest.raises(ConfigError, match=r"x.yaml:2: YAML tag '.+' is not allowed — write"):
        load_yaml(f"a: 1\nb: {text}\n".encode(), "x.yaml")


@pytest.mark.parametrize(("text", "value"), AGREE, ids=[a[0] for a in AGREE])
def test_core_schema_readings(text: str, value: object) -> None:
    got = load_yaml(f"a: {text}\n".encode(), "x.yaml").data["a"]
    assert got == value and type(got) is type(value)


def test_nan_reads_as_nan() -> None:
    got = load_yaml(b"a: .nan\n", "x.yaml").data["a"]
    assert got != got


@pytest.mark.parametrize("text", [HUGE, f"-{HUGE}", "1" * 101, f"0o{'7' * 200}", f"0x{'f' * 200}"])
def test_an_integer_past_the_digit_bound_is_an_input_error(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_yaml(f"a: 1\nb: {text}\n".encode(), "x.yaml")
    assert re.fullmatch(
        r"x\.yaml:2: integer of \d+ digits is longer than any number paramdiff reads \(at most "
        r"100 digits\) — check the value; no number in these files needs that many digits",
        str(err.value),
    )


def test_an_integer_at_the_digit_bound_is_read() -> None:
    assert load_yaml(f"a: {'1' * 100}\n".encode(), "x.yaml").data["a"] == int("1" * 100)


def test_what_paramdiff_writes_reads_back_the_same() -> None:
    """The lock writer quotes every string either schema would take for something else (a
    commit of digits and one 'e' is a float in YAML 1.2; '0189' an int)."""
    data = {
        "commit": "1234567e89",
        "octal": "0100",
        "digits": "0189",
        "clock": "1:00",
        "word": "yes",
        "date": "2026-01-01",
        "n": 100,
        "f": 1e20,
        "b": True,
    }
    text = dump_yaml(data)
    assert load_yaml(text.encode(), "x.yaml").data == data


# ------------------------------------------------------------------ through the CLI


@pytest.fixture()
def project(tmp_path: Path) -> tuple[Path, list[str]]:
    build_mirror(tmp_path / "mirror", small_upstream())
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(SOURCES_YAML)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    assert run_cli(["fetch", *loc]).exit_code == 0
    assert run_cli(["derive", *loc]).exit_code == 0
    return root, loc


def _one_error(args: list[str], root: Path, expected: str) -> None:
    before = tree_bytes(root)
    result = run_cli(args)
    assert result.exit_code == 2, result.output
    assert result.output.count("Error:") == 1
    assert re.fullmatch(expected, result.output.rstrip("\n")), result.output
    assert "Traceback" not in result.output
    assert tree_bytes(root) == before


OVERLAY_CASES = [
    ("value: 1500", "value: 0100", r"overlays/boat\.yaml:13: value 0100 reads as 64 .*"),
    ("value: 1500", "value: 1:00", r"overlays/boat\.yaml:13: value 1:00 reads as 60 .*"),
    ("value: 1500", "value: 1_500", r"overlays/boat\.yaml:13: value 1_500 reads as 1500 .*"),
    ("value: 1500", f"value: {HUGE}", r"overlays/boat\.yaml:13: integer of 5000 digits .*"),
    ("was: 1510", f"was: {HUGE}", r"overlays/boat\.yaml:14: integer of 5000 digits .*"),
    ("was: 1510", f"was: -{HUGE}", r"overlays/boat\.yaml:14: integer of 5000 digits .*"),
    ("version: 1", f"version: {HUGE}", r"overlays/boat\.yaml:1: integer of 5000 digits .*"),
]


@pytest.mark.parametrize(("old", "new", "expected"), OVERLAY_CASES)
def test_overlay_numbers(
    old: str, new: str, expected: str, project: tuple[Path, list[str]]
) -> None:
    root, loc = project
    path = root / "overlays" / "boat.yaml"
    path.write_text(path.read_text().replace(old, new, 1))
    for command in ("derive", "check"):
        _one_error([command, *loc], root, f"Error: {expected}")


SOURCES_CASES = [
    ("version: 1", f"version: {HUGE}", r"sources\.yaml:1: integer of 5000 digits .*"),
    ("motor_port_joint: 73", f"motor_port_joint: {HUGE}", r"sources\.yaml:16: integer of 5000 .*"),
    ("motor_port_joint: 73", "motor_port_joint: 0111", r"sources\.yaml:16: value 0111 .*"),
    ('"1.0":', "1:00:", r"sources\.yaml:23: value 1:00 reads as 60 .*"),
]


@pytest.mark.parametrize(("old", "new", "expected"), SOURCES_CASES)
def test_sources_yaml_numbers(
    old: str, new: str, expected: str, project: tuple[Path, list[str]]
) -> None:
    root, loc = project
    path = root / "sources.yaml"
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new, 1))
    for command in ("fetch", "check", "derive"):
        _one_error([command, *loc], root, f"Error: {expected}")


LOCK_CASES = [
    ("size: 472", f"size: {HUGE}", r"sources\.lock:\d+: integer of 5000 digits .*"),
    ("version: 1", f"version: {HUGE}", r"sources\.lock:\d+: integer of 5000 digits .*"),
    ("size: 472", "size: 0730", r"sources\.lock:\d+: value 0730 reads as 472 in YAML 1\.1.*"),
    ("size: 472", "size: 4_72", r"sources\.lock:\d+: value 4_72 reads as 472 in YAML 1\.1.*"),
]


@pytest.mark.parametrize(("old", "new", "expected"), LOCK_CASES)
def test_lock_numbers(old: str, new: str, expected: str, project: tuple[Path, list[str]]) -> None:
    root, loc = project
    path = root / "sources.lock"
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new, 1))
    for command in ("check", "derive", "fetch"):
        _one_error([command, *loc], root, f"Error: {expected}")


def test_param_files_with_a_5000_digit_integer(tmp_path: Path) -> None:
    cases = {
        "value.params": (f"WP_RADIUS {HUGE}\n", r"value\.params:1: WP_RADIUS: value .*"),
        "mp.params": (f"WP_RADIUS,{HUGE}\n", r"mp\.params:1: WP_RADIUS: value .*"),
        "qgc_type.params": (
            f"# Onboard parameters for Vehicle 1\n1\t1\tWP_RADIUS\t2\t{HUGE}\n",
            r"qgc_type\.params:2: TYPE '9{80}… \(5000 characters\)' is not a MAV_PARAM_TYPE .*",
        ),
        "qgc_value.params": (
            f"# Onboard parameters for Vehicle 1\n1\t1\tWP_RADIUS\t{HUGE}\t9\n",
            r"qgc_value\.params:2: WP_RADIUS: value .*",
        ),
        "blueos.params": (f"WP_RADIUS: {HUGE},\n", r"blueos\.params:1: WP_RADIUS: value .*"),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        result = run_cli(["show", str(path)])
        assert result.exit_code == 2, result.output
        assert result.output.count("Error:") == 1
        assert re.fullmatch(f"Error: .*{expected}", result.output.rstrip("\n")), result.output
