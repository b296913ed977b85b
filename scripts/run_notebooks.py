"""Run the notebooks end to end, writing the executed copies to ``build/notebooks/``.

    python scripts/run_notebooks.py [NAME.ipynb ...] [--out DIR]
    python scripts/run_notebooks.py --refresh koikoi_decision_value.ipynb

The notebooks in ``notebooks/`` keep the outputs of the run described in their notes; a plain
run never replaces them (the executed copy goes to ``--out``). ``--refresh`` writes the
executed notebook over the committed one, atomically, once it ran without an error. Each
notebook reads its sizes from environment variables (its first cell lists them).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT))  # agents.paths, when run as a script from anywhere

from hanafuda_env.common.files import atomic_write_text  # noqa: E402


def run_notebook(name: str, out_dir: Path | None, timeout: int = 3600) -> Path:
    """Execute ``notebooks/NAME`` (working folder: ``notebooks/``) and write the executed
    notebook to ``out_dir/NAME``, or over the original when ``out_dir`` is None."""
    import nbclient
    import nbformat

    source = NOTEBOOKS / name
    if not source.is_file():
        known = ", ".join(sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
        raise FileNotFoundError(f"no notebook {name!r} in {NOTEBOOKS} (there: {known})")
    notebook = nbformat.read(source, as_version=4)
    nbclient.NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    target = source if out_dir is None else Path(out_dir) / name
    atomic_write_text(target, nbformat.writes(notebook) + "\n")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME.ipynb",
                        help="notebooks to run (default: all of notebooks/)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "notebooks",
                        help="folder for the executed copies")
    parser.add_argument("--refresh", action="store_true",
                        help="replace the committed notebooks' outputs instead")
    args = parser.parse_args(argv)
    names = args.names or sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    for name in names:
        try:
            target = run_notebook(Path(name).name, None if args.refresh else args.out)
        except FileNotFoundError as error:
            print(f"run_notebooks.py: error: {error}", file=sys.stderr)
            return 2
        print(f"{name}: written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
