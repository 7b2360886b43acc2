"""Issue #30 item 3: stages take values. One walk of `derive` calls into the pin and the
project (paramdiff/pin.py, paramdiff/project.py) at most twice from outside them: the
derive job asks for the derived file and the derived model; the launch check, the fetch
engine and the derivation itself get what they read as values (simulation/launch_check.py's
``LaunchInputs``), and never call back up."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from helpers import ROOT, run_cli

import paramdiff.pin
import paramdiff.project

T = TypeVar("T")
HUB = {os.path.realpath(paramdiff.pin.__file__), os.path.realpath(paramdiff.project.__file__)}


def entries(run: Callable[[], T]) -> tuple[T, Counter[str]]:
    """What ``run()`` returns and each call it makes from outside the hub into a function
    defined in it (``caller -> callee``); building the pin and the project is not counted."""
    seen: Counter[str] = Counter()

    def watch(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_filename not in HUB:
            return
        if frame.f_code.co_name in ("__init__", "__post_init__"):
            return  # constructed once by the command line's options
        caller = frame.f_back
        while caller is not None and caller.f_code.co_filename.startswith("<frozen"):
            caller = caller.f_back
        if caller is not None and caller.f_code.co_filename not in HUB:
            where = f"{Path(caller.f_code.co_filename).name}:{caller.f_code.co_name}"
            seen[f"{where} -> {frame.f_code.co_name}"] += 1

    sys.setprofile(watch)
    try:
        result = run()
    finally:
        sys.setprofile(None)
    return result, seen


def test_one_walk_of_derive_enters_the_pin_at_most_twice(upstream: Path, tmp_path: Path) -> None:
    where = ["--root", str(ROOT), "--mirror", str(upstream), "--cache-dir", str(tmp_path)]
    assert run_cli(["fetch", *where]).exit_code == 0
    result, seen = entries(lambda: run_cli(["derive", "--check", "--profile", "blueboat", *where]))
    assert result.exit_code == 0, result.output
    assert sum(seen.values()) <= 2, seen
    assert set(seen) == {
        "derive.py:derived_lines -> kept",
        "derive.py:model_outputs -> derived_model",
    }


def test_the_counter_sees_a_call_into_the_project(tmp_path: Path) -> None:
    """The watcher counts what it should: a call from here into a project's method."""
    project = paramdiff.project.Project(root=tmp_path)
    _, seen = entries(lambda: project.replace(offline=True).transports())
    assert seen == Counter(
        {
            "test_project_entries.py:<lambda> -> replace": 1,
            "test_project_entries.py:<lambda> -> transports": 1,
        }
    )
