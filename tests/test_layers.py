"""Dependencies flow one way: cards → rules → scoring → core → envs → agents → CLIs, and
inside ``agents`` from the lowest sub-package to the highest, with no import cycles.

Read from the source (imports anywhere in a module, deferred ones included), so a shortcut
that would only fail at run time in some order of imports is caught here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The game package's layers, lowest first; a module may import only from lower layers.
ENV_LAYERS = [
    {"cards", "rules", "results", "seeding", "files"},
    {"worlds", "bits", "hanaawase_rules"},
    {"scoring"},
    {"deals", "hanaawase_scoring"},
    {"state"},
    {"kernel", "observation", "hanaawase_state", "card_model"},
    {"expert_views"},
    {"expert_race"},
    {"expert_kernel"},
    {"batch"},
    {"core", "hanaawase_kernel"},
    {"game", "hanaawase_observation"},
    {"rendering", "env_options", "records", "card_art", "hanaawase_core"},
    {"rewards", "recorder", "board_image", "aec_wrappers"},
    {"koikoi_v0", "gym_env", "vector_env", "openspiel_game", "hanaawase_v0",
     "hanaawase_vector_env"},
    {"integrations"},
    {"__init__"},
]
CLIS = {"train", "evaluate", "play", "replay", "benchmarks", "cli_args", "cli"}
# The agents package's parts, lowest first: a part may import only from itself and lower ones.
AGENT_LAYERS = ["files", "bots", "eval", "analysis", "train"]


def imports_of(path: Path, package: str) -> set[str]:
    """Top-level names imported (``hanafuda_env.core`` → ``hanafuda_env.core``; a relative
    ``from .core import x`` → ``<package>.core``; ``from . import core`` → the same)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.add(node.module or "")
                if node.module and node.module.split(".")[0] in ("hanafuda_env", "agents"):
                    # from hanafuda_env import cards; from agents.eval import matches
                    found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif node.level > 1:
                raise AssertionError(f"{path}: import from a parent package ({node.module})")
            elif node.module:
                found.add(f"{package}.{node.module}")
            else:
                found.update(f"{package}.{alias.name}" for alias in node.names)
    return found


def test_the_game_package_imports_only_lower_layers() -> None:
    rank = {name: i for i, layer in enumerate(ENV_LAYERS) for name in layer}
    modules = {p.stem for p in (ROOT / "hanafuda_env").glob("*.py")}
    assert modules == set(rank), "place every hanafuda_env module in ENV_LAYERS"
    for name in modules:
        for target in imports_of(ROOT / "hanafuda_env" / f"{name}.py", "hanafuda_env"):
            top = target.split(".")[0]
            assert top not in {"agents", "torch", *CLIS}, f"hanafuda_env.{name} imports {target}"
            if top == "hanafuda_env" and "." in target:
                inner = target.split(".")[1]
                assert rank[inner] < rank[name], f"hanafuda_env.{name} imports {target}"


def test_agents_never_import_the_command_lines() -> None:
    for name, path in agent_modules().items():
        for target in agent_imports(name, path):
            assert target.split(".")[0] not in CLIS, f"{name} imports {target}"


def agent_modules() -> dict[str, Path]:
    """Every module of ``agents`` by dotted name (``agents.bots.expert``, ``agents.files``)."""
    found = {}
    for path in (ROOT / "agents").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def agent_imports(name: str, path: Path) -> set[str]:
    """Everything the module ``name`` imports, relative imports made absolute."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_of(path, package)


def test_agents_import_only_their_own_and_lower_parts() -> None:
    modules = agent_modules()
    parts = {name.split(".")[1] for name in modules if name.count(".")}
    assert parts == set(AGENT_LAYERS), "place every agents sub-package in AGENT_LAYERS"
    for name, path in modules.items():
        if name == "agents":
            continue
        rank = AGENT_LAYERS.index(name.split(".")[1])
        for target in agent_imports(name, path):
            if target.split(".")[0] != "agents":
                continue
            assert target != "agents", f"{name} imports the agents package itself"
            assert AGENT_LAYERS.index(target.split(".")[1]) <= rank, f"{name} imports {target}"


def test_agents_have_no_import_cycles() -> None:
    modules = agent_modules()
    # A package's ``__init__`` only re-exports its modules: the edges that can close a cycle
    # run from module to module.
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    graph = {name: {t for t in agent_imports(name, path) if t in modules and t not in packages}
             for name, path in modules.items() if name not in packages}
    find_cycle(graph)


def find_cycle(graph: dict[str, set[str]]) -> None:
    """Raise naming the first import cycle of ``graph`` (module -> modules it imports)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in graph[name]:
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_cli_helpers_are_not_imported_by_the_libraries() -> None:
    for package in ("hanafuda_env", "agents"):
        for path in (ROOT / package).rglob("*.py"):
            for target in imports_of(path, package):
                assert target.split(".")[0] != "cli", f"{path.relative_to(ROOT)} imports {target}"


def test_a_cycle_is_found() -> None:
    with pytest.raises(AssertionError, match="a -> b -> c -> a"):
        find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()})
