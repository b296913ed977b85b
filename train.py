"""``python train.py …`` in the checkout: the ``hanafuda-train`` command of
:mod:`hanafuda_cli.train`."""

from hanafuda_cli.train import main, run

__all__ = ["main", "run"]

if __name__ == "__main__":
    run()
