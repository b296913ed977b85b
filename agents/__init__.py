"""Agents for Koi-Koi: baselines, trained policies, PPO self-play and evaluation.

Every agent has ``act(obs (B, OBS_DIM), mask (B, 98)) -> (B,) actions``;
``agents.registry.make_agent("expert" | "greedy" | "random" | checkpoint path, rules)`` builds
one, ``agents.evaluation.play_matches`` pits two against each other.
"""
