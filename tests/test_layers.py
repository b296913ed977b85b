"""Dependencies flow one way: cards → rules → scoring → core → envs → agents → CLIs.

Read from the source (imports anywhere in a module, deferred ones included), so a shortcut
that would only fail at run time in some order of imports is caught here.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The game package's layers, lowest first; a module may import only from lower layers.
ENV_LAYERS = [
    {"cards", "rules", "results", "seeding"},
    {"worlds"},
    {"scoring"},
    {"deals"},
    {"core", "game_scoring"},
    {"game"},
    {"observation", "rendering", "env_options"},
    {"rewards"},
    {"koikoi_v0", "gym_env", "vector_env"},
    {"__init__"},
]
CLIS = {"train", "evaluate", "play", "benchmarks", "cli_args"}


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
                if node.module in ("hanafuda_env", "agents"):  # from hanafuda_env import cards
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
    for path in (ROOT / "agents").glob("*.py"):
        for target in imports_of(path, "agents"):
            assert target.split(".")[0] not in CLIS, f"agents.{path.stem} imports {target}"
