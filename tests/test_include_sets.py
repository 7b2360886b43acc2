"""BlueOS include sets as roles (#31): ``format: auto`` on a file that ``%include``s pins
its includes like ``format: blueos`` does; ``format: params`` on one says it is BlueOS's
format; an included file of ``NAME VALUE`` lines is read as BlueOS reads it; a ``file:``
role with a local ``%include`` pins the included file too, verified like the rest."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    HW,
    OVERLAY_YAML,
    SOURCES_YAML,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
)

from paramdiff.config.lock import parse_lock
from paramdiff.digests import sha256_of

TOP = b'%include "../board/hw.params"\n'
HW_ROLE = (
    "        hardware: {repo: acme/params, ref: master, path: boats/hw.params, format: params}\n"
)


def include_project(tmp_path: Path, role: str) -> tuple[Path, list[str]]:
    upstream = small_upstream()
    files = upstream["acme/params"]["files"]
    for commit in files.values():  # type: ignore[union-attr]
        commit["boats/top.params"] = TOP  # type: ignore[index]
        commit["board/hw.params"] = HW  # type: ignore[index]
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    assert HW_ROLE in SOURCES_YAML
    (root / "sources.yaml").write_text(SOURCES_YAML.replace(HW_ROLE, role))
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", upstream)
    return root, location_args(root, tmp_path / "cache", tmp_path / "mirror")


def role(fmt: str) -> str:
    spec = f"repo: acme/params, ref: master, path: boats/top.params, format: {fmt}"
    return f"        hardware: {{{spec}}}\n"


@pytest.mark.parametrize("fmt", ["auto", "blueos"])
def test_an_include_set_pins_its_includes_and_every_command_reads_them(
    tmp_path: Path, fmt: str
) -> None:
    root, loc = include_project(tmp_path, role(fmt))
    for command in ("fetch", "derive", "report", "check"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, (command, result.output)
    entry = parse_lock((root / "sources.lock").read_bytes()).get("boat", "1.0", "hardware")
    assert entry is not None
    assert [(i.path, i.sha256) for i in entry.includes] == [("board/hw.params", sha256_of(HW))]
    result = run_cli(["compare", "three-way", *loc])
    assert result.exit_code in (0, 1), result.output
    assert "Error" not in result.output


def test_an_include_set_read_as_plain_params_names_the_format(tmp_path: Path) -> None:
    _, loc = include_project(tmp_path, role("params"))
    assert run_cli(["fetch", *loc]).exit_code == 0
    result = run_cli(["derive", *loc])
    assert result.exit_code == 2, result.output
    errors = [ln for ln in result.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, result.output
    assert "boats/top.params:1:" in errors[0]
    assert "BlueOS" in errors[0] and "format: blueos" in errors[0]
    assert "correct the name" not in errors[0]


FIELD_ROLE = "        field: {file: field/top.params, format: blueos}\n"


def field_project(tmp_path: Path) -> tuple[Path, list[str]]:
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    yaml = SOURCES_YAML.replace("        calibration: {", FIELD_ROLE + "        calibration: {")
    (root / "sources.yaml").write_text(yaml)
    (root / "overlays" / "boat.yaml").write_text(
        OVERLAY_YAML.replace("base: hardware", "base: field")
    )
    (root / "field").mkdir()
    (root / "field" / "top.params").write_text('%include "base.params"\n// the boat\n')
    (root / "field" / "base.params").write_bytes(HW)
    build_mirror(tmp_path / "mirror", small_upstream())
    return root, location_args(root, tmp_path / "cache", tmp_path / "mirror")


def test_a_file_role_with_a_local_include_is_pinned_with_it(tmp_path: Path) -> None:
    root, loc = field_project(tmp_path)
    for command in ("fetch", "derive", "report", "check"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, (command, result.output)
    entry = parse_lock((root / "sources.lock").read_bytes()).get("boat", "1.0", "field")
    assert entry is not None
    assert [(i.path, i.sha256) for i in entry.includes] == [("field/base.params", sha256_of(HW))]
    # the included file edited after the lock pinned it: named, never used
    (root / "field" / "base.params").write_bytes(HW.replace(b"1510", b"1511"))
    for command in ("derive", "check"):
        result = run_cli([command, *loc])
        assert result.exit_code == 2, (command, result.output)
        assert "field/base.params" in result.output and "changed after" in result.output


def test_o_never_writes_over_a_locked_include(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An include of a file: role is an input pinned in the lock, as the role's file is: -o
    may not name it (derive -o field/base.params wrote over it; #30 review 6)."""
    root, loc = field_project(tmp_path)
    assert run_cli(["fetch", *loc]).exit_code == 0
    monkeypatch.chdir(root)
    before = (root / "field" / "base.params").read_bytes()
    result = run_cli(["derive", *loc, "-o", "field/base.params"])
    assert result.exit_code == 2, result.output
    assert "includes, an input" in result.output
    assert (root / "field" / "base.params").read_bytes() == before


def test_a_local_include_may_not_leave_the_project(tmp_path: Path) -> None:
    root, loc = field_project(tmp_path)
    (tmp_path / "secret.params").write_text("TOKEN_SECRET 1\n")
    (root / "field" / "base.params").unlink()
    (root / "field" / "base.params").symlink_to(tmp_path / "secret.params")
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 2, result.output
    assert "outside the project" in result.output and "TOKEN_SECRET" not in result.output


def test_the_real_blueboat_navigator64_include_set_as_auto(tmp_path: Path, upstream: Path) -> None:
    """The issue's case: blueboat 4.7's hardware as Navigator64/BlueBoat120.params (one
    ``%include "../Navigator/BlueBoat120.params"``) with ``format: auto``: fetch pins the
    included file, derive gives the committed parameter lines (the same values)."""
    import shutil

    from helpers import ROOT

    for name in ("sources.yaml", "sources.lock", "overlays", "derived", "reports"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / name)
    loc = location_args(tmp_path, tmp_path / ".cache", upstream)
    yaml = (tmp_path / "sources.yaml").read_text()
    old = "ArduRover/4.7/Navigator/BlueBoat120.params\n          format: params"
    assert old in yaml
    new = "ArduRover/4.7/Navigator64/BlueBoat120.params\n          format: auto"
    (tmp_path / "sources.yaml").write_text(yaml.replace(old, new, 1))
    pin = ["--profile", "blueboat", "--pin", "4.7"]
    assert run_cli(["fetch", *pin, *loc]).exit_code == 0
    entry = parse_lock((tmp_path / "sources.lock").read_bytes()).get("blueboat", "4.7", "hardware")
    assert entry is not None
    assert [i.path for i in entry.includes] == [
        "params/ardupilot/ArduRover/4.7/Navigator/BlueBoat120.params"
    ]
    result = run_cli(["derive", *pin, "-o", str(tmp_path / "d.params"), *loc])
    assert result.exit_code == 0, result.output
    body = [ln for ln in (tmp_path / "d.params").read_text().splitlines() if ln[:1].isalpha()]
    committed = (ROOT / "derived" / "blueboat_sitl.params").read_text().splitlines()
    assert body == [ln for ln in committed if ln[:1].isalpha()]
    three_way = run_cli(["compare", "three-way", *pin, *loc])
    assert three_way.exit_code in (0, 1) and "Error:" not in three_way.output
