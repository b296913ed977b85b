"""Edges of the single-game envs that the main env tests pass by: who is selected once a round
ends, that ``reward_scale`` scales round points and never the illegal-action penalty, that the
opponent plays from its own seat, that a rejected reset puts the env's own RNG back, that
rounds carried into a match the learner has not yet played are paid with its first step, the
text the board is rendered with, what a penalized move and a reset with options show, and the
AEC env's printed name."""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import HANAMI_DECK, TESHI_DECK

from hanafuda_env import cards as C
from hanafuda_env import koikoi_v0
from hanafuda_env.core import PLAY, STOP
from hanafuda_env.game import KoiKoiGame
from hanafuda_env.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.observation import encode_game
from hanafuda_env.rendering import counted


def stopper(obs: np.ndarray, mask: np.ndarray) -> int:
    """Stops whenever it may, else plays its lowest legal action."""
    return STOP if mask[STOP] else int(np.flatnonzero(mask)[0])


def hanami_deck(dealer: int) -> dict:
    """Reset options: ``dealer`` plays the curtain, draws the sake cup: hanami-zake at once."""
    return {"deck": HANAMI_DECK, "dealer": dealer}


# ------------------------------------------------------------------ koikoi_v0
@pytest.mark.parametrize("dealer", [0, 1])
def test_aec_selects_the_other_seat_once_the_round_is_over(dealer: int) -> None:
    """The seat that did not end the round learns the outcome first (its reward and final
    observation come before the mover's own last())."""
    env = koikoi_v0.env()
    env.reset(seed=0, options=hanami_deck(dealer))
    mover = f"player_{dealer}"
    assert env.agent_selection == mover
    env.step(8)  # the curtain onto the cherry ribbon; the drawn sake cup takes its ribbon
    assert env.agent_selection == mover and env.observe(mover)["action_mask"][STOP]
    env.step(STOP)
    assert all(env.terminations.values())
    other = f"player_{1 - dealer}"
    assert env.agent_selection == other
    assert env.rewards == {mover: 5.0, other: -5.0}


def test_aec_reward_scale_scales_points_but_not_the_illegal_penalty() -> None:
    """``reward_scale`` multiplies round rewards; the offender of a penalized illegal action
    gets ``illegal_reward`` as given (PettingZoo's TerminateIllegalWrapper pays it so)."""
    env = koikoi_v0.env(reward_scale=0.1)
    env.reset(seed=0, options=hanami_deck(0))
    env.step(8)
    env.step(STOP)
    assert env.rewards == {"player_0": pytest.approx(0.5), "player_1": pytest.approx(-0.5)}
    env = koikoi_v0.env(reward_scale=0.1, illegal_action="penalize", illegal_reward=-2.0)
    env.reset(seed=0, options=hanami_deck(0))
    env.step(99)
    assert env.rewards == {"player_0": -2.0, "player_1": 0.0}


# ------------------------------------------------------------------ single-agent env
def test_gym_illegal_penalty_is_not_scaled() -> None:
    """Illegal learner actions end the episode with ``illegal_reward`` itself."""
    env = KoiKoiSingleAgentEnv(reward_scale=0.1, illegal_reward=-2.0, learner_seat=0)
    env.reset(seed=0, options={"dealer": 0})
    _, reward, terminated, truncated, info = env.step(99)
    assert (reward, terminated, truncated) == (-2.0, True, False)
    assert info["illegal_action"]["action"] == 99


def test_gym_opponent_decides_from_its_own_seat() -> None:
    """The opponent is handed its own view and its own legal moves, never the learner's
    (which would show it the learner's hand)."""
    env: KoiKoiSingleAgentEnv | None = None
    calls = []

    def opponent(obs: np.ndarray, mask: np.ndarray) -> int:
        assert env is not None
        seat = 1 - env.seat
        calls.append((obs.copy(), encode_game(env.game, seat), encode_game(env.game, env.seat)))
        if env.game.phase == PLAY:
            np.testing.assert_array_equal(np.flatnonzero(mask), C.ids_of(env.game.hands[seat]))
        return stopper(obs, mask)

    env = KoiKoiSingleAgentEnv(opponent=opponent, learner_seat=1)
    obs, _ = env.reset(seed=0, options={"dealer": 0})  # the opponent deals: it moves first
    for _ in range(6):
        obs, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break
    assert len(calls) >= 2
    for given, own, learners in calls:
        np.testing.assert_array_equal(given, own)
        assert not np.array_equal(given, learners)


class Faulty:
    """An opponent that raises while ``fault`` is set, else stops or plays its lowest move."""

    def __init__(self) -> None:
        self.fault = False

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if self.fault:
            raise RuntimeError("policy crashed")
        return stopper(obs, mask)


def test_gym_unseeded_reset_that_fails_puts_the_rng_back() -> None:
    """An unseeded reset draws the game seed from the env's RNG; when the opponent then errs,
    the reset is undone, RNG included, so the next reset deals what it would have dealt."""
    opponent = Faulty()
    env = KoiKoiSingleAgentEnv(opponent=opponent)
    ref = KoiKoiSingleAgentEnv(opponent=Faulty())
    env.reset(seed=0)
    ref.reset(seed=0)
    before = env.np_random.bit_generator.state
    opponent.fault = True
    with pytest.raises(RuntimeError, match="policy crashed"):
        env.reset(options={"learner_seat": 1, "dealer": 0})  # the opponent moves first
    assert env.np_random.bit_generator.state == before
    opponent.fault = False
    options = {"learner_seat": 1, "dealer": 0}
    obs, info = env.reset(options=options)
    ref_obs, ref_info = ref.reset(options=options)
    np.testing.assert_array_equal(obs, ref_obs)
    assert env.game.state_dict() == ref.game.state_dict()


def test_gym_rounds_carried_past_a_skipped_match_are_paid_with_the_first_step(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """episode="match": the opponent wins a whole match before the learner's first decision
    (skipped); the next match's first round ends at its deal on teshi (§2.3). That round
    belongs to the learner's episode, so its points come with the learner's first step."""
    decks = [HANAMI_DECK, TESHI_DECK]  # round 2 of the first match, then the next match
    real = KoiKoiGame._shuffled_deck

    def next_deck(game: KoiKoiGame) -> list[int]:
        if decks:
            game.deal_count += 1
            return list(decks.pop(0))
        return real(game)

    env = KoiKoiSingleAgentEnv(opponent=stopper, learner_seat=1, episode="match", rounds=2)
    monkeypatch.setattr(KoiKoiGame, "_shuffled_deck", next_deck)
    obs, info = env.reset(seed=0, options=hanami_deck(0))
    assert [(r["winner"], r["yaku"]) for r in info["skipped"]] == [
        (0, {"hanami_zake": 5}), (0, {"hanami_zake": 5})]
    (teshi,) = info["round_results"]
    assert teshi["reason"] == "hand-yaku" and teshi["rewarded"] and teshi["round_index"] == 0
    carried = teshi["reward"][1]
    assert abs(carried) == 6 and env.game.round_index == 1
    _, reward, terminated, _, step_info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    paid_now = sum(r["reward"][1] for r in step_info["round_results"] if r["rewarded"])
    assert reward == carried + paid_now


# ------------------------------------------------------------------ rendering
def test_counts_read_in_the_right_number() -> None:
    """Only one is singular: an empty stock shows "0 cards", not "0 card"."""
    assert counted(1, "card") == "1 card"
    assert counted(0, "card") == "0 cards"
    assert counted(2, "card") == "2 cards"
    assert counted(0, "hidden card") == "0 hidden cards"
    assert counted(3, "koi-koi", "koi-koi") == "3 koi-koi"



# ------------------------------------------------- what a penalized move or a reset shows
def test_aec_penalized_move_does_not_show_the_offender_rows_it_saw_before() -> None:
    """``round_results`` lists the rounds finished since the agent last acted: a penalized
    illegal move is an act, so the offender's final ``last()`` does not repeat the rows of
    the round it saw (and, were they "rewarded", would count twice); the other seat, which has
    not acted since, still has them."""
    env = koikoi_v0.env(episode="match", rounds=3, illegal_action="penalize")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.last()[4]["round_results"]:  # play until a round ends within the match
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    offender = env.agent_selection
    seen = env.last()[4]["round_results"]
    assert seen and seen[0]["rewarded"]
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))  # an illegal action
    assert all(env.terminations.values())
    assert env.infos[offender]["round_results"] == []
    assert env.infos[offender]["match_results"] == []
    other = next(a for a in env.possible_agents if a != offender)
    assert env.infos[other]["round_results"] == seen


def test_gym_reset_with_a_learner_seat_starts_a_new_match() -> None:
    """Only ``reset()`` without seed or options goes on with the match; choosing the learner's
    seat is an option, so it deals a new match (round 0, no score), as ``dealer`` does."""
    def finished_round() -> KoiKoiSingleAgentEnv:
        env = KoiKoiSingleAgentEnv(opponent=stopper, rounds=6, learner_seat=0)
        env.reset(seed=5, options=hanami_deck(0))
        assert env.step(8)[2] is False and env.step(STOP)[2]  # a 5-point round, episode over
        return env

    going_on = finished_round()
    going_on.reset()
    assert going_on.game.round_index == 1 and going_on.game.match_score != [0, 0]
    for options in ({"learner_seat": 1}, {"learner_seat": 0}, {"dealer": 0}):
        env = finished_round()
        env.reset(options=options)
        assert env.game.round_index == 0 and list(env.game.match_score) == [0, 0], options
    assert env.seat == 0


def test_the_aec_env_prints_its_name_as_pettingzoo_wrappers_do() -> None:
    assert str(koikoi_v0.env()) == str(koikoi_v0.raw_env()) == "koikoi_v0"


def test_aec_info_dicts_handed_out_never_change_afterwards() -> None:
    """A replay buffer may keep ``last()``'s info as it is: later steps (new rounds, masks,
    a penalized move) make new dicts instead of writing into the ones handed out."""
    import copy

    env = koikoi_v0.env(episode="match", rounds=3, illegal_action="penalize")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    kept: list[tuple[dict, dict]] = []
    erred = False
    for _ in range(400):
        obs, _, terminated, truncated, info = env.last()
        kept.append((info, copy.deepcopy(info)))
        kept += [(other, copy.deepcopy(other)) for other in env.infos.values()]
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                break
            continue
        if info["round_results"] and not erred:  # a round of the match has ended: err now
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            erred = True
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert erred and any("illegal_action" in info for info, _ in kept)
    assert any(info["round_results"] for info, _ in kept)
    for info, snapshot in kept:
        assert info.keys() == snapshot.keys()
        assert info["round_results"] == snapshot["round_results"]
        assert np.array_equal(info["action_mask"], snapshot["action_mask"])
        assert info.get("illegal_action") == snapshot.get("illegal_action")
