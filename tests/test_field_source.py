"""A file of the project's own repository as a role (``file:``): the team's dump of its
boat pinned in the lock, derived from, and guarded by check."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import HW, OVERLAY_YAML, SOURCES_YAML, location_args, run_cli

from paramdiff.config.lock import parse_lock
from paramdiff.digests import git_blob_id, sha256_of

FIELD = HW.replace(b"SERVO1_TRIM      1510", b"SERVO1_TRIM      1512")
FIELD_ROLE = "        field: {file: field/boat7.params, format: params}\n"


def _field_project(project: Path) -> Path:
    yaml = SOURCES_YAML.replace("        calibration: {", FIELD_ROLE + "        calibration: {")
    (project / "sources.yaml").write_text(yaml)
    (project / "overlays" / "boat.yaml").write_text(
        OVERLAY_YAML.replace("base: hardware", "base: field")
    )
    (project / "field").mkdir()
    (project / "field" / "boat7.params").write_bytes(FIELD)
    return project


@pytest.fixture
def field(project: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    return _field_project(project), location_args(project, tmp_path / "c", tmp_path / "mirror")


def test_fetch_pins_the_file_by_size_and_digests(field: tuple[Path, list[str]]) -> None:
    root, loc = field
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 0, result.output
    assert "this repository" in result.output
    lock = parse_lock((root / "sources.lock").read_bytes())
    entry = lock.get("boat", "1.0", "field")
    assert entry is not None and entry.is_local
    assert (entry.path, entry.size) == ("field/boat7.params", len(FIELD))
    assert (entry.sha256, entry.blob) == (sha256_of(FIELD), git_blob_id(FIELD))
    text = (root / "sources.lock").read_text()
    assert "file: field/boat7.params" in text and "commit: ''" not in text
    # the blob id is git's own: what `git hash-object` says of the file
    git = subprocess.run(
        ["git", "hash-object", str(root / "field" / "boat7.params")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert git.stdout.strip() == entry.blob


def test_a_stale_delta_shows_where_the_boat_differs_from_the_factory(
    field: tuple[Path, list[str]],
) -> None:
    _root, loc = field
    assert run_cli(["fetch", *loc]).exit_code == 0
    result = run_cli(["derive", *loc])
    assert result.exit_code == 2
    assert "SERVO1_TRIM" in result.output and "1512" in result.output
    assert "1510" in result.output


def test_derive_from_the_field_dump(field: tuple[Path, list[str]]) -> None:
    root, loc = field
    overlay = root / "overlays" / "boat.yaml"
    overlay.write_text(overlay.read_text().replace("was: 1510", "was: 1512"))
    assert run_cli(["fetch", *loc]).exit_code == 0
    result = run_cli(["derive", *loc])
    assert result.exit_code == 0, result.output
    derived = (root / "derived" / "boat_sitl.params").read_text()
    assert "field (values): this repository; version 4.7.0-BETA" in derived
    assert "    field/boat7.params" in derived
    assert f"sha256 {sha256_of(FIELD)}" in derived
    lines = derived.splitlines()
    assert not any(line.startswith("COMPASS_OFS_X") for line in lines)  # its calibration
    assert "SERVO1_TRIM 1500" in lines  # the delta, over the field's 1512
    assert run_cli(["report", *loc]).exit_code == 0
    report = (root / "reports" / "boat-1.0.md").read_text()
    assert "| field | this repository | `field/boat7.params` |" in report
    assert run_cli(["check", *loc]).exit_code == 0


def test_check_names_a_dump_edited_after_the_lock(field: tuple[Path, list[str]]) -> None:
    root, loc = field
    overlay = root / "overlays" / "boat.yaml"
    overlay.write_text(overlay.read_text().replace("was: 1510", "was: 1512"))
    for command in ("fetch", "derive", "report"):
        assert run_cli([command, *loc]).exit_code == 0
    dump = root / "field" / "boat7.params"
    dump.write_bytes(FIELD.replace(b"WP_RADIUS        1", b"WP_RADIUS        3"))
    for command in (["check"], ["derive", "--check"], ["compare", "pins", "1.0", "1.0"]):
        result = run_cli([*command, *loc, *(["--role", "field"] if "pins" in command else [])])
        assert result.exit_code == 2, (command, result.output)
        assert "field/boat7.params: changed after sources.lock pinned it" in result.output
        assert "paramdiff fetch" in result.output
    assert run_cli(["fetch", *loc]).exit_code == 0  # pinned again, on purpose
    assert run_cli(["derive", "--check", *loc]).exit_code == 1  # and the derived file moved


@pytest.mark.parametrize(
    ("role", "message"),
    [
        ("{file: sources.lock}", "paramdiff's own file"),
        ("{file: .git/config}", "paramdiff's own file"),
        ("{file: ../outside.params}", ""),
        ("{file: field/boat7.params, repo: acme/params}", "repo"),
        ("{file: ./sources.lock}", "write it as 'sources.lock'"),
        ("{file: 'field/boat7.params/'}", "write it as 'field/boat7.params'"),
        ("{file: overlays/boat.yaml}", "profile boat's overlay, not a parameter set"),
        ("{file: derived/boat_sitl.params}", "profile boat's derived file"),
        ("{file: reports/boat-1.0.md}", "profile boat's report"),
    ],
)
def test_a_file_role_must_be_a_parameter_file_of_this_repository(
    field: tuple[Path, list[str]], role: str, message: str
) -> None:
    root, loc = field
    yaml = (
        (root / "sources.yaml")
        .read_text()
        .replace("{file: field/boat7.params, format: params}", role)
    )
    (root / "sources.yaml").write_text(yaml)
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 2
    assert result.output.startswith("Error: sources.yaml:")
    assert message in result.output


def test_a_missing_dump_is_one_error_line(field: tuple[Path, list[str]]) -> None:
    root, loc = field
    (root / "field" / "boat7.params").unlink()
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 2
    assert "field/boat7.params" in result.output
    assert "Traceback" not in result.output


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_history_of_a_dump_is_this_repositorys_git_log(field: tuple[Path, list[str]]) -> None:
    root, loc = field
    result = run_cli(["history", "SERVO1_TRIM", "--role", "field", *loc])
    assert result.exit_code == 2 and "is not in a git repository" in result.output
    _git(root, "init", "-q")
    result = run_cli(["history", "SERVO1_TRIM", "--role", "field", *loc])
    assert (
        result.exit_code == 2 and "lists no commit that changed field/boat7.params" in result.output
    )
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "boat 7 as delivered")
    dump = root / "field" / "boat7.params"
    dump.write_bytes(FIELD.replace(b"SERVO1_TRIM      1512", b"SERVO1_TRIM      1515"))
    _git(root, "commit", "-q", "-am", "boat 7 after the season")
    assert run_cli(["fetch", *loc]).exit_code == 0
    result = run_cli(["history", "SERVO1_TRIM", "--role", "field", *loc])
    assert result.exit_code == 0, result.output
    rows = result.output.splitlines()[2:]
    assert "boat 7 as delivered" in rows[0] and "SERVO1_TRIM=1512" in rows[0]
    assert "boat 7 after the season" in rows[1] and "SERVO1_TRIM=1515" in rows[1]


# --------------------------------------------------------------------------- the real pins


def test_the_real_blueboat_derived_from_a_qgc_field_dump(tmp_path: Path, upstream: Path) -> None:
    """BlueBoat120.params as QGroundControl would save it off boat 7 (its trim 1512, a boot
    counter), as the blueboat overlay's base: calibration out, the trim deltas stale."""
    from helpers import ROOT

    mirror = upstream
    for name in ("sources.yaml", "sources.lock", "overlays", "derived", "reports"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / name)
    loc = location_args(tmp_path, tmp_path / ".cache", mirror)
    hardware = (
        mirror
        / "raw/bluerobotics/Blueos-Parameter-Repository"
        / "d0aedc92e37187df5366c0dd9a6b9fc876d518c5"  # the commit sources.lock pins
        / "params/ardupilot/ArduRover/4.7/Navigator/BlueBoat120.params"
    )
    shown = run_cli(["show", str(hardware), "--as", "qgc"])
    assert shown.exit_code == 0, shown.output
    dump = shown.stdout.replace("\tSERVO1_TRIM\t1510\t", "\tSERVO1_TRIM\t1512\t")
    assert dump != shown.stdout
    (tmp_path / "field").mkdir()
    (tmp_path / "field" / "boat7.qgc").write_text(
        "# Onboard parameters for Vehicle 1\n# Vehicle-Id Component-Id Name Value Type\n" + dump
    )
    yaml = (tmp_path / "sources.yaml").read_text()
    role = '        field: {file: field/boat7.qgc, format: qgc, firmware: "4.7"}\n'
    yaml = yaml.replace(
        '      "4.7":\n        hardware:', f'      "4.7":\n{role}        hardware:', 1
    )
    (tmp_path / "sources.yaml").write_text(yaml)
    overlay = tmp_path / "overlays" / "blueboat_sitl.yaml"
    overlay.write_text(overlay.read_text().replace("base: hardware", "base: field"))
    assert run_cli(["fetch", "--profile", "blueboat", "--pin", "4.7", *loc]).exit_code == 0
    stale = run_cli(["derive", "--profile", "blueboat", *loc])
    assert stale.exit_code == 2
    assert "SERVO1_TRIM" in stale.output and "1512" in stale.output
    overlay.write_text(
        overlay.read_text().replace(
            "was: 1510\n    reason: >-\n      1510", "was: 1512\n    reason: >-\n      1510", 1
        )
    )
    result = run_cli(["derive", "--profile", "blueboat", "-o", str(tmp_path / "f.params"), *loc])
    assert result.exit_code == 0, result.output
    derived = (tmp_path / "f.params").read_text()
    committed = (ROOT / "derived" / "blueboat_sitl.params").read_text()
    body = [ln for ln in derived.splitlines() if ln and not ln.startswith("#")]
    assert body == [ln for ln in committed.splitlines() if ln and not ln.startswith("#")]
    assert "field (values): this repository" in derived
    assert not any(ln.startswith(("COMPASS_OFS", "INS_ACCOFFS")) for ln in body)


def test_outputs_never_overwrite_the_dump(field: tuple[Path, list[str]]) -> None:
    """-o of derive, report and review refuses the pinned dump; pull may refresh it."""
    root, loc = field
    overlay = root / "overlays" / "boat.yaml"
    overlay.write_text(overlay.read_text().replace("was: 1510", "was: 1512"))
    assert run_cli(["fetch", *loc]).exit_code == 0
    before = (root / "field" / "boat7.params").read_bytes()
    for command in (["derive"], ["report"]):
        result = run_cli([*command, *loc, "-o", str(root / "field" / "boat7.params")])
        assert result.exit_code == 2, result.output
        assert "profile boat's field file, an input" in result.stderr
    assert (root / "field" / "boat7.params").read_bytes() == before


def test_review_reads_the_dump_at_base(field: tuple[Path, list[str]]) -> None:
    root, loc = field
    overlay = root / "overlays" / "boat.yaml"
    overlay.write_text(overlay.read_text().replace("was: 1510", "was: 1512"))
    for command in ("fetch", "derive", "report"):
        assert run_cli([command, *loc]).exit_code == 0
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "boat 7")
    dump = root / "field" / "boat7.params"
    dump.write_bytes(FIELD.replace(b"WP_RADIUS        1", b"WP_RADIUS        3"))
    for command in ("fetch", "derive", "report"):
        assert run_cli([command, *loc]).exit_code == 0
    result = run_cli(["review", "HEAD", *loc])
    assert result.exit_code in (0, 1), result.output
    assert "WP_RADIUS" in result.stdout


def _names(count: int) -> bytes:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    names = ("P" + "".join(letters[(i // 26**k) % 26] for k in range(4)) for i in range(count))
    return "".join(f"{n} 1\n" for n in names).encode()


def test_fetch_refuses_a_dump_later_commands_would_refuse(field: tuple[Path, list[str]]) -> None:
    """The limits every reader of the dump enforces (files.TEXT_LIMIT bytes,
    parse.param_text.MAX_PARAMS parameters) hold at fetch: nothing is pinned that they refuse."""
    from paramdiff.files import TEXT_LIMIT
    from paramdiff.parse.param_text import MAX_PARAMS

    root, loc = field
    dump = root / "field" / "boat7.params"
    dump.write_bytes(_names(MAX_PARAMS))
    assert run_cli(["fetch", *loc]).exit_code == 0  # at the limit: pinned
    (root / "sources.lock").unlink()
    dump.write_bytes(_names(MAX_PARAMS + 1))
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 2, result.output
    assert f"20001 parameter names, over paramdiff's limit of {MAX_PARAMS}" in result.output
    assert not (root / "sources.lock").exists()
    qgc = b"".join(
        b"1\t1\t" + ln.replace(b" ", b"\t") + b"\t9\n" for ln in _names(MAX_PARAMS + 1).splitlines()
    )
    dump.write_bytes(qgc)  # QGC's columns: the name is the third
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 2 and "20001 parameter names" in result.output, result.output
    dump.write_bytes(FIELD + b"#" * (TEXT_LIMIT - len(FIELD) - 1) + b"\n")
    assert run_cli(["fetch", *loc]).exit_code == 0  # 1 MiB exactly: pinned
    (root / "sources.lock").unlink()
    dump.write_bytes(FIELD + b"#" * (TEXT_LIMIT - len(FIELD)) + b"\n")
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 2, result.output
    assert f"over paramdiff's input limit of {TEXT_LIMIT} bytes" in result.output
    assert not (root / "sources.lock").exists()
