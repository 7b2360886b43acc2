"""A launch command line (what a team types) → the files SITL loads, the physics, the EEPROM.

Two forms, both split with shlex as a POSIX shell would:

- ``sim_vehicle.py -v V [-f F] [--model M] [--add-param-file P]... [-w]``: the options of
  Tools/autotest/sim_vehicle.py at the commit vehicleinfo.json records (optparse: long options
  take ``=VALUE`` or the next word and may be abbreviated to a unique prefix; short options take
  the rest of the word or the next one). start_vehicle() passes the frame's
  default_params_filename files, then each --add-param-file, as one ``--defaults`` list, and
  ``-w`` only when given. That sim_vehicle.py has no ``--defaults`` option: it stops with
  "no such option".
- the SITL binary (``ardurover``/``ardusub``/``arducopter``, a path or a name) as ArduPilot's
  ROS 2 launch (ardupilot_sitl) runs it: ``--model M``/``-M M``, ``--defaults a,b,c`` (loaded in
  that order), ``-w``/``--wipe`` and the other options of libraries/AP_HAL_SITL/SITL_cmdline.cpp.

Without ``-w``, parameters stored in eeprom.bin by an earlier run survive: AP_Param applies a
defaults file only to parameters that have no stored value, so a stored value wins over every
defaults file.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Mapping
from typing import Any, NamedTuple

from paramdiff.errors import UsageError, echoed, quote
from paramdiff.parse import vehicleinfo
from paramdiff.parse.vehicleinfo import FrameInfo

# Tools/autotest/sim_vehicle.py (commit in vehicleinfo.json): every option, value or flag.
SIM_VEHICLE_VALUES = {
    "-v": "--vehicle", "-f": "--frame", "-j": "--jobs", "-b": "--build-target",
    "-I": "--instance", "-n": "--count", "-i": "--instances", "-A": "--sitl-instance-args",
    "-d": "--delay-start", "-B": "--breakpoint", "-L": "--location",
    "-l": "--custom-location", "-S": "--speedup", "-t": "--tracker-location",
    "-m": "--mavproxy-args", "-Z": "--swarm",
}  # fmt: skip
SIM_VEHICLE_LONG_VALUES = {
    *SIM_VEHICLE_VALUES.values(), "--vehicle-binary", "--configure-define",
    "--waf-configure-arg", "--waf-build-arg", "--num-aux-imus", "--scrimmage-args", "--model",
    "--use-dir", "--add-param-file", "--auto-offset-line", "--start-time", "--sysid", "--slave",
    "--sim-address", "--out", "--aircraft", "--moddebug", "--list-frame",
}  # fmt: skip
SIM_VEHICLE_FLAGS = {
    "-C": "--sim_vehicle_sh_compatible", "-N": "--no-rebuild", "-D": "--debug", "-c": "--clean",
    "-V": "--valgrind", "-T": "--tracker", "-G": "--gdb", "-g": "--gdb-stopped",
    "-M": "--mavlink-gimbal", "-w": "--wipe-eeprom", "-h": "--help",
}  # fmt: skip
SIM_VEHICLE_LONG_FLAGS = {
    *SIM_VEHICLE_FLAGS.values(), "--no-configure", "--enable-math-check-indexes",
    "--force-32bit", "--rebuild-on-failure", "--coverage", "--ubsan", "--ubsan-abort",
    "--callgrind", "--enable-onvif", "--can-peripherals", "--lldb", "--lldb-stopped",
    "--disable-breakpoints", "--strace", "--no-mavproxy", "--fresh-params", "--mcast", "--udp",
    "--osd", "--osdmsp", "--tonealarm", "--rgbled", "--no-extra-ports", "--flash-storage",
    "--fram-storage", "--enable-ekf2", "--disable-ekf3", "--postype-single", "--ekf-double",
    "--ekf-single", "--auto-sysid", "--enable-dds", "--disable-networking", "--enable-ppp",
    "--enable-networking-tests", "--map", "--console", "--no-rcin", "--list-vehicle",
}  # fmt: skip

# libraries/AP_HAL_SITL/SITL_cmdline.cpp (same commit): GetOptLong short "hwus:r:CI:P:SO:M:F:c:v:".
SITL_SHORT_VALUES = {"-s": "--speedup", "-r": "--rate", "-I": "--instance", "-P": "--param",
                     "-O": "--home", "-M": "--model", "-F": "--fg", "-c": "--config",
                     "-v": "--vehicle"}  # fmt: skip
SITL_SHORT_FLAGS = {"-h": "--help", "-w": "--wipe", "-u": "--unhide-groups", "-C": "--console",
                    "-S": "--synthetic-clock"}  # fmt: skip
SITL_LONG_VALUES = {
    *SITL_SHORT_VALUES.values(), "--autotest-dir", "--defaults", "--base-port", "--rc-in-port",
    "--sim-address", "--sim-port-in", "--sim-port-out", "--irlock-port", "--start-time",
    "--sysid", "--slave", "--set-storage-flash-enabled", "--set-storage-posix-enabled",
    "--set-storage-fram-enabled",
    *(f"--uart{c}" for c in "ABCDEFGHIJ"), *(f"--serial{n}" for n in range(10)),
}  # fmt: skip
SITL_LONG_FLAGS = {*SITL_SHORT_FLAGS.values(), "--gimbal", "--enable-fgview", "--rtscts"}

SIM_VEHICLE = "sim_vehicle.py"
SITL = "SITL binary"


class DefaultsFile(NamedTuple):
    """One file of the launch's defaults list, as the command names it."""

    path: str  # repository path (frame files) or the path as written
    origin: str  # "frame <name>", "--add-param-file" or "--defaults"


class Launch(NamedTuple):
    """What one command line makes SITL run."""

    text: str
    form: str  # SIM_VEHICLE or SITL
    vehicle: str  # Rover, ArduSub, ArduCopter
    model: str  # the SITL --model string: which physics runs
    files: tuple[DefaultsFile, ...]  # the --defaults list, in load order
    wipe: bool  # -w: stored parameters erased first
    frame: FrameInfo | None = None  # sim_vehicle.py: the frame entry used
    notes: tuple[str, ...] = ()  # what the command does that the check does not model

    @property
    def stored_values_survive(self) -> bool:
        return not self.wipe


def _joined(text: str) -> str:
    """``text`` as a POSIX shell reads one command: each backslash-newline outside single
    quotes removed (a line continuation, as the derived file's header prints long launches);
    an unquoted newline or carriage return refused, since the shell would end the command
    there (running the first line alone) or pass the CR inside a word."""
    out: list[str] = []
    quote = ""  # the open quote character, if any
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'" and text[i + 1 : i + 2] == "\n":
            i += 2
            continue
        if c == "\\" and quote != "'":
            out.append(text[i : i + 2])
            i += 2
            continue
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c
        elif c in "\r\n" and not quote:
            what, effect = (
                ("newline", "end the command there")
                if c == "\n"
                else ("carriage return", "pass it inside a word")
            )
            line = text.count("\n", 0, i) + 1
            raise UsageError(
                f"launch {echoed(text)}: an unquoted {what} on line {line}: a shell would {effect}",
                "give the launch on one line, or end each line but the last with a backslash",
            )
        out.append(c)
        i += 1
    return "".join(out)


def split(text: str) -> list[str]:
    try:
        words = shlex.split(_joined(text))
    except ValueError as exc:
        raise UsageError(
            f"launch {echoed(text)}: {exc}", "quote it as a POSIX shell would"
        ) from exc
    if not words:
        raise UsageError(
            "the launch is empty", 'give the command line, e.g. "sim_vehicle.py -v Rover"'
        )
    return words


def parse_launch(text: str) -> Launch:
    """The command line ``text`` (sim_vehicle.py or a SITL binary) as ArduPilot reads it."""
    words = split(text)
    if words[0].rsplit("/", 1)[-1].startswith("python") and len(words) > 1:
        words = words[1:]  # python3 sim_vehicle.py ...
    if words[0].rsplit("/", 1)[-1] == SIM_VEHICLE:
        return _sim_vehicle(text, words[1:])
    return _sitl(text, words[0], words[1:])


def _long(word: str, known: set[str], program: str, text: str) -> str:
    """optparse's _match_abbrev: the option itself, or the one option it is a prefix of."""
    if word in known:
        return word
    hits = sorted(k for k in known if k.startswith(word))
    if len(hits) == 1 and program == SIM_VEHICLE:
        return hits[0]
    if word == "--defaults" and program == SIM_VEHICLE:
        raise UsageError(
            f"launch {echoed(text)}: sim_vehicle.py ({vehicleinfo.source()}) has no --defaults "
            'option and stops with "no such option: --defaults"',
            "load extra files with --add-param-file FILE (after the frame's defaults), or give "
            "--defaults to the SITL binary itself",
        )
    raise UsageError(
        f"launch {echoed(text)}: {program} has no option {quote(word)}"
        + (f" (ambiguous: {', '.join(hits)})" if hits else ""),
        "remove it, or spell one of the program's options",
    )


def _value(text: str, args: list[str], i: int, name: str) -> tuple[str, int]:
    """The next word as ``name``'s value, and the index after it."""
    if i >= len(args):
        raise UsageError(f"launch {echoed(text)}: {name} needs a value", f"{name} VALUE")
    return args[i], i + 1


def _options(
    text: str, args: list[str], program: str, short_values: dict[str, str],
    short_flags: dict[str, str], long_values: set[str], long_flags: set[str],
) -> tuple[list[tuple[str, str | None]], list[str]]:  # fmt: skip
    """(option, value) pairs in order, and the positional words."""
    out: list[tuple[str, str | None]] = []
    positional: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            name = _long(name, long_values | long_flags, program, text)
            if name in long_flags and eq:
                raise UsageError(f"launch {echoed(text)}: {name} takes no value", f"write {name}")
            if name in long_values and not eq:
                value, i = _value(text, args, i, name)
            out.append((name, value if name in long_values else None))
        elif word.startswith("-") and len(word) > 1:
            flag, rest = word[:2], word[2:]
            if flag in short_flags:
                out.append((short_flags[flag], None))
                if rest:  # bundled flags: -wN
                    args.insert(i, "-" + rest)
            elif flag in short_values:
                value, i = (rest, i) if rest else _value(text, args, i, flag)
                out.append((short_values[flag], value))
            else:
                raise UsageError(
                    f"launch {echoed(text)}: {program} has no option {quote(flag)}", "remove it"
                )
        else:
            positional.append(word)
    return out, positional


def _sim_vehicle(text: str, args: list[str]) -> Launch:
    opts, positional = _options(
        text, list(args), SIM_VEHICLE, SIM_VEHICLE_VALUES, SIM_VEHICLE_FLAGS,
        SIM_VEHICLE_LONG_VALUES, SIM_VEHICLE_LONG_FLAGS,
    )  # fmt: skip
    if positional:
        raise UsageError(
            f"launch {echoed(text)}: sim_vehicle.py takes no arguments ({' '.join(positional)})",
            "pass them to MAVProxy with -m/--mavproxy-args, or remove them",
        )
    given = {k: v for k, v in opts}  # optparse: the last one wins
    if "--vehicle" not in given:
        raise UsageError(
            f"launch {echoed(text)} has no -v: sim_vehicle.py would guess the vehicle from the "
            "directory it is started in",
            "give -v Rover, -v ArduSub or -v ArduCopter",
        )
    vehicle = vehicleinfo.vehicle_name(given["--vehicle"] or "")
    frame_name = given.get("--frame") or vehicleinfo.default_frame(vehicle)
    frame = vehicleinfo.options_for_frame(vehicle, frame_name, given.get("--model"))
    files = [DefaultsFile(p, f"frame {frame.frame}") for p in frame.defaults]
    files += [DefaultsFile(v or "", "--add-param-file") for k, v in opts if k == "--add-param-file"]
    notes = []
    if not frame.known:
        notes.append(
            f"vehicleinfo.py has no frame '{frame.frame}' for {vehicle}: sim_vehicle.py prints "
            '"WARNING: no config for frame" and loads no frame defaults'
        )
    if "--sitl-instance-args" in given:
        notes.append("-A/--sitl-instance-args is passed to SITL as is; paramdiff does not read it")
    return Launch(
        text=text,
        form=SIM_VEHICLE,
        vehicle=vehicle,
        model=frame.model,
        files=tuple(files),
        wipe="--wipe-eeprom" in given,
        frame=frame,
        notes=tuple(notes),
    )


def _sitl(text: str, binary: str, args: list[str]) -> Launch:
    vehicle = vehicleinfo.binary_vehicle(binary)
    opts, positional = _options(
        text, list(args), binary.rsplit("/", 1)[-1], SITL_SHORT_VALUES, SITL_SHORT_FLAGS,
        SITL_LONG_VALUES, SITL_LONG_FLAGS,
    )  # fmt: skip
    if positional:
        raise UsageError(
            f"launch {echoed(text)}: the SITL binary takes no arguments ({' '.join(positional)})",
            "remove them",
        )
    given = {k: v for k, v in opts}
    if not given.get("--model"):
        raise UsageError(
            f'launch {echoed(text)} has no --model: the SITL binary exits with "You must specify a '
            'vehicle model"',
            "add --model JSON (Gazebo) or a built-in model such as --model rover-skid",
        )
    defaults = given.get("--defaults") or ""
    notes = []
    if "--param" in given:
        notes.append(
            "-P/--param values are applied after the defaults; paramdiff does not read them"
        )
    return Launch(
        text=text,
        form=SITL,
        vehicle=vehicle,
        model=given["--model"] or "",
        files=tuple(DefaultsFile(p, "--defaults") for p in defaults.split(",") if p),
        wipe="--wipe" in given,
        notes=tuple(notes),
    )


FRAME_FILES = "Tools/autotest/default_params/"  # what sim_vehicle.py's frames load
SKIPPED_FORMATS = ("sdf", "pdef", "names", "thrust_table")  # roles that are not parameter files


def pinned_role(specs: Mapping[str, Any], path: str, exact: bool) -> str | None:
    """The pinned parameter role ``path`` names: its repository path, a path ending in it
    (unless ``exact``), or for a bare file name the one pinned file of that name."""
    hits = []
    for role, spec in specs.items():
        if spec.format in SKIPPED_FORMATS:
            continue
        if path == spec.path or (not exact and path.endswith("/" + spec.path)):
            return role
        if not exact and "/" not in path and posixpath.basename(spec.path) == path:
            hits.append(role)
    return hits[0] if len(hits) == 1 else None


def file_kind(
    specs: Mapping[str, Any], f: DefaultsFile, derived: str | None
) -> tuple[str, str | None]:
    """What a file of a launch's defaults list is by its path as written: ``("derived",
    None)`` — the profile's derived path (``./`` and doubled slashes aside) —, ``("pinned",
    role)`` — a pinned parameter role (a frame's file only by its exact repository path) —,
    or ``("local", None)``: a file on disk nothing pins (which may still be the derived file
    by another path, an absolute one or a link: launch_check.resolve_layers decides that on
    disk)."""
    if derived and posixpath.normpath(f.path) == posixpath.normpath(derived):
        return "derived", None
    role = pinned_role(specs, posixpath.normpath(f.path), exact=f.origin.startswith("frame"))
    return ("pinned", role) if role is not None else ("local", None)


def pinned_roles_loaded(specs: Mapping[str, Any], launch: Launch, derived: str | None) -> set[str]:
    """The pinned parameter roles of ``launch``'s defaults list (``derived``: the profile's
    derived path, which is no role)."""
    roles = (file_kind(specs, f, derived)[1] for f in launch.files)
    return {role for role in roles if role is not None}


def launch_roles(specs: dict[str, Any], commands: list[str]) -> set[str]:
    """The pinned roles sim_vehicle.py's frames or the ``commands`` load."""
    out = {
        role
        for role, spec in specs.items()
        if spec.repo == "ArduPilot/ardupilot" and spec.path.startswith(FRAME_FILES)
    }
    for command in commands:
        out |= pinned_roles_loaded(specs, parse_launch(command), None)
    return out
