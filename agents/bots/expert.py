"""The expert baseline: a rules-aware heuristic that races both players to the next yaku.

Each outcome of a card action is valued by who is likely to improve their yaku total
first, from per-card capture chances (:mod:`hanafuda_env.koikoi.expert.card_model`) and
the rule set's own yaku table; stop and koi-koi are compared as match-win chances (see
:class:`ExpertAgent`).
The rules run compiled in :mod:`hanafuda_env.koikoi.expert.kernel`; this module is the agent.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass

import numpy as np

from agents.bots.base import Agent
from hanafuda_env.koikoi.expert import kernel as K
from hanafuda_env.koikoi.expert.card_model import CARD_MODEL
from hanafuda_env.koikoi.rules import RuleSpec

# How far below the expert's best value an action still counts as as good: above its
# tie-break noise (1e-9), far below any real difference between its values.
TIE_TOLERANCE = 1e-7


def tie_sets(values: np.ndarray, tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """(B, 98) bools: the actions of :meth:`ExpertAgent.action_values` within ``tolerance``
    of their row's best, the moves the expert cannot tell from its own."""
    best = values.max(axis=1, keepdims=True)
    return np.isfinite(values) & (values >= best - tolerance)


@dataclass(frozen=True)
class ExpertParams:
    """Tunable constants of the expert (``expert_kernel.WEIGHT_NAMES``, in that order)."""

    potential: float = K.DEFAULT_WEIGHTS["potential"]  # weight of expected yaku gains
    round_sigma: float = K.DEFAULT_WEIGHTS["round_sigma"]  # one round's spread, rule units
    koikoi_margin: float = K.DEFAULT_WEIGHTS["koikoi_margin"]  # win chance koi-koi must gain


class ExpertAgent(Agent):
    """A rules-aware heuristic player that plans from the visible cards only.

    **Card model.** Each card not yet captured gets a probability of ending in each pile,
    from where it lies (hand, field, unseen), where the other cards of its month are (my
    hand, the field, unseen) and how many turns are left: logistic regressions
    (``CARD_MODEL``) fitted to the final owners of cards in self-play rounds played to the
    last card. Cards whose three mates are all captured are dead: nobody can take them.
    My draw still to come in this turn adds its chance to take each field card.

    **Yaku model.** From those probabilities the distribution of each yaku's card count
    (Poisson-binomial, exact) gives the chance of every yaku — or of a standing yaku
    growing — for both players, using the rule set's own yaku table.

    **Race.** The chance that each player improves their yaku total first is spread over
    their remaining turns (opponent first); an outcome is worth ``P(I win) × my score −
    P(they win) × their score`` in round points (§2.5 doubling included), plus a small
    weight on expected yaku gains. A capture that makes yaku now is always taken (the
    highest stop score first). This denies cards the opponent needs, avoids laying down
    cards it can take, and keeps hand cards that pair with valuable field cards.

    **Koi-koi.** Stop and koi-koi are compared as match-win probabilities: a normal
    approximation of the rest of the match (``round_sigma`` per round left) turns the score
    difference plus a round result into a chance of winning the match. A stop banks the
    current score; a koi-koi leads to each way of improving (with its own score, 7-point
    doubling included), to the opponent scoring double, or to nothing, with the race's
    chances. So the expert stops with a safe lead or on the last round when a stop wins,
    calls koi-koi when the opponent is far from yaku and its own improvement is likely and
    valuable, and gambles when only a big score can save the match.

    **Speed.** The heuristic is compiled (:mod:`hanafuda_env.koikoi.expert.kernel`, which the
    kernel's rollouts also play as a policy): a batch is decoded into views and every
    candidate outcome valued in one compiled call, card chances from the card model's
    table (:func:`~hanafuda_env.koikoi.expert.card_model.chance_table`). It is a training
    opponent and teacher: its speed bounds training throughput. Ties between card actions break by
    ``1e-9 ×`` numbers from the agent's generator, one per outcome.
    """

    name = "expert"

    def __init__(self, rules: RuleSpec = None, seed: int | None = None, name: str | None = None,
                 params: ExpertParams | None = None, card_model: np.ndarray | None = None):
        super().__init__(rules, seed, name)
        self.params = params or ExpertParams()
        self._weights = np.array(astuple(self.params), dtype=np.float64)
        self._expert = K.expert_rules(self.rules, card_model)
        self.card_model = CARD_MODEL if card_model is None else np.asarray(card_model)
        self._scratch = K.new_scratch(self._expert)

    def __getstate__(self) -> dict:
        """Pickled without its work arrays: a copy (a Ray task's, say) makes its own, as
        arrays that come back from pickling may be read-only."""
        state = self.__dict__.copy()
        del state["_scratch"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._scratch = K.new_scratch(self._expert)

    def _views(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(obs)
        vu = np.empty((n, K.N_VU), dtype=np.uint64)
        vi = np.empty((n, K.N_VI), dtype=np.int64)
        K.views_from_observations(obs, self._expert.score_unit, self._expert.rounds, vu, vi)
        return vu, vi

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B, 98) what the expert compares per legal action, -inf where illegal
        (:func:`~hanafuda_env.koikoi.expert.kernel.action_values`): it plays the highest,
        and those within :data:`TIE_TOLERANCE` of it are the moves it rates as good."""
        obs, mask = self.check(obs, mask)
        obs, mask = np.ascontiguousarray(obs), np.ascontiguousarray(mask)
        vu, vi = self._views(obs)
        values = np.empty(mask.shape, dtype=np.float64)
        K.values_on_views(vu, vi, mask, self._weights, *self._expert.arrays, self._scratch,
                          values)
        return values

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = np.ascontiguousarray(obs), np.ascontiguousarray(mask)
        n = len(obs)
        expert = self._expert
        vu, vi = self._views(obs)
        starts = np.empty((n, 2), dtype=np.int64)
        n_noise = K.count_outcomes(vu, mask, starts)
        noise = self.rng.random(n_noise) if n_noise else np.zeros(1)
        actions = np.empty(n, dtype=np.int64)
        K.act_on_views(vu, vi, mask, starts, noise, self._weights, *expert.arrays,
                       self._scratch, actions)
        return actions
