"""CI for users: `check --format github` annotations, the workflow and the pre-commit hook."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, run_cli

from paramdiff.render.github import annotation, escape_data, escape_property

WORKFLOW = ROOT / ".github" / "workflows" / "paramdiff.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def runner_parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command read back the way the runner reads it (actions/runner,
    src/Runner.Common/ActionCommand.cs, TryParseV2): ``::`` + command, an optional space
    and ``key=value`` pairs split on ``,``, ``::``, the data; then the escapes undone."""
    assert line.startswith("::")
    end = line.index("::", 2)
    head, data = line[2:end], line[end + 2 :]
    command, _, props = head.partition(" ")
    properties = {}
    for pair in filter(None, props.split(",")):
        key, _, value = pair.partition("=")
        properties[key] = (
            value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",")
        ).replace("%25", "%")
    data = data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    return command, properties, data


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("100% a\r\nb: c, d") == "100%25 a%0D%0Ab%3A c%2C d"
    line = annotation("50% over\nlimit: x, y", file="dir,a/b:c.yaml", line=7, title="t: 1, 2")
    assert line == (
        "::error file=dir%2Ca/b%3Ac.yaml,line=7,title=t%3A 1%2C 2::50%25 over%0Alimit: x, y"
    )
    assert runner_parse(line) == (
        "error",
        {"file": "dir,a/b:c.yaml", "line": "7", "title": "t: 1, 2"},
        "50% over\nlimit: x, y",
    )
    assert "\n" not in line and "\r" not in line
    assert annotation("plain") == "::error::plain"
    assert annotation("no line", file="a.yaml") == "::error file=a.yaml::no line"


def test_check_annotates_a_stale_overlay_delta_at_its_line(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, loc = derived
    overlay = project / "overlays" / "boat.yaml"
    overlay.write_text(overlay.read_text().replace("was: 1510", "was: 1520"))
    line = 1 + overlay.read_text().splitlines().index("  - param: SERVO1_TRIM")
    monkeypatch.chdir(project)  # a workflow runs at the repository root
    result = run_cli(["check", "--format", "github", *loc])
    assert result.exit_code == 1
    errors = [ln for ln in result.output.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1, result.output
    command, props, data = runner_parse(errors[0])
    assert (command, props["file"], props["line"]) == ("error", "overlays/boat.yaml", str(line))
    assert props["title"] == "paramdiff check (boat 1.0)"
    assert data.startswith(
        f"overlays/boat.yaml:{line}: delta SERVO1_TRIM is stale: written against 1520"
    )


def test_check_annotates_a_hand_edited_derived_file_at_the_first_changed_line(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, loc = derived
    derived = project / "derived" / "boat_sitl.params"
    lines = derived.read_text().splitlines()
    i = next(n for n, ln in enumerate(lines) if ln.startswith("WP_RADIUS"))
    lines[i] = "WP_RADIUS        5"
    derived.write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(project)
    result = run_cli(["check", "--format", "github", *loc])
    assert result.exit_code == 1
    errors = [runner_parse(ln) for ln in result.output.splitlines() if ln.startswith("::error")]
    located = [(p["file"], p.get("line")) for _, p, _ in errors]
    assert ("derived/boat_sitl.params", str(i + 1)) in located
    assert ("reports/boat-1.0.md", "1") not in located  # the report did not change


def test_workflow_validates_against_githubs_schema() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(WORKFLOW),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflow_runs_check_and_comments_the_review_once() -> None:
    text = WORKFLOW.read_text()
    assert re.search(r"permissions:\n  contents: read\n  pull-requests: write\n", text)
    assert "paramdiff check --format github" in text
    assert 'paramdiff review "origin/$BASE_REF" -o review.md' in text
    assert 'cat review.md >> "$GITHUB_STEP_SUMMARY"' in text
    assert "updateComment" in text and "<!-- paramdiff-review -->" in text


def test_pre_commit_hooks_file_is_a_valid_manifest() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    hooks = clientlib.load_manifest(str(HOOKS))
    assert [(h["id"], h["entry"], h["pass_filenames"]) for h in hooks] == [
        ("paramdiff-check", "paramdiff check", False)
    ]
    files = re.compile(hooks[0]["files"])
    for path in ("sources.yaml", "sources.lock", "overlays/b.yaml", "a/b/blueboat_sitl.params"):
        assert files.search(path), path
    assert not files.search("README.md")
