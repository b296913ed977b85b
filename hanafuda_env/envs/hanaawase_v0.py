"""PettingZoo AEC environment: one Hana-awase match of 2–7 players (RULES.md §3).

Agents ``player_0 … player_{N−1}`` are seats; the player to move (``agent_selection``) is
whoever the rules say: the dealer first, then around the table, and a field choice is made by
the player who played or drew the card.

* :func:`env` is :class:`raw_env` in PettingZoo's stock wrappers, as its classic games are:
  ``TerminateIllegalWrapper`` (an illegal move: the mover gets ``illegal_reward``, the others
  0, and the episode ends), ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``;
  ``illegal_action="raise"`` keeps only the order checks, and an illegal move then raises
  :class:`~hanafuda_env.koikoi.core.IllegalActionError` naming the legal actions, changing nothing.
* Observation: ``{"observation": float32[D], "action_mask": int8[96]}`` from the agent's own
  seat (layout in :mod:`hanafuda_env.hanaawase.observation`); the mask is non-zero only for
  the agent to move, and ``infos[agent]["action_mask"]`` holds the same (arrays only).
* Reward: at each round's end every player gets its score minus the mean of the round's
  scores (§3.2 Decision: zero-sum at every player count), times ``reward_scale``.
  ``env.unwrapped.round_results`` holds the latest finished round per seat
  (``hanaawase_core.describe_round``).
* Episode ``"match"`` (the default) is a match of ``rounds`` rounds; ``"round"`` is one round,
  and ``reset()`` without seed then deals the match's next round.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from hanafuda_env.common.indices import check_index, check_optional_seat
from hanafuda_env.envs.aec_wrappers import check_illegal_options, stock_wrappers
from hanafuda_env.envs.options import (
    EPISODES,
    as_action,
    check_number,
    check_render_mode,
    check_seed,
    check_unknown,
    not_an_action,
    one_of,
    reset_needed,
)
from hanafuda_env.hanaawase.core import HanaawaseCore, describe_round, zero_sum
from hanafuda_env.hanaawase.rules import HanaawaseRules, resolve_hanaawase_rules
from hanafuda_env.hanaawase.state import NUM_ACTIONS
from hanafuda_env.koikoi.core import IllegalActionError, action_name, describe_actions
from hanafuda_env.koikoi.state import MATCH_OVER, PHASE_NAMES, ROUND_OVER
from hanafuda_env.render.text import card_label, cards_line, counted

OPTIONS = ("num_players", "rules", "rounds", "episode", "reward_scale", "seed", "render_mode",
           "render_viewer")


def env(*, illegal_action: str = "penalize", illegal_reward: float = -1.0,
        **kwargs: Any) -> AECEnv:
    """The environment in PettingZoo's stock wrappers; other keywords are :class:`raw_env`'s."""
    check_illegal_options(illegal_action, illegal_reward)
    return stock_wrappers(raw_env(**kwargs), illegal_action, illegal_reward)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Hana-awase for ``num_players`` seats (default 3). Options (keywords; unknown ones raise
    ValueError): ``rules`` (a HanaawaseRules or a mapping of its options: the §3.4 variants),
    ``rounds`` (of a match), ``episode`` ("match" or "round"), ``reward_scale``, ``seed``
    (for the first ``reset()`` given none), ``render_mode`` ("ansi" returns the text board,
    "human" prints it after every step) and ``render_viewer`` (None: every hand shown, a
    spectator's view; "player_k" or "mover": that player's hand only)."""

    metadata = {"name": "hanaawase_v0", "render_modes": ["ansi", "human"],
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, *, num_players: int | None = None,
                 rules: HanaawaseRules | dict | None = None, rounds: int | None = None,
                 episode: str = "match", reward_scale: float = 1.0, seed: int | None = None,
                 render_mode: str | None = None, render_viewer: str | None = None,
                 **unknown: Any):
        check_unknown(unknown, OPTIONS, "hanaawase_v0")
        super().__init__()
        changes = {k: v for k, v in (("num_players", num_players), ("rounds", rounds))
                   if v is not None}
        self.rules = resolve_hanaawase_rules(rules, **changes)
        if episode not in EPISODES:
            raise ValueError(one_of("episode", episode, EPISODES))
        self.episode = episode
        self.reward_scale = check_number("reward_scale", reward_scale)
        check_render_mode(render_mode, self.metadata["render_modes"])
        n = self.rules.num_players
        self.possible_agents = [f"player_{p}" for p in range(n)]
        viewers = [*self.possible_agents, "mover", None]
        if render_viewer not in viewers:
            raise ValueError(one_of("render_viewer", render_viewer, viewers))
        self.render_mode, self.render_viewer = render_mode, render_viewer
        self.agents = list(self.possible_agents)
        self.core = HanaawaseCore(1, self.rules, seed=0)
        size = self.core.observation_size
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
            for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._seed = check_seed(seed, "hanaawase_v0")
        self._np_random: np.random.Generator | None = None
        self._ended = False
        self._started = False  # a reset has dealt an episode (step() needs one)
        self.round_results: list[dict] = []
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode: a new match, or (episode "round", after a round that ended by
        itself, no seed given) the match's next round. ``options`` are not used."""
        seed = check_seed(seed, "hanaawase_v0.reset")
        if seed is None:
            seed = self._seed
        self._seed = None
        core = self.core
        if (seed is None and self._ended and self.episode == "round"
                and core.phase[0] == ROUND_OVER):
            core.deal_next()
        else:
            if seed is not None:
                self._np_random, _ = seeding.np_random(seed)
            elif self._np_random is None:
                self._np_random, _ = seeding.np_random()
            core.reset(int(self._np_random.integers(2**63)))
        self._ended = False
        self._started = True
        self.agents = list(self.possible_agents)
        self.round_results = []
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"action_mask": np.zeros(NUM_ACTIONS, np.int8)} for a in self.agents}
        self._select_mover()

    def _select_mover(self) -> None:
        """Give the player to move a fresh mask (in its infos and its observation)."""
        previous = self.agent_selection
        if self._ended:
            self._mask = np.zeros(NUM_ACTIONS, np.int8)
            for a in self.agents:
                self.infos[a] = {"action_mask": np.zeros(NUM_ACTIONS, np.int8)}
            return
        legal = np.zeros(NUM_ACTIONS, np.int8)
        legal[self.core.legal_actions(0)] = 1
        self._mask = legal
        self.agent_selection = self.possible_agents[int(self.core.mover[0])]
        self.infos[self.agent_selection] = {"action_mask": self._mask}
        if previous != self.agent_selection and previous in self.infos:
            self.infos[previous] = {"action_mask": np.zeros(NUM_ACTIONS, np.int8)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        act = as_action(action)
        if act is None:
            raise not_an_action(agent, action, np.flatnonzero(self._mask).tolist())
        if not 0 <= act < NUM_ACTIONS or not self._mask[act]:
            if not self._started:
                raise reset_needed("hanaawase_v0.step")
            legal = np.flatnonzero(self._mask).tolist()
            raise IllegalActionError(
                f"{agent} cannot take action {action!r} ({action_name(act)}) now; legal "
                f"actions: {describe_actions(legal)}. The game was not changed.")
        self._cumulative_rewards[agent] = 0.0
        row = self.core.step_one(0, act)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if row is not None:
            self.round_results = describe_round(row, self.rules)
            paid = zero_sum(row["score"][:self.rules.num_players])
            for seat, a in enumerate(self.possible_agents):
                self.rewards[a] = float(paid[seat]) * self.reward_scale
            if self.episode == "round" or row["match_over"]:
                self._ended = True
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self.core.deal_next()
        self._accumulate_rewards()
        self._select_mover()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        moving = not self._ended and agent == self.agent_selection
        return {"observation": self.core.observe_one(0, seat),
                "action_mask": self._mask if moving else np.zeros(NUM_ACTIONS, np.int8)}

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("hanaawase_v0.render() called without a render_mode; pass "
                        "render_mode='ansi' or 'human' to env().")
            return None
        viewer = self.render_viewer
        seat = (int(self.core.mover[0]) if viewer == "mover" else
                None if viewer is None else self.possible_agents.index(viewer))
        text = render_hanaawase(self.core, 0, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def render_hanaawase(core: HanaawaseCore, game: int = 0, viewer: int | None = None) -> str:
    """A multi-line picture of one game; with ``viewer`` set the other hands are hidden
    (cards a player declared stay shown)."""
    s = core.records[check_index(game, core.n_games)]
    viewer = check_optional_seat(viewer, core.num_players)
    rules = core.rules
    phase, dealer, mover = int(s["phase"]), int(s["dealer"]), int(s["mover"])
    played = int(s["round_index"])
    when = (f"round {played + 1}/{rules.rounds}" if phase < ROUND_OVER else
            f"round {played}/{rules.rounds} over" if phase == ROUND_OVER else
            f"match over after {counted(played, 'round')}")
    scores = " : ".join(str(int(v)) for v in s["match_score"][:rules.num_players])
    left = rules.stock_size - int(s["stock_pos"])
    lines = [f"{when}  score {scores}  dealer: player_{dealer}  stock: {counted(left, 'card')}"]
    points = rules.card_points
    for seat in range(rules.num_players):
        hand, shown = int(s["hands"][seat]), int(s["declared"][seat] & s["hands"][seat])
        if viewer in (None, seat):
            hand_text = cards_line(hand)
        else:
            hidden = counted((hand & ~shown).bit_count(), "hidden card")
            hand_text = f"{hidden}, shown: {cards_line(shown)}" if shown else hidden
        pile = int(s["piles"][seat])
        marker = " (to move)" if seat == mover and phase < ROUND_OVER else ""
        cards = sum(points[c] for c in range(48) if pile >> c & 1)
        lines += [f"player_{seat}{marker}", f"  hand:  {hand_text}",
                  f"  pile:  {cards_line(pile)} ({cards} card points)"]
    lines.append(f"field: {cards_line(int(s['field']))}")
    pending = int(s["pending"])
    if phase == MATCH_OVER:
        lines.append("decision: none, the match is over")
    elif phase == ROUND_OVER:
        lines.append("decision: none, the round is over (the next one is still to be dealt)")
    else:
        waiting = f", card waiting: {card_label(pending)}" if pending >= 0 else ""
        lines.append(f"decision: {PHASE_NAMES[phase]} by player_{mover}{waiting}")
    return "\n".join(lines)
