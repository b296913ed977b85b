"""Dependencies flow one way, package by package: in ``hanafuda_env`` common → koikoi →
hanaawase → render → envs; in ``agents`` paths → bots → eval → analysis → train; then the
command lines. No module imports another module's private name, and nothing forms an
import cycle.

Read from the source (imports anywhere in a module, deferred ones included), so a shortcut
that would only fail at run time in some order of imports is caught here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each library's sub-packages, lowest first: a module may import from its own sub-package
# and lower ones (the package's own ``__init__`` only re-exports, lazily).
LAYERS = {
    "hanafuda_env": ["common", "koikoi", "hanaawase", "render", "envs"],
    "agents": ["paths", "bots", "eval", "analysis", "train"],
}
CLI_SCRIPTS = ["train", "evaluate", "play", "replay"]  # the checkout's shims
CLIS = {*CLI_SCRIPTS, "benchmarks", "hanafuda_cli"}


def modules_of(package: str) -> dict[str, Path]:
    """Every module of a package by dotted name (``hanafuda_env.koikoi.core``); a package
    is named by its ``__init__``."""
    found = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def project_modules() -> dict[str, Path]:
    found = {**modules_of("hanafuda_env"), **modules_of("agents"), **modules_of("hanafuda_cli")}
    found.update({name: ROOT / f"{name}.py" for name in CLI_SCRIPTS})
    return found


def package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def import_nodes(path: Path, package: str) -> list[tuple[str, list[str]]]:
    """(module, names) for each import: ``import a.b`` → ("a.b", []); ``from a import x, y``
    → ("a", ["x", "y"]); relative imports made absolute."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level > 1:
                raise AssertionError(f"{path}: import from a parent package ({node.module})")
            module = node.module or ""
            if node.level == 1:
                module = f"{package}.{module}" if module else package
            found.append((module, [alias.name for alias in node.names]))
    return found


def imports_of(path: Path, package: str, modules: dict[str, Path]) -> set[str]:
    """The project modules (and outside top-level names) that a module imports; ``from a
    import b`` counts ``a.b`` where that is a module, else ``a``."""
    found = set()
    for module, names in import_nodes(path, package):
        found.add(module)
        found.update(f"{module}.{n}" for n in names if f"{module}.{n}" in modules)
    return found


def rank_of(name: str) -> tuple[str, int] | None:
    parts = name.split(".")
    if parts[0] not in LAYERS or len(parts) < 2:
        return None
    return parts[0], LAYERS[parts[0]].index(parts[1])


def test_every_sub_package_has_a_layer() -> None:
    for package, layers in LAYERS.items():
        subs = {p.name for p in (ROOT / package).iterdir()
                if p.is_dir() and (p / "__init__.py").exists()}
        flat = {p.stem for p in (ROOT / package).glob("*.py") if p.stem != "__init__"}
        assert subs == set(layers) - flat, f"place every {package} sub-package in LAYERS"


def test_sub_packages_import_only_their_own_and_lower_ones() -> None:
    modules = project_modules()
    for name, path in modules.items():
        own = rank_of(name)
        if own is None:
            continue
        for target in imports_of(path, package_of(name, path), modules):
            top = target.split(".")[0]
            assert top not in CLIS, f"{name} imports the command line {target}"
            if own[0] == "hanafuda_env":
                assert top not in {"agents", "torch"}, f"{name} imports {target}"
            assert target != own[0], f"{name} imports its library's package itself"
            theirs = rank_of(target)
            if theirs is not None and theirs[0] == own[0]:
                assert theirs[1] <= own[1], f"{name} imports the higher {target}"


def test_no_module_imports_a_private_name_of_another() -> None:
    modules = project_modules()
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        project_aliases = set()
        for module, names in import_nodes(path, package_of(name, path)):
            if module.split(".")[0] not in {"hanafuda_env", "agents", *CLIS}:
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            assert not private, f"{name} imports {private} from {module}"
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                    and node.module.split(".")[0] in {"hanafuda_env", "agents"}:
                project_aliases.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.Import):
                project_aliases.update(a.asname or a.name.split(".")[0] for a in node.names
                                       if a.name.split(".")[0] in {"hanafuda_env", "agents"})
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in project_aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                raise AssertionError(f"{name} reads {node.value.id}.{node.attr}")


def test_the_project_has_no_import_cycles() -> None:
    modules = project_modules()
    # A package's ``__init__`` only re-exports its modules: the edges that can close a cycle
    # run from module to module.
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    graph = {name: {t for t in imports_of(path, package_of(name, path), modules)
                    if t in modules and t not in packages}
             for name, path in modules.items() if name not in packages}
    find_cycle(graph)


def find_cycle(graph: dict[str, set[str]]) -> None:
    """Raise naming the first import cycle of ``graph`` (module -> modules it imports)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_a_cycle_is_found() -> None:
    with pytest.raises(AssertionError, match="a -> b -> c -> a"):
        find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()})


def test_a_private_import_is_found(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("from hanafuda_env.common.bits import _HIDDEN\n", encoding="utf-8")
    (module, names), = import_nodes(source, "x")
    assert module == "hanafuda_env.common.bits" and names == ["_HIDDEN"]
