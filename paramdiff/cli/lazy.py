"""A click group that imports a command's module only when that command runs (click's
documented lazy-subcommand pattern, from the "Complex Applications" page of its docs): `diff`
never imports what `fetch` needs. Each command's one-line summary is kept beside its module's
name, so the group's help lists every command without importing any (a test keeps the
summaries equal to the commands' own). A mistyped command gets "Did you mean", as click gives
a mistyped option; a group given no command shows its help and fails."""

from __future__ import annotations

import difflib
import importlib
from typing import Any, NamedTuple

import click

from .boundary import MissingCommand


class Lazy(NamedTuple):
    """Where a command lives (``module:attribute``, relative to paramdiff.cli) and what its
    help's first line says."""

    target: str
    summary: str


class CommandGroup(click.Group):
    """A group that, given no command, shows its help and fails (exit 2), and answers a
    mistyped command with the commands it is close to."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # in the order they were added, not sorted

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:  # shell completion parses with no args
            raise MissingCommand(ctx)
        return super().parse_args(ctx, args)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if (
            not ctx.resilient_parsing
            and not name.startswith("-")
            and self.get_command(ctx, name) is None
        ):
            close = difflib.get_close_matches(name, self.list_commands(ctx))
            hint = (" Did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close else ""
            ctx.fail(f"No such command '{name}'.{hint}")
        return super().resolve_command(ctx, args)


class LazyGroup(CommandGroup):
    """A group whose commands are ``lazy[name]``, loaded when invoked (or asked for help)."""

    def __init__(self, *args: Any, lazy: dict[str, Lazy] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.lazy, *(n for n in super().list_commands(ctx) if n not in self.lazy)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            return self.load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def load(self, name: str) -> click.Command:
        module_name, attribute = self.lazy[name].target.split(":")
        module = importlib.import_module(module_name, "paramdiff.cli")
        command = getattr(module, attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.lazy[name].target} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands in pipeline order, each with its summary (none imported)."""
        rows = [(name, entry.summary) for name, entry in self.lazy.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
