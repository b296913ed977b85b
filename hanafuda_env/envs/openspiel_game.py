"""Koi-Koi as an OpenSpiel game (``python_koikoi``), so OpenSpiel's algorithms run on it.

``import hanafuda_env.envs.openspiel_game`` registers it with ``pyspiel`` (the optional
``open_spiel`` package); then ``pyspiel.load_game("python_koikoi", {"rounds": 1})``. The
shuffle is chance: a match opens with a chance node for the first dealer (outcomes 0, 1), and
every round with 48 chance nodes that each turn one of the cards not yet dealt (uniform), in
the order of a deck (dealer's hand, the other hand, field, stock). A deal the rules throw back
(four of a month on the field, §2.1) is dealt again by more chance nodes. Player actions are
the project's 98 ids; the rules, scoring and round ends are the kernel's (a
:class:`~hanafuda_env.koikoi.game.KoiKoiGame` inside each state). Returns are the zero-sum match
scores in points when the match is over.

Parameters: ``rules`` (a preset name) and ``rounds`` (1 by default: one round, a short
match; 12 for a Nintendo match). The observation tensor is the project's observation of the
player (:mod:`hanafuda_env.koikoi.observation`); the information state adds the player's deal and
every move so far (perfect recall) to the string, and is the same tensor.
``resample_from_infostate`` deals the cards the player cannot see anew, which is what
OpenSpiel's ISMCTS asks of a game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.core import NUM_ACTIONS, action_name
from hanafuda_env.koikoi.deals import must_redeal
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.observation import OBS_DIM, encode_game
from hanafuda_env.koikoi.rules import resolve_rules
from hanafuda_env.koikoi.state import MATCH_OVER

SHORT_NAME = "python_koikoi"
_PARAMETERS = {"rules": "nintendo", "rounds": 1}
_ROUND_LENGTH = 400  # chance nodes of a deal (and its redeals) and moves: a generous bound
_ROUND_POINTS = 1000  # more than any round can pay, in the rules' point unit


def _game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Hanafuda Koi-Koi (hanafuda_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_PARAMETERS)


class KoiKoiOpenSpielGame(pyspiel.Game):
    """The game: its rule set and length come from the parameters."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**_PARAMETERS, **(params or {})}
        self.rules = resolve_rules(str(params["rules"])).replace(rounds=int(params["rounds"]))
        bound = float(self.rules.rounds * _ROUND_POINTS * self.rules.point_unit)
        info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=C.NUM_CARDS,
                                num_players=2, min_utility=-bound, max_utility=bound,
                                utility_sum=0.0,
                                max_game_length=self.rules.rounds * _ROUND_LENGTH)
        super().__init__(_game_type(), info, params)

    def new_initial_state(self) -> KoiKoiOpenSpielState:
        return KoiKoiOpenSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(perfect_recall)


class KoiKoiOpenSpielState(pyspiel.State):
    """A match in progress: chance deals, then the players' moves in the kernel's game."""

    def __init__(self, game: KoiKoiOpenSpielGame):
        super().__init__(game)
        self.rules = game.rules
        self.game_state = KoiKoiGame(self.rules, seed=0, autoreset=False)
        self.started = False  # the match's first deal is done
        self.first_dealer: int | None = None
        self.dealing: list[int] = []  # the cards turned so far of the deal in progress
        self.moves: list[int] = []  # every player move, in order
        self.dealt_views: list[tuple[int, int, int]] = []  # each deal: seat-0 hand, seat-1, field
        self.over = False

    # ------------------------------------------------------------------ chance
    def _dealing(self) -> bool:
        return not self.over and (not self.started or self.game_state.round_over)

    def current_player(self) -> int:
        if self.over:
            return pyspiel.PlayerId.TERMINAL
        if self._dealing():
            return pyspiel.PlayerId.CHANCE
        return int(self.game_state.mover)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.started and self.first_dealer is None:
            return [(0, 0.5), (1, 0.5)]
        left = sorted(set(range(C.NUM_CARDS)) - set(self.dealing))
        return [(card, 1.0 / len(left)) for card in left]

    def _legal_actions(self, player: int) -> list[int]:
        return self.game_state.legal_actions()

    def _apply_action(self, action: int) -> None:
        if not self._dealing():
            self.game_state.step(int(action))
            self.moves.append(int(action))
            self._check_end()
            return
        if not self.started and self.first_dealer is None:
            self.first_dealer = int(action)
            return
        self.dealing.append(int(action))
        if len(self.dealing) < C.NUM_CARDS:
            return
        order, self.dealing = self.dealing, []
        if must_redeal(np.array([order]), self.rules)[0]:
            return  # thrown back (§2.1): more chance nodes deal again
        game = self.game_state
        if not self.started:
            game.reset(seed=0, options={"deck": order, "dealer": self.first_dealer})
            self.started = True
        else:
            game.deal_next(order)
        hands = game.hands
        self.dealt_views.append((hands[0], hands[1], game.field))
        self._check_end()

    def _check_end(self) -> None:
        self.over = int(self.game_state.phase) == MATCH_OVER

    # --------------------------------------------------------------- results
    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0, 0.0]
        score = self.game_state.match_score
        return [float(score[0]), float(score[1])]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not self.started and self.first_dealer is None:
                return f"first dealer: player {action}"
            return f"deal {C.card_name(action)} (card {action})"  # names repeat: ids do not
        return f"{action_name(action)} (action {action})"

    def resample_from_infostate(self, player_id: int, probability_sampler: Any
                                ) -> KoiKoiOpenSpielState:
        """A state ``player_id`` cannot tell from this one: the other hand and the undrawn
        stock dealt anew among themselves (every such world equally likely)."""
        clone = self.clone()
        if not self._dealing():
            seed = int(probability_sampler() * 2**62)
            clone.game_state.resample_hidden(player_id, np.random.default_rng(seed))
        return clone

    def __str__(self) -> str:
        g = self.game_state
        if not self.started:
            return f"dealing the first round ({len(self.dealing)} cards turned)"
        return (f"round {g.round_index + 1}, phase {g.phase}, mover {g.mover}, score "
                f"{g.match_score}, field {C.describe(g.field)}")


class _Observer:
    """The player's observation (the project's encoding); with perfect recall the string
    also holds the player's deals and every move so far."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBS_DIM, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: KoiKoiOpenSpielState, player: int) -> None:
        if state.started:
            encode_game(state.game_state, player, out=self.tensor)
        else:
            self.tensor.fill(0.0)

    def string_from(self, state: KoiKoiOpenSpielState, player: int) -> str:
        self.set_from(state, player)
        seen = "".join("1" if v > 0.5 else "0" for v in self.tensor[:288])
        scalars = ",".join(f"{v:.4f}" for v in self.tensor[288:])
        text = f"p{player}:{seen}:{scalars}"
        if self.perfect_recall:
            deals = ";".join(f"{view[player]:x}/{view[2]:x}" for view in state.dealt_views)
            text += f"|deals {deals}|moves {','.join(map(str, state.moves))}"
        return text


pyspiel.register_game(_game_type(), KoiKoiOpenSpielGame)
