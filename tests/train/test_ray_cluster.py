"""Joining a running Ray cluster: ``ray start --head`` on this machine, then ``train.py`` with
``ray_address`` pointing at it runs its workers there (the checkout uploaded as the job's
working_dir) and writes its run folder as a local run does. ``ray start`` turns on token
authentication, so the run is given ``RAY_AUTH_MODE=token`` as the README says."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import torch

from tests.conftest import NO_RAY
from tests.helpers.paths import ROOT

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=NO_RAY)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@needs_ray
def test_a_run_joins_a_cluster_started_with_ray_start(tmp_path: Path) -> None:
    port = _free_port()
    ray_cli = Path(sys.executable).parent / "ray"
    log_path = tmp_path / "head.log"
    # Ray's socket paths must stay under 107 bytes: a short folder of its own
    ray_temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    with log_path.open("w") as log:
        head = subprocess.Popen(
            [str(ray_cli), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
             "--include-dashboard=false", f"--temp-dir={ray_temp}"],
            stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):  # the head says when it is up (polled, no fixed wait)
            if "Ray runtime started" in log_path.read_text() or head.poll() is not None:
                break
            time.sleep(0.5)
        assert head.poll() is None, log_path.read_text()[-3000:]
        run = subprocess.run(
            [sys.executable, "train.py", "--config", "configs/smoke.yaml", "--run-dir",
             str(tmp_path / "run"), "ray_workers=2", f"ray_address=127.0.0.1:{port}",
             "eval_interval=0", "total_decisions=2048", "progress_bar=false"],
            cwd=ROOT, capture_output=True, text=True, timeout=600,
            env={**os.environ, "RAY_AUTH_MODE": "token"})  # the token `ray start` made
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        latest = torch.load(tmp_path / "run" / "checkpoints" / "latest.pt", weights_only=True)
        assert len(latest["ray_workers"]) == 2 and latest["global_step"] > 0
    finally:
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=120)
        except subprocess.TimeoutExpired:
            head.kill()
        shutil.rmtree(ray_temp, ignore_errors=True)
