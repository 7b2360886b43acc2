"""`paramdiff init`: start a project from a profile paramdiff ships."""

from __future__ import annotations

from pathlib import Path

import click
from click.shell_completion import CompletionItem

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo
from paramdiff.render.safe_text import visible


class InitCommand(click.Command):
    """init's help ends with the profiles paramdiff ships (read from its package data when
    the help is shown, not when the module loads)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from paramdiff.jobs.init import shipped_descriptions  # (see init)

        with formatter.section("Profiles paramdiff ships"):
            rows = [(n, visible(_first_sentence(d))) for n, d in shipped_descriptions().items()]
            formatter.write_dl(rows)
        super().format_epilog(ctx, formatter)


def _first_sentence(text: str) -> str:
    return text.split(". ", 1)[0].rstrip(".")


def _complete_profile(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    from paramdiff.jobs.init import shipped_descriptions  # (see init)

    return [CompletionItem(n) for n in shipped_descriptions() if n.startswith(incomplete)]


@click.command("init", cls=InitCommand)
@click.argument("profile", metavar="PROFILE", shell_complete=_complete_profile)
@click.option(
    "--derived",
    metavar="PATH",
    help="Where the derived file goes in this repository (default: the profile's own path).",
)
@click.option(
    "--root",
    type=opt.Directory("--root"),
    default=".",
    show_default=True,
    metavar="DIR",
    help="Repository root to write sources.yaml in.",
)
def init(profile: str, derived: str | None, root: Path) -> None:
    """Start a project: sources.yaml and the overlay of a profile paramdiff ships.

    PROFILE is one of those listed below. Also the CI workflow and a pre-commit configuration
    where absent, and .gitignore's lines for the files paramdiff leaves. Never overwrites a
    file. Then: paramdiff fetch && paramdiff derive.
    """
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.init import starter, write_starter

    for line in write_starter(root, starter(profile, derived)):
        echo(line)
    echo("next: paramdiff fetch && paramdiff derive && paramdiff report && paramdiff check")
