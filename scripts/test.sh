#!/usr/bin/env bash
# Set up (idempotent) and run the linter and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -q "$@"
# RLlib pins its own gymnasium: its tests run in an environment of their own, and so do the
# tests of the Ray paths (that environment has Ray; the main one skips them without it).
if [ $# -eq 0 ]; then
  VENV=.venv-rllib EXTRAS=rllib bash scripts/setup.sh
  .venv-rllib/bin/python -m pytest -q -p no:cacheprovider tests/envs/test_rllib.py \
    tests/train/test_ray_training.py tests/train/test_ray_cluster.py tests/eval/test_ray_evaluation.py
fi
