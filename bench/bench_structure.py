"""Figures of the code's structure (issue 28), read from the source with `ast` (nothing is imported):

- the controller's attributes read outside `firmware_host/controller/` (an attribute of an
  expression named `controller`, or of any `.controller`): the goal is the view and the named commands;
- the places that assemble the application (calls of `EventLoop.from_config` or `EventLoop(`) outside
  `app.py`;
- the worst cyclomatic complexity of a function outside the move generator's hot loop
  (`rules/plays.py` and the C search): McCabe's count, 1 + one per `if`, loop, `except`, `case`,
  conditional expression, comprehension condition and extra operand of `and`/`or`;
- with `--surfaces`, the cross-surface test's count of boards checked (it runs the test).

    python bench/bench_structure.py [--tree DIR] [--surfaces] [--json FILE]
"""
from __future__ import annotations

import argparse
import ast
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path
from machine import machine_text

HOT_LOOP = "firmware_host/rules/plays.py"


def python_files(tree: Path) -> list[Path]:
    return sorted((tree / "firmware_host").rglob("*.py"))


def controller_attributes(tree: Path) -> dict[str, list[str]]:
    """Attribute name -> the files outside controller/ that read it on a controller."""
    found: dict[str, set[str]] = {}
    for path in python_files(tree):
        relative = path.relative_to(tree).as_posix()
        if relative.startswith("firmware_host/controller/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and _is_controller(node.value):
                found.setdefault(node.attr, set()).add(relative)
    return {name: sorted(files) for name, files in sorted(found.items())}


def _is_controller(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "controller") or \
        (isinstance(node, ast.Attribute) and node.attr == "controller")


def assembly_places(tree: Path) -> list[str]:
    places = []
    for path in python_files(tree):
        relative = path.relative_to(tree).as_posix()
        if relative == "firmware_host/app.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _builds_loop(node.func):
                places.append(f"{relative}:{node.lineno}")
    return places


def _builds_loop(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "EventLoop") or \
        (isinstance(func, ast.Attribute) and func.attr == "from_config" and isinstance(func.value, ast.Name)
         and func.value.id == "EventLoop")


def complexity(function: ast.AST) -> int:
    count = 1
    for node in ast.walk(function):
        if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue   # (its own nodes are still walked: a nested function counts toward its parent)
        if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.IfExp, ast.ExceptHandler,
                             ast.match_case, ast.Assert)):
            count += 1
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            count += 1 + len(node.ifs)
    return count


def worst_complexity(tree: Path, shown: int = 5) -> list[tuple[int, str]]:
    scores = []
    for path in python_files(tree):
        relative = path.relative_to(tree).as_posix()
        if relative == HOT_LOOP:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scores.append((complexity(node), f"{relative}:{node.lineno} {node.name}"))
    return sorted(scores, reverse=True)[:shown]


def boards_checked(tree: Path) -> dict[str, int]:
    """Run the cross-surface tests and read their counts of boards checked."""
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                          "tests/hil/test_surfaces_agree.py",
                          "tests/web/test_browser.py::test_on_a_mirrored_board_the_live_pages_words_and_marks_name_the_same_point"],
                         cwd=tree, capture_output=True, text=True)
    counts = {match.group(1): int(match.group(2))
              for match in re.finditer(r"(as-wired|mirrored): (\d+) boards checked", run.stdout)}
    browser = re.search(r"(\d+) boards checked in the browser", run.stdout)
    if browser:
        counts["browser, mirrored"] = int(browser.group(1))
    if run.returncode != 0:
        counts["failed"] = run.returncode
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--surfaces", action="store_true", help="also run the cross-surface tests")
    parser.add_argument("--json", type=Path, help="write the record here")
    args = parser.parse_args()
    attributes = controller_attributes(args.tree)
    places = assembly_places(args.tree)
    worst = worst_complexity(args.tree)
    record = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_text(),
        "command": " ".join(["python", "bench/bench_structure.py", *sys.argv[1:]]),
        "tree": str(args.tree),
        "controller_attributes_read_outside": len(attributes),
        "attributes": attributes,
        "assembly_places": places,
        "worst_complexity": [{"complexity": score, "function": where} for score, where in worst],
    }
    if args.surfaces:
        record["boards_checked"] = boards_checked(args.tree)
    print(f"controller attributes read outside controller/: {len(attributes)} ({', '.join(attributes)})")
    print(f"places that assemble the application: {len(places)} ({', '.join(places)})")
    print("worst cyclomatic complexity outside rules/plays.py: " +
          "; ".join(f"{score} {where}" for score, where in worst))
    if args.surfaces:
        print(f"boards checked across the surfaces: {record['boards_checked']}")
    if args.json:
        args.json.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
