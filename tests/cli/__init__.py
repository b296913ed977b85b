"""The command lines (train.py, evaluate.py, play.py, the benchmarks), the README's examples
and the notebooks."""
