"""``python evaluate.py …`` in the checkout: the ``hanafuda-evaluate`` command of
:mod:`hanafuda_cli.evaluate`."""

from hanafuda_cli.evaluate import main, run

__all__ = ["main", "run"]

if __name__ == "__main__":
    run()
