"""The layers of docs/architecture.md, enforced: every import inside `firmware_host` points down.

Each package (or top-level module) may import only from itself, from the package root (its
`__version__`), from `files` (the bounded reading of a file someone names, which imports nothing of
the package) and from the packages its row below names. Imports inside functions count too: a lazy
import is still a dependency. The table is the architecture's, not read off the code: a new arrow
needs a reason written into docs/architecture.md first.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "firmware_host"

CORE = {"rules", "referee", "bot", "club"}
DRIVERS = {"hw", "sensing", "leds", "sim"}
BELOW_APP = CORE | DRIVERS | {"journal", "controller", "config", "wiring", "maker"}
APPLICATIONS = {"service", "demo", "web", "hil", "hub"}

# What every package may import: the package root and the reading of named files.
BASE = {"", "files"}
# package -> the packages it may import from (besides itself and BASE)
ALLOWED: dict[str, set[str]] = {
    "files": set(),
    # the pure core
    "rules": set(),
    "referee": {"rules"},
    "bot": {"rules"},
    "club": {"rules"},                        # ratings, pairings and fair dice of a club of boards
    # drivers: they post events; they never know the controller
    "hw": set(),
    "sensing": {"rules"},                     # a board reading and its JSON are the position format's (rules/reading.py)
    "leds": {"hw"},
    "sim": {"sensing"},                       # the simulated board and MCU: the lowest layer, simulated
    "journal": {"rules"},
    "config": {"rules", "hw", "sensing", "leds"},
    "wiring": {"hw", "sensing", "leds"},
    "maker": {"hw", "sensing", "leds", "wiring"},   # the maker's documents use the wiring's pinouts
    # the state machine, and the one loop that owns it
    "controller": {"rules", "referee", "bot", "hw", "sensing", "leds", "journal"},
    "app": {"rules", "referee", "bot", "hw", "sensing", "leds", "journal", "config", "controller"},
    # applications on top of the loop: the product, the demo, the companion, the rig
    "service": BELOW_APP | {"app"},
    "demo": BELOW_APP | {"app", "service"},
    "web": BELOW_APP | {"app", "service"},
    "hil": BELOW_APP | {"app", "service", "demo"},
    # the club's hub: the broker's messages, its records, its pages; the pages stand behind the companion's
    # doors (web.guard, web.server, web.app's request checks and board drawing), one owner for each
    "hub": BELOW_APP | {"web"},
    # the shell: the only place with argparse, stdin and stdout
    "commands": BELOW_APP | {"app"} | APPLICATIONS,
    "cli": {"commands"},
    "__main__": {"cli"},
}


def package_of(module: str) -> str:
    """`firmware_host.rules.plays` -> "rules"; the root package -> ""."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every `firmware_host` module the file imports, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            found.update(name for name in names if name.split(".")[0] == "firmware_host")
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "firmware_host")
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(path): path for path in SOURCES}


def real_modules(names: set[str]) -> set[str]:
    """`from a.b import c` names either module a.b.c or an attribute of a.b: keep what is a module."""
    return {name for name in names if name in MODULES}


GRAPH = {module: real_modules(imports_of(path)) for module, path in MODULES.items()}


def test_every_package_has_a_row():
    packages = {package_of(module) for module in MODULES} - {""}
    assert packages <= ALLOWED.keys(), f"packages with no layer: {sorted(packages - ALLOWED.keys())}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    own = package_of(module)
    allowed = ALLOWED.get(own, set()) | {own} | BASE
    wrong = sorted(target for target in GRAPH[module] if package_of(target) not in allowed)
    assert not wrong, f"{module} ({own}) imports {wrong}; {own} may import only {sorted(ALLOWED[own])}"


def test_nothing_but_its_commands_imports_the_rig():
    importers = sorted(module for module, targets in GRAPH.items()
                       if package_of(module) not in {"hil", "commands"}
                       and any(package_of(target) == "hil" for target in targets))
    assert importers == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's `__init__` re-exporting its modules is not a cycle with them: drop the edges from a
    module to its own package's `__init__` (the import machinery loads it first anyway)."""
    return {module: {target for target in targets
                     if not (target in MODULES and MODULES[target].name == "__init__.py"
                             and module.startswith(target + "."))}
            for module, targets in graph.items()}


def test_no_import_cycles():
    assert cycles(without_package_inits(GRAPH)) == []


def test_the_checks_catch_a_forbidden_import_and_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    source = PACKAGE / "rules" / "plays.py"
    assert package_of("firmware_host.controller.machine") not in ALLOWED["rules"]
    assert all(package_of(target) in {"rules", ""} for target in GRAPH[module_name(source)])


# What the rest of the package may use of a controller (docs/architecture.md, `controller/`): its one
# view, its named commands, and the loop's driving of it (events, time, the scene it renders).
CONTROLLER_USE = {"view", "new_match", "apply_settings", "referee_action", "close_fault_episodes", "handle", "tick",
                  "next_deadline", "scene"}


def controller_use(tree: ast.AST) -> set[str]:
    """The attributes a module reads or writes on an expression named `controller` or `….controller`."""
    def is_controller(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "controller") or \
            (isinstance(node, ast.Attribute) and node.attr == "controller")
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and is_controller(node.value)}


@pytest.mark.parametrize("module", sorted(module for module in MODULES if package_of(module) != "controller"))
def test_outside_the_controller_only_its_view_and_commands_are_used(module):
    used = controller_use(ast.parse(MODULES[module].read_text()))
    assert used <= CONTROLLER_USE, f"{module} uses the controller's {sorted(used - CONTROLLER_USE)}"


def test_the_controller_check_sees_a_read_and_a_write():
    assert controller_use(ast.parse("x = loop.controller.state\ncontroller.match_rules = rules")) == \
        {"state", "match_rules"}
