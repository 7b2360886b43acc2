"""`paramdiff check`: everything CI needs, for every profile or one."""

from __future__ import annotations

from pathlib import Path

import click

from paramdiff.check.run import check_project
from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines
from paramdiff.project import Project


@click.command("check")
@opt.location
@opt.profile("Only this profile (default: every profile).")
@opt.pin("Only this pin, where a profile has it (default: every pin of every profile).")
@click.option(
    "--model",
    "models",
    multiple=True,
    type=opt.EXISTING_FILE,
    metavar="FILE",
    help="Also check this Gazebo model's channels against the derived file.",
)
@click.option(
    "--launch",
    metavar="CMD",
    help="Verify this launch command line (sim_vehicle.py ... or the SITL binary's) instead of "
    "the profile's declared launches: files loaded, physics, pilot sticks.",
)
@click.option(
    "--world",
    type=opt.EXISTING_FILE,
    metavar="FILE",
    help="The Gazebo world the vehicle runs in: its physics step against SCHED_LOOP_RATE.",
)
@click.option(
    "--require-confirmed",
    is_flag=True,
    help="Fail unless each derived file has a current verification record (verify --record) "
    "confirming every value in SITL; without it a stale record is a warning.",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="List every check that passed (default: one line per pin counts them).",
)
@click.option("--all-profiles", is_flag=True, hidden=True)  # the default; old scripts pass it
@opt.output_format(
    ["text", "github"],
    "text",
    "github: each failure also as an ::error annotation on the file and line to fix.",
)
def check(
    options: Project,
    profile: str | None,
    pin: str | None,
    models: tuple[Path, ...],
    launch: str | None,
    world: Path | None,
    require_confirmed: bool,
    verbose: bool,
    all_profiles: bool,
    fmt: str,
) -> None:
    """Everything CI needs: lock, overlay, derived file, report, models, layers.

    Without --pin: every pin of every profile (or of --profile): each pin's locked files
    verified, and the derived file and report checked where the pin has them. With --pin:
    that pin of every profile that has it (the others at their default pin).
    """
    profile = None if all_profiles else profile
    annotate = fmt == "github"
    echo_lines(
        check_project(
            options,
            profile,
            pin,
            list(models),
            annotate,
            launch=launch,
            world=world,
            require_confirmed=require_confirmed,
            verbose=verbose,
        )
    )
