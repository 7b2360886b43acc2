"""Text tables fit 100 columns, or wrap, and say what their marks mean (#31): fetch's table,
verify's likely cause, the three-way key line; on small fixtures and on the real mirror."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import ROOT, location_args, run_cli
from test_running import LAYERS

from paramdiff.comparison.running_vehicle import STORED_SURVIVED, verify_running
from paramdiff.jobs.fetch import fetch_table
from paramdiff.render.fit import WIDTH, fit_rows
from paramdiff.render.texttable import table

CAUSE_HEADERS = ["parameter", "runs", "expected", "set by", "likely cause"]


def widest(lines: list[str]) -> int:
    return max(map(len, lines))


def test_a_long_cell_wraps_under_itself_and_keeps_every_word() -> None:
    rows = [["SERVO1_FUNCTION", "73", "74", "derived (blueboat_sitl.params:50)", STORED_SURVIVED]]
    fitted = fit_rows(CAUSE_HEADERS, rows)
    lines = list(table(CAUSE_HEADERS, fitted, markdown=False))
    assert len(STORED_SURVIVED) > 150 and widest(lines) <= WIDTH
    assert len(fitted) > 1 and fitted[0][:3] == rows[0][:3]
    assert all(row[:3] == ["", "", ""] for row in fitted[1:])
    for column in (3, 4):
        assert " ".join(row[column] for row in fitted).split() == rows[0][column].split()


def test_a_narrow_table_is_left_as_it_is() -> None:
    rows = [["a", "1"], ["b", "2"]]
    assert fit_rows(["name", "value"], rows) == rows


def test_a_path_breaks_after_a_slash() -> None:
    path = "Tools/ros2/ardupilot_sitl/config/default_params/dds_udp.parm"
    [first, *rest] = fit_rows(["file"], [[path]], width=30)
    assert first[0].endswith("/") and "".join([first[0], *(r[0] for r in rest)]) == path


def test_fetch_table_keeps_commits_and_paths_whole_and_notes_below() -> None:
    repo = "bluerobotics/Blueos-Parameter-Repository@5e5a0e07eafc"
    path = "params/ardupilot/ArduRover/4.7/Navigator/BlueBoat120.params"
    rows = [
        ["hardware", repo, path, "18830", "downloaded (sources.yaml changed; the lock had ref x)"],
        ["rover_skid_defaults", "ArduPilot/ardupilot@5764606ecdaf", "a.parm", "91", "cached"],
    ]
    lines = list(fetch_table(rows))
    assert widest(lines) <= WIDTH
    assert any(repo in ln for ln in lines) and any(path in ln for ln in lines)
    assert lines[-1] == "  hardware: sources.yaml changed; the lock had ref x"


def test_verify_prints_its_likely_cause_within_100_columns() -> None:
    from paramdiff.jobs.verify import HEADERS

    running = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 73.0, "FRAME_CLASS": 2.0}
    result = verify_running(LAYERS, running, wiped=False)
    rows = fit_rows(HEADERS, [m.row() for m in result.mismatches])
    assert widest(list(table(HEADERS, rows, markdown=False))) <= WIDTH


def test_the_text_table_says_what_its_marks_mean(tmp_path: Path) -> None:
    a, b = tmp_path / "a.params", tmp_path / "b.params"
    a.write_text("WP_SPEED 2\nCRUISE_SPEED 1\n")
    b.write_text("WP_SPEED 3\n")
    out = run_cli(["diff", str(a), str(b)])
    assert out.exit_code == 1, out.output
    assert "key: — a source that could set it but does not" in out.stdout
    same = run_cli(["diff", str(a), str(a)])
    assert "key:" not in same.stdout


def test_the_real_fetch_table_fits_100_columns(upstream: Path, tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    shutil.copy(ROOT / "sources.yaml", root / "sources.yaml")
    out = run_cli(["fetch", *location_args(root, tmp_path / "c", upstream)])
    assert out.exit_code == 0, out.output
    assert widest(out.stdout.splitlines()) <= WIDTH
    lock = (root / "sources.lock").read_text()
    assert lock.count("commit:") > 20  # every pin of every profile, each commit shown whole
    for commit in {ln.split()[-1][:12] for ln in lock.splitlines() if "commit:" in ln}:
        assert f"@{commit}" in out.stdout


def test_a_wide_comparison_leaves_out_display_names_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # short names as the headers
    names = ["ARMING_SKIPCHK", "SERVO1_FUNCTION", "WP_SPEED"]
    files = []
    for k in range(4):  # four sources of long values: wider than 100 with every column
        Path(f"s{k}.params").write_text("".join(f"{n} {k}{'1' * 20}\n" for n in names))
        files.append(f"s{k}.params")
    out = run_cli(["diff", *files])
    assert out.exit_code == 1, out.output
    lines = out.stdout.splitlines()
    assert widest(lines) <= WIDTH, out.stdout
    header = next(ln for ln in lines if ln.startswith("name"))
    assert "display_name" not in header and "s3.params" in header
    assert "display_name left out to fit" in out.stdout
    assert "--format markdown, csv or json keeps every column whole" in out.stdout
    full = run_cli(["diff", *files, "--format", "csv"])
    assert "display_name" in full.stdout.splitlines()[0]


def test_every_real_comparison_fits_100_columns(upstream: Path, tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    shutil.copy(ROOT / "sources.yaml", root / "sources.yaml")
    loc = location_args(root, tmp_path / "c", upstream)
    assert run_cli(["fetch", *loc]).exit_code == 0
    for args in (
        ["three-way", "--pin", "4.7"],
        ["three-way", "--pin", "4.6"],
        ["pins", "4.6", "4.7"],
        ["three-way", "--profile", "bluerov2_heavy"],
        ["three-way", "--profile", "holybro_x500"],
    ):
        out = run_cli(["compare", *args, *loc])
        assert out.exit_code in (0, 1), out.output
        table = out.stdout.split("\nWarnings:\n")[0]  # a warning's file:line: stays whole
        assert widest(table.splitlines()) <= WIDTH, args
