"""Agents for Koi-Koi, in four sub-packages (lowest first; each imports only those before it):

- :mod:`agents.bots`: the agent interface, the random, greedy and expert baselines, the bot
  that plays a trained network from its checkpoint, and ``make_agent`` (a name or a file);
- :mod:`agents.eval`: head-to-head matches on the same decks, a league with Elo ratings,
  and the intervals they report;
- :mod:`agents.analysis`: what a koi-koi call and each legal move are worth, by rollouts;
- :mod:`agents.train`: masked PPO with self-play, its config, run folder and checkpoints,
  the opponent pool and the warm start that clones a teacher.

Every agent has ``act(obs (B, OBS_DIM), mask (B, 98)) -> (B,) actions``.
"""
