"""``python replay.py …`` in the checkout: the ``hanafuda-replay`` command of
:mod:`hanafuda_cli.replay`."""

from hanafuda_cli.replay import main, run

__all__ = ["main", "run"]

if __name__ == "__main__":
    run()
