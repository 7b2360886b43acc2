"""Benchmark: paramdiff against pymavlink's mavparmdiff.py (the peer), measured in the same run.

    python bench/run.py [--reps 15] [--mirror ../shared/upstream] [--write-docs]

--write-docs rewrites the block between <!-- bench:start --> and <!-- bench:end --> in
docs/performance.md (--write-readme, its old name, still works).

Exits 1 when a target is not met.

Each side runs from its own clean environment, installed as a user installs it: the peer in
bench/.venv-peer (the `bench` extra's requirements from setup.cfg), paramdiff in
bench/.venv-ours (`pip install .` of this tree, not editable, refreshed on every run, run through
its `paramdiff` console script). Neither pays for the other's packages, nor for the
development environment's editable-install finder and test tools (~11 ms per process here).
Every paramdiff command is paired with a run of
the peer diffing BlueBoat120.params (4.7) against MotorBoat.params (4.6.3), the two alternating
(A B, then B A, ...); a row's ratio is the median of its pairs' ratios, so load that comes and
goes on a busy machine hits both sides. Peak memory is each process's own maximum resident set
(``os.wait4``'s rusage).

Targets (ratios to the peer's diff of those two files):
  diff A B                  <= 1.1 x, and peak memory <= the peer's
  compare three-way         <= 1.5 x
  derive --check            <= 1.5 x
  check (every profile,     <= 2.5 x
    every locked pin)
  --help                    <= 1.0 x
(#20: the CLI is on click again and records are dataclasses; the targets rebalanced to
what a user of a parameter tool feels, still ahead of or close to the program a user would
run instead)
  warm fetch, satisfied lock: 0 network requests
  diff --lenient over every BlueOS parameter file in the mirror (1,068): time and peak memory
                              per file at several N, growing linearly (time per MB printed and
                              memory per file at the largest N within 1.25 x of those at half
                              of it); CSV and JSON
                              written as a stream (output adds < 16 MiB over the same
                              command printing no rows)
  every profile's report    < 60,000 characters before its <details> full table
"""

from __future__ import annotations

import argparse
import atexit
import configparser
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PEER_ENV = ROOT / "bench" / ".venv-peer"
OURS_ENV = ROOT / "bench" / ".venv-ours"
OURS_PY = str(OURS_ENV / "bin" / "python")
PD = [str(OURS_ENV / "bin" / "paramdiff")]
BLUEOS = "bluerobotics/Blueos-Parameter-Repository"
HEAD = "d0aedc92e37187df5366c0dd9a6b9fc876d518c5"
FILE_A = f"raw/{BLUEOS}/{HEAD}/params/ardupilot/ArduRover/4.7/Navigator/BlueBoat120.params"
FILE_B = f"raw/{BLUEOS}/{HEAD}/params/ardupilot/ArduRover/4.6/sitl/MotorBoat.params"
REPORT_HEAD_LIMIT = 60_000
STREAM_SLACK_MIB = 16.0
LINEAR_SLACK = 1.25


@dataclass
class Run:
    seconds: float
    peak_mib: float
    code: int
    printed: int = 0


def run(cmd: list[str], env: dict[str, str], count_output: bool = False) -> Run:
    """One process: wall time, its own peak resident set, exit code (and, when asked, how
    many bytes it printed, read from a pipe as a consumer would)."""
    start = time.perf_counter()
    out = subprocess.PIPE if count_output else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.DEVNULL)
    printed = 0
    if proc.stdout is not None:
        while chunk := proc.stdout.read(1 << 20):
            printed += len(chunk)
        proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(seconds, usage.ru_maxrss / 1024, proc.returncode, printed)


# pip compiles the installed modules to bytecode as a user's install does; a shell that sets
# PYTHONDONTWRITEBYTECODE would leave them uncompiled and every measured run paying for it.
INSTALL_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def peer_environment() -> Path:
    """bench/.venv-peer's python, made (venv + pip, requirements from the bench extra) when
    absent; the peer never shares paramdiff's environment."""
    python = PEER_ENV / "bin" / "python"
    check = [str(python), "-c", "import pymavlink.mavparm"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    reqs = [r for r in cfg["options.extras_require"]["bench"].splitlines() if r.strip()]
    print(f"making {PEER_ENV.relative_to(ROOT)} with {', '.join(reqs)} ...", file=sys.stderr)
    subprocess.run([PY, "-m", "venv", str(PEER_ENV)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *reqs], check=True, env=INSTALL_ENV)
    return python


def ours_environment() -> None:
    """bench/.venv-ours with this tree installed as a user installs it (a wheel, not editable):
    the venv and paramdiff's dependencies are made once, paramdiff itself on every run."""
    if not (OURS_ENV / "bin" / "python").exists():
        print(f"making {OURS_ENV.relative_to(ROOT)} ...", file=sys.stderr)
        subprocess.run([PY, "-m", "venv", str(OURS_ENV)], check=True)
        subprocess.run(
            [OURS_PY, "-m", "pip", "install", "-q", str(ROOT)], check=True, env=INSTALL_ENV
        )
    # --force-reinstall --no-deps: the tree as it is now, whatever its version string says
    pip = [OURS_PY, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(ROOT)]
    subprocess.run(pip, check=True, stdout=subprocess.DEVNULL, env=INSTALL_ENV)
    # the wheel build leaves build/ and *.egg-info in the tree; they are gitignored


@dataclass
class Pair:
    label: str
    ours: list[Run]
    peer: list[Run]
    target: float | None  # None: reported, no target
    memory_target: bool = False

    @property
    def ratio(self) -> float:
        pairs = zip(self.ours, self.peer, strict=True)
        return statistics.median(a.seconds / b.seconds for a, b in pairs)

    @property
    def met(self) -> bool:
        if self.target is None:
            return True
        ok = self.ratio <= self.target
        if self.memory_target:
            ok = ok and peak(self.ours) <= peak(self.peer)
        return ok


def peak(runs: list[Run]) -> float:
    return max(r.peak_mib for r in runs)


def median_s(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def paired(
    label: str,
    ours: list[str],
    peer: list[str],
    reps: int,
    env: dict[str, str],
    target: float | None,
    codes: tuple[int, ...] = (0,),
    memory_target: bool = False,
) -> Pair:
    """Alternate ours and the peer ``reps`` times (after one unmeasured run of each: bytecode
    and parsed-metadata caches are warm, as on a user's second run)."""
    peer_env = {"PATH": env["PATH"]}
    for cmd, e, want in ((ours, env, codes), (peer, peer_env, (0,))):
        first = run(cmd, e)
        if first.code not in want:
            out = subprocess.run(cmd, cwd=ROOT, env=e, capture_output=True, text=True)
            sys.exit(f"{' '.join(cmd)} exited {first.code}:\n{out.stderr[-2000:]}")
    a: list[Run] = []
    b: list[Run] = []
    for i in range(reps):
        if i % 2 == 0:
            a.append(run(ours, env))
            b.append(run(peer, peer_env))
        else:
            b.append(run(peer, peer_env))
            a.append(run(ours, env))
    return Pair(label, a, b, target, memory_target)


def blueos_files(mirror: Path) -> list[Path]:
    """Every parameter file of the BlueOS repository at every mirrored commit."""
    manifest = json.loads((mirror / "MANIFEST.json").read_text())
    files = manifest[BLUEOS]["files"]
    return sorted(
        mirror / "raw" / BLUEOS / commit / path
        for commit, paths in files.items()
        for path in paths
        if path.endswith(".params")
    )


@dataclass
class Scale:
    n: int
    fmt: str
    run: Run
    empty: Run | None = None  # the same files, printing no rows

    @property
    def per_file_ms(self) -> float:
        return 1000 * self.run.seconds / self.n

    @property
    def per_file_mib(self) -> float:
        return self.run.peak_mib / self.n

    @property
    def per_output_mb_s(self) -> float:
        """Seconds per MB printed: the work a row costs grows with the labels it repeats."""
        return self.run.seconds / (self.run.printed / 1e6)


def scale(files: list[Path], env: dict[str, str]) -> list[Scale]:
    total = len(files)
    out = []
    for n in sorted({10, 100, 250, total // 2, total}):
        cmd = [*PD, "diff", "--lenient", "--format", "csv", *map(str, files[:n])]
        out.append(Scale(n, "csv", run(cmd, env, count_output=True)))
    for fmt in ("csv", "json"):
        options = ["diff", "--lenient", "--format", fmt]
        cmd = [*PD, *options, *map(str, files)]
        nothing = [*PD, *options, "--param", "NO_SUCH_NAME", *map(str, files)]
        out.append(Scale(total, fmt, run(cmd, env), run(nothing, env)))
    return out


def report_sizes(env: dict[str, str]) -> list[tuple[str, int, int]]:
    """(profile, whole report in characters, characters before <details>) per profile."""
    import yaml

    profiles = yaml.safe_load((ROOT / "sources.yaml").read_text())["profiles"]
    out = []
    with tempfile.TemporaryDirectory(prefix="paramdiff-bench-report-") as tmp:
        for name in profiles:
            path = Path(tmp) / f"{name}.md"
            cmd = [*PD, "report", "--profile", name, "-o", str(path), "--offline"]
            subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
            text = path.read_text(encoding="utf-8")
            out.append((name, len(text), len(text.partition("<details>")[0])))
    return out


def warm_fetch_requests(mirror: Path, cache: str) -> int:
    """Serve the mirror over HTTP on 127.0.0.1 and count what a warm fetch asks for."""
    import http.server
    import threading

    log: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):  # type: ignore[no-untyped-def]
            super().__init__(*a, directory=str(mirror), **kw)

        def log_message(self, fmt, *a):  # type: ignore[no-untyped-def]
            log.append(self.path)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    subprocess.run(
        [*PD, "fetch", "--mirror", url],
        cwd=ROOT,
        check=True,
        env={"PARAMDIFF_CACHE": cache, "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
    )
    httpd.shutdown()
    return len(log)


def yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def pair_lines(pairs: list[Pair]) -> list[str]:
    lines = [
        "| what | paramdiff | peer (mavparmdiff.py A B) | ratio (median of pairs) | target "
        "| peak memory: paramdiff / peer | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in pairs:
        target = f"<= {p.target}x" if p.target is not None else "(reported)"
        target += ", memory <= peer's" if p.memory_target else ""
        met = yes(p.met) if p.target is not None else ""
        lines.append(
            f"| {p.label} | {median_s(p.ours):.3f}s | {median_s(p.peer):.3f}s | {p.ratio:.2f}x "
            f"| {target} | {peak(p.ours):.1f} / {peak(p.peer):.1f} MiB | {met} |"
        )
    return lines


def scale_lines(points: list[Scale]) -> tuple[list[str], bool]:
    growth = [s for s in points if s.empty is None]
    last, half = growth[-1], growth[-2]
    output_growth = last.per_output_mb_s / half.per_output_mb_s
    mem_growth = last.per_file_mib / half.per_file_mib
    linear = output_growth <= LINEAR_SLACK and mem_growth <= LINEAR_SLACK
    lines = [
        "",
        f"`diff --lenient --format csv` over N of the mirror's {last.n:,} BlueOS parameter files:",
        "",
        "| N | time | per file | printed | per MB printed | peak memory | per file |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in growth:
        lines.append(
            f"| {s.n:,} | {s.run.seconds:.2f}s | {s.per_file_ms:.2f} ms | "
            f"{s.run.printed / 1e6:.1f} MB | {1000 * s.per_output_mb_s:.1f} ms | "
            f"{s.run.peak_mib:.0f} MiB | {s.per_file_mib:.3f} MiB |"
        )
    lines += [
        "",
        f"Linear: at N={last.n:,} the time per MB printed is {output_growth:.2f}x, the memory "
        f"per file {mem_growth:.2f}x that at N={half.n:,} (target <= {LINEAR_SLACK}x): "
        f"{yes(linear)}. (Time per file grows with N because the output does: a name that "
        "repeats across folders gets its full path as its column label, and each row's status "
        "names the files it is missing in.)",
    ]
    streamed = True
    for s in points:
        if s.empty is None:
            continue
        extra = s.run.peak_mib - s.empty.peak_mib
        ok = extra < STREAM_SLACK_MIB
        streamed = streamed and ok
        lines.append(
            f"{s.fmt.upper()} over all {s.n:,}: {s.run.seconds:.2f}s, {s.run.peak_mib:.0f} MiB "
            f"peak; printing no rows: {s.empty.peak_mib:.0f} MiB, so the output adds "
            f"{extra:.1f} MiB (streamed: < {STREAM_SLACK_MIB:.0f} MiB): {yes(ok)}."
        )
    return lines, linear and streamed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--mirror", default=str(ROOT.parent / "shared" / "upstream"))
    # --write-readme: the old name, from when the block lived in README.md
    ap.add_argument("--write-docs", "--write-readme", dest="write_docs", action="store_true")
    args = ap.parse_args()
    mirror = Path(args.mirror).resolve()
    peer_py = peer_environment()
    ours_environment()
    peer = [str(peer_py), str(peer_py.parent / "mavparmdiff.py"), str(mirror / FILE_A)]
    peer.append(str(mirror / FILE_B))
    load_before = os.getloadavg()
    cache = tempfile.mkdtemp(prefix="paramdiff-bench-")
    atexit.register(shutil.rmtree, cache, ignore_errors=True)  # ~20 MB a run
    env = {"PARAMDIFF_CACHE": cache, "PARAMDIFF_MIRROR": str(mirror), "PATH": "/usr/bin:/bin"}
    subprocess.run([*PD, "fetch"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    reps = args.reps
    pairs = [
        paired(
            "diff A B",
            [*PD, "diff", str(mirror / FILE_A), str(mirror / FILE_B)],
            peer,
            reps,
            env,
            1.1,
            codes=(1,),  # they differ
            memory_target=True,
        ),
        paired("compare three-way", [*PD, "compare", "three-way"], peer, reps, env, 1.5),
        paired("derive --check", [*PD, "derive", "--check"], peer, reps, env, 1.5),
        paired("check (every profile, every pin)", [*PD, "check"], peer, reps, env, 2.5),
        paired("--help", [*PD, "--help"], peer, reps, env, 1.0),
    ]
    requests = warm_fetch_requests(mirror, cache)
    files = blueos_files(mirror)
    points = scale(files, env)
    sizes = report_sizes(env)
    load_after = os.getloadavg()
    lines = [
        f"Machine: {platform.machine()}, {platform.system()} {platform.release()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; {reps} pairs per row. "
        f"Load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after"
        + (" — a busy machine: ratios are the figures to read." if load_before[0] > 1 else "."),
        "",
        *pair_lines(pairs),
        f"| warm fetch, satisfied lock | | | {requests} requests | 0 | | {yes(requests == 0)} |",
    ]
    for name, whole, head in sizes:
        lines.append(
            f"| report {name}: {whole:,} characters | | | {head:,} before `<details>` | "
            f"< {REPORT_HEAD_LIMIT:,} | | {yes(head < REPORT_HEAD_LIMIT)} |"
        )
    more, scale_ok = scale_lines(points)
    lines += more
    met = all(p.met for p in pairs) and requests == 0 and scale_ok
    met = met and all(head < REPORT_HEAD_LIMIT for _, _, head in sizes)
    lines += ["", "Every target met." if met else "Some targets NOT met (see the rows marked NO)."]
    print("\n".join(lines))
    if args.write_docs:
        page = ROOT / "docs" / "performance.md"
        text = page.read_text()
        before, rest = text.split("<!-- bench:start -->", 1)
        _, after = rest.split("<!-- bench:end -->", 1)
        block = "<!-- bench:start -->\n" + "\n".join(lines) + "\n<!-- bench:end -->"
        page.write_text(before + block + after)
    if not met:
        sys.exit(1)  # a script (or CI) can rely on the exit code, as on the table


if __name__ == "__main__":
    main()
