"""What the command lines share (``train.py``, ``evaluate.py``, ``play.py``, ``benchmarks/``):
argument types with clear usage errors, and the commands they print for the user to type;
``hanafuda_cli.web`` is the browser page of ``play.py --web``."""
