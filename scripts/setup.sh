#!/usr/bin/env bash
# Create .venv with PyTorch first, then the project with its dev tools (idempotent).
# VENV=.venv-rllib EXTRAS=rllib makes the separate environment for RLlib (it pins gymnasium).
# PyPI's Linux torch is the CUDA build (gigabytes of NVIDIA libraries); on a machine without
# an NVIDIA GPU, PyTorch's CPU-only index is added so pip picks torch 2.13.0+cpu instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
EXTRAS=${EXTRAS:-dev}
TORCH=2.13.0
CPU_INDEX=https://download.pytorch.org/whl/cpu
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
if ! "$VENV/bin/python" -c "import sys, torch; sys.exit(torch.__version__.split('+')[0] != '$TORCH')" \
    2>/dev/null; then
  extra=()
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "setup: NVIDIA GPU found, installing PyTorch's default (CUDA) build"
  elif "$VENV/bin/python" -c "import urllib.request as u; u.urlopen('$CPU_INDEX/torch/', timeout=15)" \
      2>/dev/null; then
    extra=(--extra-index-url "$CPU_INDEX")
  else  # e.g. a machine that reaches only a mirror: its pip config must offer the CPU wheel
    echo "setup: $CPU_INDEX is not reachable; installing torch==$TORCH from the configured indexes"
  fi
  "$VENV/bin/python" -m pip install -q "torch==$TORCH" ${extra[@]+"${extra[@]}"}
fi
# setuptools warns at every editable build, in boxes a user can do nothing about: that an
# editable install may be shadowed by same-named folders, and that the data folders
# (pretrained/, web/static/) look like packages. Only those are hidden; other warnings and
# every error still print.
QUIET_BUILD="ignore:Editable installation,ignore:Package 'agents.bots.pretrained' is absent"
QUIET_BUILD+=",ignore:Package 'hanafuda_cli.web.static' is absent"
PYTHONWARNINGS="${PYTHONWARNINGS:+$PYTHONWARNINGS,}$QUIET_BUILD" \
  "$VENV/bin/python" -m pip install -q -e ".[$EXTRAS]"
# An empty Numba cache costs about a minute of compiling at the first run: paid here, once
# for each version of the kernels' sources (the cache folder follows them).
printf "setup: compiling the game kernels into Numba's cache (once; a few minutes on 2 cores) ... "
"$VENV/bin/python" scripts/warm_numba_cache.py \
  || echo "setup: the kernels could not be compiled now; the first run will compile them"
# The browser test of play.py --web drives Debian's Chromium through its chromedriver (the
# tests download no browser): installed here when missing, as root on Debian.
if [ "$EXTRAS" = dev ] && [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] \
    && ! { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; }; then
  echo "setup: installing chromium and chromium-driver (apt-get) for the browser test"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
      chromium-driver >/dev/null; } || echo "setup: chromium could not be installed; the browser test will be skipped"
fi
