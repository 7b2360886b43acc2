"""Benchmark: paramdiff commands vs baselines measured in the same run (medians of N runs).

    python bench/run.py [--reps 5] [--mirror ../shared/upstream] [--write-readme]

Targets (ratios, not seconds, so they hold on any machine):
  compare three-way, derive --check, check   <= 1.3 x  python -c "import pandas, yaml, click"
                                             (check: one profile, and every profile)
  paramdiff --help                           <= 1.5 x  python -c "import click"
  warm fetch with a satisfied lock           0 network requests (counted by a local server)
  diff over every BlueBoat120.params version <= 2 x    one three-way compare
  every profile's report                     < 60,000 characters before its <details> full
                                             table (a PR comment holds 65,536); the whole
                                             report's size is reported beside it
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PD = [PY, "-m", "paramdiff"]


def timed(cmd: list[str], reps: int, env: dict[str, str] | None = None) -> tuple[float, float]:
    runs = []
    for _ in range(reps):
        start = time.perf_counter()
        subprocess.run(
            cmd,
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), (max(runs) - min(runs))


def blueboat_versions(mirror: Path) -> list[Path]:
    """The BlueBoat120.params of every commit (its newest firmware folder), oldest first."""
    manifest = json.loads((mirror / "MANIFEST.json").read_text())
    repo = "bluerobotics/Blueos-Parameter-Repository"
    entry = manifest[repo]
    out = []
    for c in reversed(entry["commits"]):
        paths = [
            p
            for p in entry["files"].get(c["sha"], {})
            if p.endswith("/Navigator/BlueBoat120.params")
        ]
        if paths:
            newest = max(paths, key=lambda p: [int(x) for x in p.split("/")[3].split(".")])
            out.append(mirror / "raw" / repo / c["sha"] / newest)
    return out


REPORT_HEAD_LIMIT = 60_000


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--mirror", default=str(ROOT.parent / "shared" / "upstream"))
    ap.add_argument("--write-readme", action="store_true")
    args = ap.parse_args()
    mirror = Path(args.mirror)
    cache = tempfile.mkdtemp(prefix="paramdiff-bench-")
    env = {"PARAMDIFF_CACHE": cache, "PARAMDIFF_MIRROR": str(mirror), "PATH": "/usr/bin:/bin"}
    subprocess.run([*PD, "fetch"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    base_heavy = timed([PY, "-c", "import pandas, yaml, click"], args.reps)
    base_click = timed([PY, "-c", "import click"], args.reps)
    rows = []

    def measure(label: str, cmd: list[str], base: tuple[float, float], target: float) -> None:
        t = timed(cmd, args.reps, env)
        ratio = t[0] / base[0]
        rows.append((label, t, ratio, target))

    measure("compare three-way", [*PD, "compare", "three-way", "--offline"], base_heavy, 1.3)
    measure("derive --check", [*PD, "derive", "--check", "--offline"], base_heavy, 1.3)
    measure(
        "check --profile blueboat",
        [*PD, "check", "--profile", "blueboat", "--offline"],
        base_heavy,
        1.3,
    )
    measure("check (every profile)", [*PD, "check", "--offline"], base_heavy, 1.3)
    measure("--help", [*PD, "--help"], base_click, 1.5)
    three = rows[0][1]
    versions = blueboat_versions(mirror)
    scale = []
    for n in sorted({2, 5, 10, 20, len(versions)}):
        if n <= len(versions):
            t = timed([*PD, "diff", *map(str, versions[:n])], max(1, args.reps // 2), env)
            scale.append((n, t[0]))
    full = scale[-1][1]
    rows.append((f"diff over {len(versions)} versions", (full, 0.0), full / three[0], 2.0))
    requests = warm_fetch_requests(mirror, cache)
    sizes = report_sizes(env)
    lines = [
        f"Machine: {platform.machine()}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, {args.reps} repetitions, medians.",
        f"Baselines: `import pandas, yaml, click` {base_heavy[0]:.3f}s; "
        f"`import click` {base_click[0]:.3f}s.",
        "",
        "| what | median | spread | ratio | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for label, (med, spread), ratio, target in rows:
        ok = "yes" if ratio <= target else "NO"
        lines.append(
            f"| {label} | {med:.3f}s | {spread:.3f}s | {ratio:.2f}x | <= {target}x | {ok} |"
        )
    lines.append(
        f"| warm fetch, satisfied lock | | | {requests} requests | 0 | "
        f"{'yes' if requests == 0 else 'NO'} |"
    )
    for name, whole, head in sizes:
        lines.append(
            f"| report {name}: {whole:,} characters | | | {head:,} before `<details>` | "
            f"< {REPORT_HEAD_LIMIT:,} | {'yes' if head < REPORT_HEAD_LIMIT else 'NO'} |"
        )
    lines.append("")
    lines.append("diff time by N: " + ", ".join(f"N={n}: {t:.2f}s" for n, t in scale))
    print("\n".join(lines))
    if args.write_readme:
        readme = ROOT / "README.md"
        text = readme.read_text()
        head, rest = text.split("<!-- bench:start -->", 1)
        _, tail = rest.split("<!-- bench:end -->", 1)
        readme.write_text(
            head + "<!-- bench:start -->\n" + "\n".join(lines) + "\n<!-- bench:end -->" + tail
        )


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


if __name__ == "__main__":
    main()
