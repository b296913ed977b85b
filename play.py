"""``python play.py …`` in the checkout: the ``hanafuda-play`` command of
:mod:`hanafuda_cli.play`."""

from hanafuda_cli.play import main, run

__all__ = ["main", "run"]

if __name__ == "__main__":
    run()
