"""The input limits SECURITY.md states, held by the code at the limit and one byte past it
(issue 19, "also seen"): parameter files, models and YAML up to files.TEXT_LIMIT (1 MiB),
metadata up to files.INPUT_LIMIT (8 MiB) — named on the command line or pinned — and one
limit on an overlay's reasons, enforced where the overlay is read."""

from __future__ import annotations

import json
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
    tree_bytes,
)

from paramdiff.errors import InputError
from paramdiff.files import INPUT_LIMIT, TEXT_LIMIT
from paramdiff.overlay.file import MAX_REASON
from paramdiff.render.sinks import Output, emit


def padded(head: bytes, size: int, comment: bytes = b"#") -> bytes:
    """``head`` then comment lines, exactly ``size`` bytes."""
    body = head
    while len(body) < size:
        room = size - len(body)
        line = comment + b"x" * min(80, max(0, room - len(comment) - 1))
        body += (line + b"\n")[:room]
    assert len(body) == size
    return body


@pytest.mark.parametrize("name", ["x.params", "model.sdf"])
def test_a_local_file_at_the_text_limit_is_read_and_one_byte_more_is_refused(
    name: str, tmp_path: Path
) -> None:
    if name.endswith(".sdf"):
        head = b'<sdf><plugin filename="ArduPilotPlugin"><control channel="0"><jointName>j'
        head += b"</jointName></control></plugin></sdf>\n"
        make = lambda size: padded(head + b"<!--\n", size - 4, b"") + b"-->\n"  # noqa: E731
    else:
        make = lambda size: padded(b"SERVO1_MIN 1100\n", size)  # noqa: E731
    path = tmp_path / name
    path.write_bytes(make(TEXT_LIMIT))
    assert run_cli(["show", str(path)]).exit_code == 0
    path.write_bytes(make(TEXT_LIMIT + 1))
    refused = run_cli(["show", str(path)])
    assert refused.exit_code == 2
    assert refused.output == (
        f"Error: {path}: file is {TEXT_LIMIT + 1} bytes, over paramdiff's input limit of "
        f"{TEXT_LIMIT} bytes — pass the parameter file, model or YAML it should be (those are "
        "far smaller)\n"
    )


def _project(tmp_path: Path, hw: bytes, pdef: bytes | None = None) -> tuple[Path, list[str]]:
    upstream = small_upstream()
    files = upstream["acme/params"]["files"]
    assert isinstance(files, dict)
    for commit in files:
        files[commit]["boats/hw.params"] = hw
    sources = SOURCES_YAML
    if pdef is not None:
        upstream["acme/meta"] = {
            "branches": {"main": "ef" * 20},
            "commits": [{"sha": "ef" * 20, "parents": [], "date": "2026-01-01", "subject": "m"}],
            "files": {"ef" * 20: {"Rover-1.0/apm.pdef.json": pdef}},
        }
        sources += (
            "        metadata: {repo: acme/meta, ref: main, path: Rover-1.0/apm.pdef.json,"
            " format: pdef}\n"
        )
    build_mirror(tmp_path / "mirror", upstream)
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(sources)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    return root, location_args(root, tmp_path / "cache", tmp_path / "mirror")


def test_a_pinned_parameter_file_past_the_text_limit_is_refused(tmp_path: Path) -> None:
    root, loc = _project(tmp_path / "at", padded(HW, TEXT_LIMIT))
    assert run_cli(["fetch", *loc]).exit_code == 0
    root, loc = _project(tmp_path / "over", padded(HW, TEXT_LIMIT + 1))
    refused = run_cli(["fetch", *loc])
    assert refused.exit_code == 2
    assert refused.output.count("Error:") == 1
    assert (
        f"boats/hw.params is {TEXT_LIMIT + 1} bytes (as downloaded), over paramdiff's limit of "
        f"{TEXT_LIMIT} bytes for a text file — check that the path" in refused.output
    )
    assert not (root / "sources.lock").exists()


def test_a_lock_recording_a_size_past_the_limit_is_refused_before_downloading(
    tmp_path: Path,
) -> None:
    root, loc = _project(tmp_path, HW)
    assert run_cli(["fetch", *loc]).exit_code == 0
    lock = root / "sources.lock"
    lock.write_text(lock.read_text().replace("size: 472", f"size: {TEXT_LIMIT + 1}"))
    before = tree_bytes(root)
    for command in ("fetch", "derive"):
        refused = run_cli([command, *loc])
        assert refused.exit_code == 2, refused.output
        assert f"is {TEXT_LIMIT + 1} bytes (as sources.lock records)" in refused.output
    assert tree_bytes(root) == before


def _pdef(size: int) -> bytes:
    doc = json.dumps({"SERVO": {"SERVO1_MIN": {"DisplayName": "Minimum PWM"}}}).encode()
    return doc + b" " * (size - len(doc))


def test_pinned_metadata_at_the_input_limit_is_read_and_one_byte_more_is_refused(
    tmp_path: Path,
) -> None:
    _, loc = _project(tmp_path / "at", HW, _pdef(INPUT_LIMIT))
    fetched = run_cli(["fetch", *loc])
    assert fetched.exit_code == 0, fetched.output
    _, loc = _project(tmp_path / "over", HW, _pdef(INPUT_LIMIT + 1))
    refused = run_cli(["fetch", *loc])
    assert refused.exit_code == 2
    assert (
        f"Rover-1.0/apm.pdef.json is {INPUT_LIMIT + 1} bytes (as downloaded), over paramdiff's "
        f"limit of {INPUT_LIMIT} bytes for a metadata file" in refused.output
    )


# --------------------------------------------------------------------------- reasons


@pytest.fixture()
def project(tmp_path: Path) -> tuple[Path, list[str]]:
    root, loc = _project(tmp_path, HW)
    assert run_cli(["fetch", *loc]).exit_code == 0
    return root, loc


@pytest.mark.parametrize(
    ("field", "line"),
    [
        ("reason: one unit's neutral; the model is neutral at 1500", 15),
        ("reason: one unit's calibration", 5),
    ],
)
def test_one_limit_on_reasons_for_derive_and_check(
    field: str, line: int, project: tuple[Path, list[str]]
) -> None:
    root, loc = project
    overlay = root / "overlays" / "boat.yaml"
    original = overlay.read_text()
    assert field in original
    at = "reason: " + ("w" * (MAX_REASON - 1)) + "."
    overlay.write_text(original.replace(field, at))
    assert run_cli(["derive", *loc]).exit_code == 0
    checked = run_cli(["check", "-v", *loc])
    assert "overlay overlays/boat.yaml is valid" in checked.output
    assert "derived/boat_sitl.params is up to date" in checked.output
    overlay.write_text(original.replace(field, at + "x"))
    before = tree_bytes(root)
    for command in ("derive", "check"):
        refused = run_cli([command, *loc])
        assert refused.exit_code == 2, refused.output
        assert refused.output.count("Error:") == 1
        assert f"Error: overlays/boat.yaml:{line}: " in refused.output
        assert (
            f"has a reason of {MAX_REASON + 1} characters, over paramdiff's limit of "
            f"{MAX_REASON} — shorten it to a line or two; link the details with ref:"
        ) in refused.output
    assert tree_bytes(root) == before


def test_nothing_is_written_that_check_would_refuse_to_read(tmp_path: Path) -> None:
    target = tmp_path / "out.params"
    output = Output(target, "out.params", "paramdiff derive")
    line = "#" + "x" * 1023
    lines = [line] * (TEXT_LIMIT // 1025)  # each 1,025 bytes with its newline
    assert list(emit(lines, output, check=False))[-1][0] == "out.params written\n"
    assert len(target.read_bytes()) <= TEXT_LIMIT
    with pytest.raises(InputError, match=r"^out\.params: would be \d+ bytes, over the 1048576"):
        list(emit([*lines, line], output, check=False))
    assert len(target.read_bytes()) <= TEXT_LIMIT  # the old file is left as it was


# --------------------------------------------------------------------------- local files


def test_a_local_file_is_categorised_by_the_metadata_its_header_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``# Vehicle: Surface Boat`` + ``# Version: 1.0.x`` -> the project's pinned
    Rover-1.0 metadata, when the cache holds it; else the rows say "uncategorised"."""
    pdef = json.dumps(
        {"SERVO": {"SERVO1_TRIM": {"DisplayName": "Trim PWM"}}, "WP_": {"WP_RADIUS": {}}}
    ).encode()
    root, loc = _project(tmp_path, HW, pdef)
    assert run_cli(["fetch", *loc]).exit_code == 0
    monkeypatch.chdir(root)
    monkeypatch.setenv("PARAMDIFF_CACHE", str(tmp_path / "cache"))
    named = tmp_path / "named.params"
    named.write_text("# Vehicle: Surface Boat\n# Version: 1.0.3\nSERVO1_TRIM 1500\n")
    shown = run_cli(["show", str(named), "--project-metadata"])
    assert shown.exit_code == 0, shown.output
    assert "uncategorised" in run_cli(["show", str(named)]).output  # only when asked
    assert "named.params: 1.0.3 (metadata " in shown.output
    assert "(all in category vehicle)" in shown.output
    assert "Trim PWM" in shown.output
    plain = tmp_path / "plain.params"
    plain.write_text("SERVO1_TRIM 1500\n")
    for args in (["show", str(plain)], ["diff", str(plain), str(plain)]):
        result = run_cli(args)
        assert "(all in category uncategorised)" in result.output, result.output
    other = tmp_path / "other.params"  # a firmware the project pins no metadata for
    other.write_text("# Vehicle: Submarine\n# Version: 4.7.0\nSERVO1_TRIM 1500\n")
    assert (
        "(all in category uncategorised)"
        in run_cli(["show", str(other), "--project-metadata"]).output
    )
    monkeypatch.setenv("PARAMDIFF_CACHE", str(tmp_path / "empty-cache"))  # not cached: offline
    assert (
        "(all in category uncategorised)"
        in run_cli(["show", str(named), "--project-metadata"]).output
    )
