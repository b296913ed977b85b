"""Ray scale-out: training decisions/s with N rollout workers, and evaluation matches/s.

    python benchmarks/bench_ray.py [--config configs/default.yaml] [--workers 1 2 4]
                                   [--updates 6] [--matches 2000] [--batch 250]
                                   [--eval-workers 2] [key=value ...]

Needs Ray (``pip install -e '.[ray]'``); it starts a local Ray with every core of the
machine, or joins the cluster that ``RAY_ADDRESS`` names. Training: the same config is timed
in this process (the local path) and with each number of workers (``ray_workers``), each a
PPO update from the start of its rollout to the end of its gradient epochs (``charts/SPS``),
after one update that is not timed (the workers start in it); the pool is first filled with
snapshots, as in ``bench_training.py``. The learner's update always runs here, in one
process, so it bounds the speed-up; so do the machine's cores, which the workers, the
learner and Ray's own processes share. Evaluation: ``play_matches`` of expert against
greedy, locally and as Ray tasks (one per wave of ``--batch`` matches), with a check that
both give the same results.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_training import timed_updates  # this folder is on the path of a script run from it
from cli_args import (
    JoinLists,
    make_parser,
    non_negative_int,
    positive_int,
    positive_int_list,
    run_main,
    usage_errors,
)

from agents.bots.registry import make_agent
from agents.eval.matches import play_matches
from agents.train.config import PPOConfig
from agents.train.run import make_trainer

DEFAULT_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "default.yaml"


def training_rate(cfg: PPOConfig, updates: int, snapshots: int) -> tuple[float, float]:
    """Median decisions/s of ``updates`` PPO updates, and the rollout's share of the time,
    with ``snapshots`` snapshots in the pool first."""
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = make_trainer(cfg, run_dir)  # its rollouts on Ray workers with ray_workers
        try:
            for step in range(snapshots):  # a steady-state pool
                trainer.pool.add_snapshot(trainer.network, step)
            trainer.learn(trainer.collect()[0])  # not timed: the workers start here
            rates, shares = timed_updates(trainer, updates)
        finally:
            trainer.close()
    return statistics.median(rates), statistics.median(shares)


def evaluation_rate(matches: int, batch: int, workers: int) -> tuple[float, dict]:
    agents = make_agent("expert", seed=0), make_agent("greedy", seed=1)
    start = time.perf_counter()
    result = play_matches(*agents, matches, seed=0, batch=batch, agent_seeds=(0, 1),
                          workers=workers)
    return matches / (time.perf_counter() - start), result


def figures(result: dict) -> tuple:
    """What must not differ between the local path and Ray (timings do)."""
    return (result["wins"], result["draws"], result["losses"], result["points_per_match"],
            result["a"]["moves"], result["b"]["moves"], result["a"]["koikoi"])


def main(argv: list[str] | None = None) -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--config", default=str(DEFAULT_CONFIG), help="training config YAML")
    parser.add_argument("--workers", type=positive_int_list, nargs="+", action=JoinLists,
                        default=[1, 2, 4], help="numbers of rollout workers to time")
    parser.add_argument("--updates", type=positive_int, default=6, help="timed PPO updates")
    parser.add_argument("--snapshots", type=non_negative_int, default=None,
                        help="snapshots put in the pool first (default: max_snapshots); "
                        "each opponent in use is one more policy call per step in every "
                        "worker")
    parser.add_argument("--matches", type=positive_int, default=2000,
                        help="evaluation matches (expert vs greedy)")
    parser.add_argument("--batch", type=positive_int, default=250,
                        help="matches per wave (one Ray task each)")
    parser.add_argument("--eval-workers", type=positive_int, default=2,
                        help="Ray tasks at once for the evaluation")
    parser.add_argument("overrides", nargs="*", help="config key=value")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("ray") is None:
        parser.error("Ray is not installed: pip install -e '.[ray]'")
    with usage_errors(parser):
        cfg = PPOConfig.load(args.config, [*args.overrides, "progress_bar=false"])
        for workers in args.workers:
            dataclasses.replace(cfg, ray_workers=workers)  # n_envs must split evenly

    from agents.eval.ray_tasks import init_ray

    ray = init_ray()
    cpus = int(ray.cluster_resources().get("CPU", 0))
    print(f"config {args.config}: {cfg.n_envs} games x {cfg.n_steps} steps per update, "
          f"{cfg.hidden}x{cfg.layers} network; Ray with {cpus} CPUs")
    snapshots = cfg.max_snapshots if args.snapshots is None else args.snapshots
    print(f"  pool: {len(cfg.baselines)} baselines and {snapshots} snapshots")
    local, share = training_rate(cfg, args.updates, snapshots)
    print(f"  training, local path      : {local:>9,.0f} decisions/s "
          f"(rollout {share:.0%} of the time)")
    for workers in args.workers:
        rate, share = training_rate(dataclasses.replace(cfg, ray_workers=workers),
                                    args.updates, snapshots)
        print(f"  training, {workers} Ray worker{'s' if workers > 1 else ' '}    : "
              f"{rate:>9,.0f} decisions/s ({rate / local:.2f}x local; rollout {share:.0%})")
    evaluation_rate(args.eval_workers * args.batch, args.batch, args.eval_workers)  # warm-up
    local_rate, local_result = evaluation_rate(args.matches, args.batch, 0)
    ray_rate, ray_result = evaluation_rate(args.matches, args.batch, args.eval_workers)
    same = "same results" if figures(ray_result) == figures(local_result) else "RESULTS DIFFER"
    print(f"  evaluation, {args.matches} matches expert vs greedy, waves of {args.batch}: "
          f"local {local_rate:,.0f} matches/s, Ray ({args.eval_workers} at once) "
          f"{ray_rate:,.0f} matches/s ({ray_rate / local_rate:.2f}x; {same})")


if __name__ == "__main__":
    sys.exit(run_main(main))
