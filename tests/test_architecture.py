"""The code's shape, checked like its behaviour: ruff, mypy, the import layers, no cycles,
functions a reader can hold."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "paramdiff"
MAX_FUNCTION_LINES = 60
# A function may run longer only with a reason in a comment on its first line: `# long: why`.
LONG_MARKER = "# long:"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "paramdiff", "tests", "bench")
    assert result.returncode == 0, result.stdout


def test_mypy_is_clean() -> None:
    result = run("mypy", "paramdiff", "--ignore-missing-imports")
    assert result.returncode == 0, result.stdout


def test_lower_layers_never_import_higher_ones() -> None:
    """setup.cfg's [importlinter] contract: cli > check/review > jobs > pin > project >
    render > derive > simulation > comparison > fetch > overlay > config > parse >
    model > files/digests > errors."""
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _cycle(graph: grimp.ImportGraph) -> list[str] | None:
    """One import cycle between modules, if there is any (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for nxt in sorted(graph.find_modules_directly_imported_by(module)):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(graph.modules):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_no_import_cycles_between_modules() -> None:
    graph = grimp.build_graph("paramdiff", cache_dir=None)
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "a.x", "a.y"):
        graph.add_module(name)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    assert _cycle(graph) == ["a.x", "a.y", "a.x"]


def long_functions(source: str) -> list[tuple[str, int]]:
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and LONG_MARKER not in lines[node.lineno - 1]:
                out.append((node.name, length))
    return out


def test_no_function_is_longer_than_a_reader_can_hold() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {name} ({length} lines)"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, length in long_functions(path.read_text())
    ]
    assert not found, f"over {MAX_FUNCTION_LINES} lines without a '{LONG_MARKER}' reason: {found}"


def test_the_length_rule_counts_lines() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}") == [("f", MAX_FUNCTION_LINES + 1)]
    assert long_functions(f"def f():  {LONG_MARKER} a table\n{body}") == []


def test_every_module_says_what_it_owns() -> None:
    missing = [
        str(p.relative_to(ROOT))
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.stat().st_size and ast.get_docstring(ast.parse(p.read_text())) is None
    ]
    assert not missing, f"modules without a docstring: {missing}"


def test_no_two_modules_share_a_name() -> None:
    """#30: a name says which module it is, anywhere in the tree (``__init__`` aside)."""
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
