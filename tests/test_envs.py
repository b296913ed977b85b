"""The PettingZoo environment, and what every environment shares: hidden information,
spaces, rewards, options and illegal actions (test_gym_env and test_vector_env hold the
rest)."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from env_helpers import HANAMI_DECK, TESHI_DECK, play_episode, play_single, random_action
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterator

from hanafuda_env import koikoi_v0
from hanafuda_env.cards import bits_to_bool
from hanafuda_env.core import IllegalActionError, KoiKoiCore
from hanafuda_env.game import KoiKoiGame
from hanafuda_env.gym_env import KoiKoiSingleAgentEnv
from hanafuda_env.observation import BLOCK, OBS_DIM, encode_observations
from hanafuda_env.rules import RuleError
from hanafuda_env.vector_env import KoiKoiVectorEnv

CARD_BLOCKS = ("hand", "field", "own_pile", "opp_pile", "unseen", "pending")


# --------------------------------------------------------------------------- PettingZoo
@pytest.mark.parametrize("kwargs", [{}, {"episode": "match", "rounds": 2},
                                    {"rules": "ten-base", "episode": "match", "rounds": 1}])
def test_pettingzoo_api(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice for non-dict envs; reset option
        api_test(koikoi_v0.env(**kwargs), num_cycles=200)


@pytest.mark.filterwarnings("ignore:koikoi_v0.reset ignores option")  # the test's made-up one
def test_the_turn_based_parallel_wrapper_passes_pettingzoos_parallel_test():
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    parallel_api_test(turn_based_aec_to_parallel(koikoi_v0.env()), num_cycles=200)


def test_pettingzoo_seed_and_render():
    seed_test(koikoi_v0.env, num_cycles=200)
    render_test(koikoi_v0.env, custom_tests={"ansi": lambda text: "player_0" in text})


def test_order_enforcing_wrapper_keeps_pettingzoos_checks():
    env = koikoi_v0.env(seed=0)
    assert isinstance(env, OrderEnforcingWrapper) and env.unwrapped is env.env
    for name in ("agent_selection", "agents", "num_agents", "rewards", "terminations",
                 "truncations", "infos"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    for call, text in ((lambda: env.step(0), "before step"),
                       (lambda: env.observe("player_0"), "before observe"),
                       (env.last, "before observe"), (env.agent_iter, "before agent_iter"),
                       (env.render, "before render")):
        with pytest.raises(AssertionError, match=text):
            call()
    with pytest.raises(AttributeError, match="private attribute"):
        env._legal  # noqa: B018 - BaseWrapper hides the wrapped env's private names
    env.reset()
    agents = iter(env.agent_iter())
    assert isinstance(agents, AECOrderEnforcingIterator)
    assert next(agents) == env.agent_selection == env.unwrapped.agent_selection
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)  # no step in between
    assert env.rewards is env.unwrapped.rewards and env.num_agents == 2
    rng = random.Random(0)
    env.step(random_action(env, rng))
    play_episode(env, rng)
    assert env.agents == [] and list(env.agent_iter()) == []
    EnvLogger.flush()
    env.step(None)  # after the episode: PettingZoo's warning, nothing else
    assert any("step" in message for message in EnvLogger.mqueue)
    EnvLogger.flush()


def test_arrays_handed_out_are_never_written_later():
    """Observations and masks (in infos too) keep what they held when handed out; each step
    hands out new ones."""
    env = koikoi_v0.env(seed=2, episode="match", rounds=2)
    env.reset()
    rng = random.Random(2)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    last_mask = None
    for _ in range(400):
        obs, _, term, trunc, info = env.last()
        arrays = [obs["observation"], obs["action_mask"], info["action_mask"]]
        for other in env.agents:
            arrays += [env.observe(other)["observation"], env.infos[other]["action_mask"]]
        kept += [(a, a.copy()) for a in arrays]
        assert obs["action_mask"] is not last_mask and arrays[0].flags.writeable
        last_mask = obs["action_mask"]
        env.step(None if term or trunc else random_action(env, rng))
        if not env.agents:
            env.reset()
    for array, snapshot in kept:
        np.testing.assert_array_equal(array, snapshot)


@pytest.mark.parametrize("rules", ["nintendo", "ten-base", {"multiple_koikoi": True},
                                   {"on_exhaustion": "non-dealer-wins", "next_dealer": "alternate",
                                    "hand_yaku": "none", "koikoi_doubling": False}])
def test_round_ends_only_where_the_env_keeps_the_last_decision(rules):
    """raw_env copies the game before a step only where ``may_end_round`` says the step may
    end the round: it must hold before every step that does, and spare most others."""
    game = KoiKoiGame(rules, seed=0)
    rng = random.Random(0)
    ends = kept = 0
    for _ in range(15000):
        action = rng.choice(game.legal_actions())
        may = game.may_end_round(action)
        kept += may
        if game.step(action).round_over:
            ends += 1
            assert may
    assert ends > 500 and kept < 15000 // 3


def test_metadata_and_agents():
    env = koikoi_v0.env()
    assert env.metadata["name"] == "koikoi_v0"
    assert set(env.metadata["render_modes"]) == {"ansi", "human"}
    assert env.metadata["is_parallelizable"] is False
    env.reset(seed=1)
    assert env.agents == ["player_0", "player_1"] == env.possible_agents
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (OBS_DIM,) and space.dtype == np.float32


def test_mask_only_for_agent_to_move_and_in_infos():
    env = koikoi_v0.env(seed=5)
    env.reset()
    rng = random.Random(0)
    for _ in range(150):
        mover = env.agent_selection
        if env.terminations[mover]:
            env.reset()
            continue
        core_seat = env.unwrapped.game.mover
        assert mover == f"player_{core_seat}"
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (98,)
            np.testing.assert_array_equal(mask, env.infos[agent]["action_mask"])
            assert mask.any() == (agent == mover)
        env.step(random_action(env, rng))


def test_observation_is_the_seats_view():
    """observe(agent) encodes from that agent's seat: the same as the batch encoder's."""
    env = koikoi_v0.env(seed=9)
    env.reset()
    core = KoiKoiCore(1, seed=9)
    for agent, seat in (("player_0", 0), ("player_1", 1)):
        np.testing.assert_array_equal(env.observe(agent)["observation"],
                                      encode_observations(core, seat)[0])
    own = env.observe("player_0")["observation"][BLOCK["hand"]]
    np.testing.assert_array_equal(own, bits_to_bool(core.hands[:, 0])[0])


def test_observations_partition_the_deck():
    """Every card is in exactly one block of every observation, across random matches."""
    env = koikoi_v0.env(episode="match", rounds=2, seed=3)
    rng = random.Random(3)

    def check(env, agent, action):
        for a in env.agents:
            obs = env.observe(a)["observation"]
            blocks = sum(obs[BLOCK[name]] for name in CARD_BLOCKS)
            np.testing.assert_array_equal(blocks, np.ones(48))

    for _ in range(2):
        env.reset()
        play_episode(env, rng, check)


# ------------------------------------------------------------------- hidden information
def test_aec_observation_hides_opponent_hand_and_stock():
    env = koikoi_v0.env(seed=11)
    env.reset()
    rng, np_rng = random.Random(1), np.random.default_rng(1)
    changed = 0
    for _ in range(60):
        if env.terminations[env.agent_selection]:
            env.reset()
        raw = env.unwrapped
        for seat, agent in enumerate(env.agents):
            before = env.observe(agent)["observation"]
            core = raw.game.to_core()
            core.resample_hidden(seat, np_rng)
            moved = KoiKoiGame.from_core(core, 0)
            changed += moved.hands[1 - seat] != raw.game.hands[1 - seat]
            raw.game, original = moved, raw.game
            np.testing.assert_array_equal(env.observe(agent)["observation"], before)
            # swapping a visible card with a hidden one does change it
            if moved.hands[seat] and moved.hands[1 - seat]:
                mine = moved.hands[seat] & -moved.hands[seat]
                theirs = moved.hands[1 - seat] & -moved.hands[1 - seat]
                moved.hands[seat] ^= mine | theirs
                moved.hands[1 - seat] ^= mine | theirs
                assert not np.array_equal(env.observe(agent)["observation"], before)
            raw.game = original
        env.step(random_action(env, rng))
    assert changed > 30  # the rearrangements really moved hidden cards


def test_vector_observation_hides_opponent_hand_and_stock():
    env = KoiKoiVectorEnv(64, seed=2)
    env.reset()
    rng = np.random.default_rng(2)
    for _ in range(25):
        env.step(env.core.sample_legal_actions(rng))
    for seat in (0, 1):
        seats = np.full(64, seat)
        before = env.observe(seats)
        state = env.core.state_dict()
        env.core.resample_hidden(seats, rng)
        assert (env.core.hands[:, 1 - seat] != state["hands"][:, 1 - seat]).mean() > 0.5
        np.testing.assert_array_equal(env.observe(seats), before)


# ---------------------------------------------------------------------- spaces and bounds
@pytest.mark.parametrize("rules", ["nintendo", "ten-base",
                                   {"multiple_koikoi": True, "on_exhaustion": "dealer-wins"}])
def test_observations_stay_in_the_declared_space(rules):
    env = KoiKoiVectorEnv(128, rules=rules, episode="match", seed=4)
    space = env.single_observation_space
    obs, _ = env.reset()
    rng = np.random.default_rng(4)
    lows, highs = np.full(OBS_DIM, np.inf), np.full(OBS_DIM, -np.inf)
    for _ in range(400):
        obs, *_ = env.step(env.core.sample_legal_actions(rng))
        for view in (obs, env.observe(np.ones(128, dtype=int))):
            assert view.dtype == space.dtype and view.shape[1:] == space.shape
            assert (view >= space.low).all() and (view <= space.high).all()
            lows, highs = np.minimum(lows, view.min(0)), np.maximum(highs, view.max(0))
    assert not np.isnan(lows).any()
    # the declared bounds are the encoder's: card and phase entries use all of [0, 1]
    assert (lows[:BLOCK["scalars"].start] == 0).all()
    assert (highs[BLOCK["hand"]] == 1).all() and (highs[BLOCK["phase"]] == 1).all()


# ------------------------------------------------------------------------------ rewards
def test_reward_goes_to_the_winning_seat_whoever_moved_last():
    """dealer-wins exhaustion: the non-dealer makes the last move and loses the round."""
    env = koikoi_v0.env(rules={"on_exhaustion": "dealer-wins"}, seed=21)
    rng = random.Random(21)
    seen = {"loser_last": 0, "winner_last": 0}
    last_mover: list[str] = []
    for _ in range(200):
        env.reset()
        last_mover.clear()
        returns, final = play_episode(env, rng, lambda e, agent, a: last_mover.append(agent))
        rows = [r for r in final["player_0"]["round_results"] if r["rewarded"]]
        assert len(rows) == 1 and final["player_1"]["round_results"] == \
            final["player_0"]["round_results"]
        row = rows[0]
        assert returns == {"player_0": row["reward"][0], "player_1": row["reward"][1]}
        assert sum(returns.values()) == 0
        if row["winner"] >= 0:
            winner = f"player_{row['winner']}"
            assert returns[winner] == row["points"] > 0
            seen["winner_last" if last_mover[-1] == winner else "loser_last"] += 1
    assert seen["loser_last"] > 0 and seen["winner_last"] > 0


def test_match_episode_return_is_the_match_score():
    """Every round is rewarded, hand-yaku rounds included (one ends round 1 at the deal)."""
    env = koikoi_v0.env(episode="match", rounds=3)
    rng = random.Random(5)
    for seed in range(4):
        env.reset(seed=seed, options={"deck": TESHI_DECK, "dealer": 0})
        first = env.infos["player_0"]["round_results"]  # seed 3 deals a second hand yaku
        assert {r["reason"] for r in first} == {"hand-yaku"} and all(r["rewarded"] for r in first)
        assert first[0]["reward"] == [6, -6] and len(first) == 1 + (seed == 3)
        returns, final = play_episode(env, rng)
        (match,) = final["player_0"]["match_results"]
        assert [returns["player_0"], returns["player_1"]] == match["scores"]
        assert match["rounds"] == 3


@pytest.mark.parametrize("episode", ["round", "match"])
@pytest.mark.parametrize("make", ["aec", "gym", "vector"])
def test_reset_reports_a_match_that_ended_at_the_deal(make, episode):
    """rounds=1 and a dealt teshi: the match ends inside reset. Its round and match are
    reported (the round not rewarded: the match had no decision), and play goes on."""
    options = {"deck": TESHI_DECK, "dealer": 0}
    if make == "aec":
        env = koikoi_v0.env(episode=episode, rounds=1)
        env.reset(seed=0, options=options)
        info = env.infos["player_1"]
        rows, matches = info["round_results"], info["match_results"]
    elif make == "gym":
        env = KoiKoiSingleAgentEnv(episode=episode, rounds=1, learner_seat=1)
        _, info = env.reset(seed=0, options=options)
        rows, matches = info["round_results"], info["match_results"]
    else:
        env = KoiKoiVectorEnv(1, episode=episode, rounds=1)
        _, info = env.reset(seed=0, options=options)
        rows = [dict(r, rewarded=bool(ok))
                for r, ok in zip(info["round_results"].records(), info["rewarded"])]
        m = info["match_results"]
        matches = [{"winner": int(m.winner[k]), "scores": m.scores[k].tolist(),
                    "rounds": int(m.rounds[k])} for k in range(len(m.game))]
    assert [(r["reason"], r["reward"], r["rewarded"]) for r in rows] == [
        ("hand-yaku", [6, -6], False)]
    assert matches == [{"winner": 0, "scores": [6, -6], "rounds": 1}]
    if make == "aec" and episode == "match":  # the episode is the next match, from 0 : 0
        returns, final = play_episode(env, random.Random(0))
        match = final["player_0"]["match_results"][0]
        assert [returns["player_0"], returns["player_1"]] == match["scores"]


def test_round_episode_rewards_only_the_played_round():
    env = koikoi_v0.env(episode="round", reward_scale=0.5)
    env.reset(seed=0, options={"deck": TESHI_DECK, "dealer": 0})
    (row,) = env.infos["player_1"]["round_results"]
    assert row["reason"] == "hand-yaku" and not row["rewarded"]
    returns, final = play_episode(env, random.Random(0))
    played = [r for r in final["player_0"]["round_results"] if r["rewarded"]]
    assert len(played) == 1 and played[0]["round_index"] == 1  # the teshi round was round 0
    assert returns == {"player_0": played[0]["reward"][0] * 0.5,
                       "player_1": played[0]["reward"][1] * 0.5}


def test_terminal_observation_is_the_last_decision():
    env = koikoi_v0.env(seed=8)
    env.reset()
    rng = random.Random(8)
    last = {}
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        if term:
            assert not obs["action_mask"].any()
            assert obs["observation"][BLOCK["phase"]].sum() == 1
            np.testing.assert_array_equal(obs["observation"], last[agent])
            env.step(None)
            continue
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        last = {a: env.observe(a)["observation"] for a in env.agents}
        env.step(action)


# ------------------------------------------------------------------------------ options
@pytest.mark.parametrize("make", [koikoi_v0.env, koikoi_v0.raw_env, KoiKoiSingleAgentEnv,
                                  lambda **kw: KoiKoiVectorEnv(2, **kw)])
def test_unknown_option_names_the_key_and_the_allowed_ones(make):
    with pytest.raises(ValueError, match=r"'episodes'.*allowed options:.*episode"):
        make(episodes="match")


@pytest.mark.parametrize("kwargs, error, text", [
    ({"episode": "game"}, ValueError, "episode"),
    ({"illegal_action": "ignore"}, ValueError, "illegal_action"),
    ({"rules": "hanafuda"}, RuleError, "preset"),
    ({"rules": {"koikoi": True}}, RuleError, "koikoi"),
    ({"rounds": 0}, RuleError, "rounds"),
    ({"target_score": -5}, RuleError, "target_score"),
    ({"reward_scale": 0}, ValueError, "reward_scale"),
    ({"render_mode": "rgb_array"}, ValueError, "render_mode"),
])
def test_bad_option_values(kwargs, error, text):
    with pytest.raises(error, match=text):
        koikoi_v0.raw_env(**kwargs)


def test_rule_options_reach_the_game(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text("preset: ten-base\nrounds: 6\n")
    for spec, name in ((str(path), "ten-base"), ("ten-base", "ten-base"),
                       ({"multiple_koikoi": True}, "nintendo+custom")):
        env = koikoi_v0.raw_env(rules=spec, target_score=30)
        assert env.game.rules.name.startswith(name) and env.game.rules.target_score == 30
    assert koikoi_v0.raw_env(rules=str(path)).game.rules.rounds == 6
    assert KoiKoiVectorEnv(2, rules="ten-base", rounds=3).core.rules.rounds == 3


# ------------------------------------------------------------------------ illegal actions
def test_illegal_action_raises_and_leaves_the_game_alone():
    env = koikoi_v0.env(seed=3)
    env.reset()
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    state = env.unwrapped.game.state_dict()
    with pytest.raises(IllegalActionError, match=rf"action {bad} .*legal actions: \["):
        env.step(bad)
    for nonsense in (None, 98, -1, 1.0):
        with pytest.raises(IllegalActionError):
            env.step(nonsense)
    assert env.unwrapped.game.state_dict() == state and env.agent_selection == agent
    env.step(int(np.flatnonzero(mask)[0]))  # still playable


def test_illegal_action_penalize_terminates_everyone():
    env = koikoi_v0.env(seed=3, illegal_action="penalize", illegal_reward=-2.0)
    env.reset()
    offender = env.agent_selection
    other = "player_1" if offender == "player_0" else "player_0"
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards == {offender: -2.0, other: 0.0}
    assert env.infos[other]["illegal_action"]["agent"] == offender
    returns, _ = play_episode(env, random.Random(0))
    assert returns == {offender: -2.0, other: 0.0} and env.agents == []


# ------------------------------------------------------------ AEC resets and continued play
def test_aec_determinism_across_resets():
    def run(env):
        env.reset(seed=13)
        rng, out = random.Random(0), []
        for _ in range(3):
            for agent in env.agent_iter():
                obs, reward, term, _, _ = env.last()
                out.append((agent, reward, obs["observation"].tobytes()))
                env.step(None if term else random_action(env, rng))
            env.reset()  # unseeded: drawn from the generator seeded above
        return out

    assert run(koikoi_v0.env()) == run(koikoi_v0.env())
    first = koikoi_v0.env()
    first.reset(seed=14)
    other = koikoi_v0.env()
    other.reset(seed=13)
    assert not np.array_equal(first.observe("player_0")["observation"],
                              other.observe("player_0")["observation"])



@pytest.mark.parametrize("copier", ["deepcopy", "pickle"])
def test_aec_copies_keep_the_game_in_progress(copier):
    """A copy (e.g. to branch a search) goes on exactly like the original, and stepping the
    copy leaves the original alone."""
    import copy
    import pickle

    def trace(env, rng):
        out = []
        for agent in env.agent_iter():
            obs, reward, term, _, info = env.last()
            out.append((agent, reward, obs["observation"].tobytes(),
                        obs["action_mask"].tobytes(), len(info.get("round_results", []))))
            env.step(None if term else random_action(env, rng))
        return out

    env = koikoi_v0.env(episode="match", rounds=2)
    env.reset(seed=21)
    rng = random.Random(3)
    for _ in range(7):
        env.step(random_action(env, rng))
    clone = (copy.deepcopy(env) if copier == "deepcopy"
             else pickle.loads(pickle.dumps(env)))
    assert clone.agent_selection == env.agent_selection
    clone_trace = trace(clone, random.Random(4))
    assert len(clone_trace) > 20
    assert trace(env, random.Random(4)) == clone_trace

def test_aec_reset_options_and_rendering(capsys):
    env = koikoi_v0.env(render_mode="human", seed=2)
    with pytest.warns(UserWarning, match=r"'colour'.*dealer, deck"):
        env.reset(options={"colour": "red"})
    for dealer in (0, 1):
        env.reset(seed=4, options={"dealer": dealer, "deck": HANAMI_DECK})
        assert env.agent_selection == f"player_{dealer}"
    capsys.readouterr()
    env.step(8)  # the dealer (player_1) plays the curtain and draws the sake cup: hanami-zake
    assert "decision: koikoi-or-stop by player_1" in capsys.readouterr().out
    ansi = koikoi_v0.env(render_mode="ansi", illegal_action="penalize")
    ansi.reset(seed=1)
    board = ansi.render()
    assert "8 hidden cards" not in board and "decision: play" in board  # a spectator's view
    ansi.step(97)
    assert "illegal action" in ansi.render()
    with pytest.warns(UserWarning, match="render_mode"):
        assert koikoi_v0.env().unwrapped.render() is None


def test_aec_reset_goes_on_with_the_match_after_a_finished_episode():
    env = koikoi_v0.env(seed=12)
    env.reset()
    rng = random.Random(12)
    for _ in range(4):
        _, final = play_episode(env, rng)
        (row,) = [r for r in final["player_0"]["round_results"] if r["rewarded"]]
        dealt = env.unwrapped.game.copy()  # what the game dealt after the episode's round
        env.reset()
        assert env.unwrapped.game.state_dict() == dealt.state_dict()
        assert dealt.round_index > row["round_index"] and dealt.turn == 0
        assert env.observe(env.agent_selection)["observation"][BLOCK["hand"]].sum() == 8
    # a seed, options or an interrupted episode start a new match
    env.step(random_action(env, rng))
    env.reset()
    assert env.unwrapped.game.round_index == 0 and env.unwrapped.game.turn == 0


@pytest.mark.parametrize("make", ["aec", "gym"])
def test_match_returns_over_many_continued_episodes(make):
    """Two-round matches, each episode reset() from the last: a hand yaku dealt to the next
    match is rewarded in that match's episode, never in the one that just ended (where it is
    listed, not rewarded)."""
    carried = 0
    rng = random.Random(1)
    if make == "aec":
        env = koikoi_v0.env(episode="match", rounds=2, seed=1)
        env.reset()
        final = None
        for episode in range(600):  # about 1 in 80 deals is a hand yaku
            if carried and episode > 100:
                break
            paid = [r for r in env.infos["player_0"]["round_results"] if r["rewarded"]]
            if paid and final is not None:  # paid at a reset that went on from an episode
                listed = [r for r in final["player_0"]["round_results"] if not r["rewarded"]]
                assert [dict(r, rewarded=True) for r in listed] == paid
            carried += bool(paid)
            returns, final = play_episode(env, rng)
            match = final["player_1"]["match_results"][0]  # later ones: hand yaku at the deal
            assert [returns["player_0"], returns["player_1"]] == match["scores"]
            env.reset()
    else:
        env = KoiKoiSingleAgentEnv(episode="match", rounds=2)
        start = env.reset(seed=1)
        for episode in range(600):
            if carried and episode > 100:
                break
            carried += any(r["rewarded"] for r in start[1]["round_results"])
            total, info = play_single(env, np.random.default_rng(rng.randrange(99)), start=start)
            assert total == info["match_results"][0]["scores"][info["seat"]]
            start = env.reset()
    assert carried > 0


def test_the_package_exports_its_main_classes():
    import hanafuda_env
    from hanafuda_env.gym_env import KoiKoiSingleAgentEnv
    from hanafuda_env.vector_env import KoiKoiVectorEnv

    assert hanafuda_env.KoiKoiSingleAgentEnv is KoiKoiSingleAgentEnv
    assert hanafuda_env.KoiKoiVectorEnv is KoiKoiVectorEnv
    assert hanafuda_env.koikoi_v0.env is koikoi_v0.env
    assert all(hasattr(hanafuda_env, name) for name in hanafuda_env.__all__)
    assert set(hanafuda_env.__all__) == {"GYM_ID", "koikoi_v0", *hanafuda_env._EXPORTS}
    assert set(hanafuda_env.__all__) <= set(dir(hanafuda_env))
    with pytest.raises(AttributeError, match="no attribute 'KoiKoiEnv'"):
        hanafuda_env.KoiKoiEnv  # noqa: B018
