"""Compile the game kernels into Numba's cache once, so the first real run starts at once.

    python scripts/warm_numba_cache.py

An empty cache costs about a minute of compiling before anything happens; ``setup.sh`` pays
it here, with a word on screen. Each compiled entry point is run once, through the public
APIs the trainer, the evaluators and the players call (so with the argument types they
pass): Koi-Koi's batched core (steps, rollouts with each compiled policy, forks and
resampled worlds), its one-game engine, the observation encoders, the vector
environments with both rewards, the baseline and expert bots and a match between them, and
Hana-awase's core, bots and matches. The cache folder follows the kernels' sources
(:mod:`hanafuda_env.common.numba_cache`), so this is needed again only after they change.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout


def warm_koikoi() -> None:
    """Koi-Koi's kernels, through the core, the engine, the encoder, the envs and the bots."""
    import numpy as np

    from agents.bots.baselines import GreedyAgent, RandomAgent
    from agents.bots.expert import ExpertAgent
    from agents.eval.matches import play_matches
    from hanafuda_env.envs.vector_env import KoiKoiVectorEnv
    from hanafuda_env.koikoi.batch import POLICIES
    from hanafuda_env.koikoi.core import KoiKoiCore
    from hanafuda_env.koikoi.game import KoiKoiGame
    from hanafuda_env.koikoi.observation import encode_observations
    from hanafuda_env.koikoi.rules import resolve_rules

    rules = resolve_rules("nintendo")
    rng = np.random.default_rng(0)
    core = KoiKoiCore(4, rules, seed=0, autoreset=False)
    for _ in range(6):
        core.step(core.sample_legal_actions(rng))
    obs, mask = encode_observations(core), core.legal_action_mask()
    for agent in (RandomAgent(rules, seed=0), GreedyAgent(rules, seed=0),
                  ExpertAgent(rules, seed=0)):
        agent.act(obs, mask)
    for policy in POLICIES:
        for until in ("round", "match"):
            branch = core.fork(0, copies=2, seed=1)
            branch.resample_hidden(branch.mover, rng)
            branch.rollout(policy, until, seed=2)
    core.fork([1, 2]).shuffle_stock(rng)
    core.deal_next()
    game = KoiKoiGame(rules, seed=0)
    for _ in range(4):
        game.step(game.legal_actions()[0])
    for reward in ("points", "match_win"):
        env = KoiKoiVectorEnv(4, rules, episode="match", seed=0, reward=reward)
        env.reset(seed=0)
        for _ in range(6):
            masks = env.action_masks()
            env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    short = rules.replace(rounds=1)
    play_matches(ExpertAgent(short, seed=0), GreedyAgent(short, seed=1), 2, short, seed=0)


def warm_hanaawase() -> None:
    """Hana-awase's kernels, through its core, its vector env, its bots and a match."""
    import numpy as np

    from agents.bots.hanaawase import HANAAWASE_BOTS
    from agents.eval.hanaawase_matches import play_hanaawase_matches
    from hanafuda_env.envs.hanaawase_vector_env import HanaawaseVectorEnv
    from hanafuda_env.hanaawase.core import HanaawaseCore
    from hanafuda_env.hanaawase.kernel import POLICIES

    rng = np.random.default_rng(0)
    core = HanaawaseCore(4, seed=0)
    for _ in range(4):
        core.step(core.sample_legal_actions(rng))
    core.observe()
    for policy in POLICIES:
        for until in ("round", "match"):
            core.fork(0, copies=2).rollout(policy, until)
    env = HanaawaseVectorEnv(4, seed=0)
    obs, info = env.reset(seed=0)
    bots = [HANAAWASE_BOTS[name](seed=0) for name in ("random", "greedy", "expert")]
    for bot in bots:
        bot.act(obs, info["action_mask"])
    play_hanaawase_matches(bots, 1, {"rounds": 1}, seed=0)


def main() -> int:
    start = time.perf_counter()
    import numba

    import hanafuda_env  # noqa: F401  (points Numba's cache at the folder for these sources)

    warm_koikoi()
    warm_hanaawase()
    where = numba.config.CACHE_DIR or "__pycache__ beside the sources"
    print(f"done in {time.perf_counter() - start:.0f} s (cache: {where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
