"""PPO building blocks: two-seat GAE, masked distribution, config validation, checkpoints."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.bots.network import ActorCritic, sample_actions
from agents.bots.policy import CheckpointError, PolicyAgent, load_checkpoint, save_checkpoint
from agents.train.config import ConfigError, PPOConfig
from agents.train.ppo import WaitingRewards, compute_gae, masked_entropy, minibatches


def test_gae_credits_each_seat_its_own_reward() -> None:
    # One game; seats alternate 0,1,0,1; the round ends at step 3 with seat 0 winning 5
    # although seat 1 made the last move.
    seats = np.array([[0], [1], [0], [1]])
    rewards = np.zeros((4, 1, 2), dtype=np.float32)
    rewards[3, 0] = [5.0, -5.0]
    dones = np.array([[False], [False], [False], [True]])
    values = np.zeros((4, 1), dtype=np.float32)
    adv, _ = compute_gae(rewards, dones, seats, values, np.zeros((1, 2)), gamma=1.0, lam=1.0)
    assert adv[:, 0].tolist() == [5.0, -5.0, 5.0, -5.0]


def test_gae_does_not_leak_across_episodes_and_bootstraps() -> None:
    seats = np.array([[0], [0], [1], [0]])
    rewards = np.zeros((4, 1, 2), dtype=np.float32)
    rewards[1, 0] = [2.0, -2.0]  # episode ends after step 1
    dones = np.array([[False], [True], [False], [False]])
    values = np.array([[1.0], [0.5], [0.0], [0.25]], dtype=np.float32)
    last = np.array([[3.0, 7.0]], dtype=np.float32)
    adv, _ = compute_gae(rewards, dones, seats, values, last, gamma=1.0, lam=1.0)
    # step 3 (seat 0) bootstraps from last[0] = 3: 3 - 0.25
    assert adv[3, 0] == pytest.approx(2.75)
    # step 2 (seat 1) bootstraps from last[1] = 7: 7 - 0
    assert adv[2, 0] == pytest.approx(7.0)
    # step 1 is terminal for seat 0 with reward 2: 2 - 0.5; step 0 chains into it
    assert adv[1, 0] == pytest.approx(1.5)
    assert adv[0, 0] == pytest.approx(2.0 - 1.0)
    # seat 1 never decided in the first episode, so its -2 is credited to nobody later
    assert adv[2, 0] != pytest.approx(7.0 - 2.0)


def test_gae_credits_rewards_paid_before_a_seats_first_decision_to_that_decision() -> None:
    """A match episode ends at step 0; the next match's first round ends at its deal
    (a hand yaku: +6 for seat 0), paid with step 1, seat 0's first move. Seat 1 first
    decides at step 2: its -6 is part of its episode's return."""
    seats = np.array([[1], [0], [1], [0]])
    rewards = np.zeros((4, 1, 2), dtype=np.float32)
    rewards[1, 0] = [6.0, -6.0]
    dones = np.array([[True], [False], [False], [False]])
    values = np.zeros((4, 1), dtype=np.float32)
    adv, _ = compute_gae(rewards, dones, seats, values, np.zeros((1, 2)), gamma=1.0, lam=1.0)
    assert adv[:, 0].tolist() == [0.0, 6.0, -6.0, 0.0]



def test_gae_carries_an_early_reward_to_a_first_decision_in_the_next_rollout() -> None:
    """As above, but the rollout ends before seat 1 decides: its -6 waits for the next
    rollout's first decision of seat 1, unless that episode ends before it decides."""
    zeros = np.zeros((1, 2), dtype=np.float32)
    rewards = np.zeros((2, 1, 2), dtype=np.float32)
    rewards[1, 0] = [6.0, -6.0]
    adv, waiting = compute_gae(rewards, np.array([[True], [False]]), np.array([[1], [0]]),
                               np.zeros((2, 1), dtype=np.float32), zeros, 1.0, 1.0,
                               WaitingRewards.fresh(1))
    assert adv[:, 0].tolist() == [0.0, 6.0]
    assert waiting.amount.tolist() == [[0.0, -6.0]] and waiting.undecided.tolist() == [[0, 1]]

    def next_rollout(seats: list[int], dones: list[bool]) -> tuple[list, list]:
        adv, left = compute_gae(np.zeros((len(seats), 1, 2), dtype=np.float32),
                                np.array(dones)[:, None], np.array(seats)[:, None],
                                np.zeros((len(seats), 1), dtype=np.float32), zeros, 1.0, 1.0,
                                waiting)
        return adv[:, 0].tolist(), left.amount.tolist()

    assert next_rollout([0, 1, 0], [False, False, False]) == ([0.0, -6.0, 0.0], [[0.0, 0.0]])
    assert next_rollout([0], [False]) == ([0.0], [[0.0, -6.0]])  # still waiting
    assert next_rollout([0, 1], [True, False]) == ([0.0, 0.0], [[0.0, 0.0]])  # seat 1 had none


def test_gae_credits_a_reward_paid_as_a_rollout_starts_a_new_episode() -> None:
    """A match ends on a rollout's last step; the next match's hand yaku (+5 for seat 1) is
    paid with the next rollout's first step, which seat 0 makes."""
    zeros = np.zeros((1, 2), dtype=np.float32)
    _, waiting = compute_gae(np.zeros((2, 1, 2), dtype=np.float32), np.array([[False], [True]]),
                             np.array([[0], [1]]), np.zeros((2, 1), dtype=np.float32), zeros,
                             1.0, 1.0, WaitingRewards.fresh(1))
    rewards = np.zeros((3, 1, 2), dtype=np.float32)
    rewards[0, 0] = [-5.0, 5.0]
    adv, _ = compute_gae(rewards, np.array([[False], [False], [True]]), np.array([[0], [1], [0]]),
                         np.zeros((3, 1), dtype=np.float32), zeros, 1.0, 1.0, waiting)
    assert adv[:, 0].tolist() == [-5.0, 5.0, 0.0]


def _credited_returns(rewards: np.ndarray, dones: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Plain reference (gamma = lambda = 1, values 0): a decision's advantage is its seat's
    rewards from that step to the episode's end, plus, for the seat's first decision of the
    episode, what the seat was paid in the episode before it."""
    steps, n = seats.shape
    expected = np.zeros((steps, n))
    for g in range(n):
        start = 0
        for end in [*np.flatnonzero(dones[:, g]), steps - 1]:
            if end < start:
                continue
            seen = set()
            for t in range(start, end + 1):
                s = seats[t, g]
                expected[t, g] = rewards[t:end + 1, g, s].sum()
                if s not in seen:
                    expected[t, g] += rewards[start:t, g, s].sum()
                    seen.add(s)
            start = end + 1
    return expected


def test_gae_split_into_rollouts_matches_the_plain_reference() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        steps, n = int(rng.integers(2, 14)), int(rng.integers(1, 4))
        seats = rng.integers(0, 2, (steps, n))
        dones = rng.random((steps, n)) < 0.25
        rewards = np.where(rng.random((steps, n, 2)) < 0.3,
                           rng.integers(-3, 4, (steps, n, 2)), 0).astype(np.float32)
        cuts = sorted({0, steps, *rng.integers(1, steps, int(rng.integers(0, 3))).tolist()})
        waiting, parts = WaitingRewards.fresh(n), []
        for a, b in zip(cuts, cuts[1:]):
            last = np.zeros((n, 2), dtype=np.float32)  # the true rest of each running episode
            for g in range(n):
                ends = np.flatnonzero(dones[b:, g])
                stop = b + ends[0] + 1 if len(ends) else steps
                last[g] = rewards[b:stop, g].sum(axis=0)
            adv, waiting = compute_gae(rewards[a:b], dones[a:b], seats[a:b],
                                       np.zeros((b - a, n), dtype=np.float32), last, 1.0, 1.0,
                                       waiting)
            parts.append(adv)
        np.testing.assert_allclose(np.concatenate(parts), _credited_returns(rewards, dones,
                                                                            seats), atol=1e-5)


def test_rewards_waiting_for_a_decision_are_kept_in_the_run_state(tmp_path) -> None:
    from agents.train.ppo import Trainer

    cfg = PPOConfig.from_dict({"n_envs": 4, "n_steps": 8, "n_minibatches": 2, "hidden": 16,
                               "warmstart_decisions": 0, "eval_interval": 0})
    trainer = Trainer(cfg, tmp_path)
    trainer.waiting.amount[2, 1] = -6.0
    trainer.waiting.undecided[3, 0] = False
    save_checkpoint(tmp_path / "state.pt", trainer.state())
    resumed = Trainer(cfg, tmp_path, resuming=True)
    resumed.restore(load_checkpoint(tmp_path / "state.pt"))
    assert resumed.waiting.amount.tolist() == trainer.waiting.amount.tolist()
    assert resumed.waiting.undecided.tolist() == trainer.waiting.undecided.tolist()
    state = trainer.state()  # fdd6a03 kept only the amounts, as "pending_reward"
    arrays = state["arrays"]
    arrays["pending_reward"] = arrays.pop("waiting_amount")
    del arrays["waiting_undecided"]
    resumed.restore(state)
    assert resumed.waiting.amount[2, 1] == -6.0 and resumed.waiting.undecided.sum() == 1


def test_masked_distribution_never_picks_illegal_and_has_no_nans() -> None:
    torch.manual_seed(0)
    net = ActorCritic(hidden=32)
    obs = torch.randn(512, 303)
    mask = torch.rand(512, 98) < 0.05
    mask[torch.arange(512), torch.randint(0, 98, (512,))] = True
    logits, values = net(obs, mask)
    log_probs = torch.log_softmax(logits, dim=-1)
    probs = log_probs.exp()
    assert torch.all(probs[~mask] == 0)
    assert torch.allclose(probs.sum(-1), torch.ones(512))
    entropy = masked_entropy(log_probs, mask)
    assert torch.isfinite(entropy).all() and (entropy >= 0).all()
    generator = torch.Generator().manual_seed(1)
    for _ in range(20):
        actions = sample_actions(logits, generator)
        assert mask[torch.arange(512), actions].all()
    entropy.mean().backward()
    assert all(torch.isfinite(p.grad).all() for p in net.parameters() if p.grad is not None)


def test_single_legal_action_has_zero_entropy() -> None:
    net = ActorCritic(hidden=16)
    mask = torch.zeros(4, 98, dtype=torch.bool)
    mask[:, 96] = True
    logits, _ = net(torch.randn(4, 303), mask)
    log_probs = torch.log_softmax(logits, dim=-1)
    assert torch.allclose(masked_entropy(log_probs, mask), torch.zeros(4), atol=1e-6)


def test_config_rejects_unknown_keys_and_bad_values(tmp_path) -> None:
    with pytest.raises(ConfigError, match="learning_rat.*allowed keys"):
        PPOConfig.from_dict({"learning_rat": 1e-3})
    with pytest.raises(ConfigError, match="episode"):
        PPOConfig(episode="season")
    with pytest.raises(ValueError, match="unknown rule preset"):
        PPOConfig(rules="hanafuda-classic")
    path = tmp_path / "c.yaml"
    path.write_text("n_envs: 8\nseed: 3\n")
    cfg = PPOConfig.load(path, ["seed=5", "baselines=[random]"])
    assert (cfg.n_envs, cfg.seed, cfg.baselines) == (8, 5, ["random"])
    with pytest.raises(ConfigError, match="key=value"):
        PPOConfig.load(path, ["seed"])


def test_checkpoint_roundtrip_and_corrupt_file_errors(tmp_path) -> None:
    net = ActorCritic(hidden=16)
    path = tmp_path / "ckpt.pt"
    save_checkpoint(path, {"model": net.state_dict(), "network": {"hidden": 16, "layers": 2}})
    agent = PolicyAgent.load(path)
    obs = np.random.default_rng(0).random((3, 303), dtype=np.float32)
    mask = np.zeros((3, 98), dtype=bool)
    mask[:, [5, 9]] = True
    assert set(agent.act(obs, mask).tolist()) <= {5, 9}
    values = agent.value(obs, mask)  # the saved value head, one per observation
    with torch.no_grad():
        expected = net.value(net.trunk(torch.as_tensor(obs))).squeeze(-1).numpy()
    assert values.shape == (3,) and np.allclose(values, expected)
    assert not list(tmp_path.glob("*.tmp"))
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupt or not a checkpoint"):
        load_checkpoint(tmp_path / "bad.pt")
    (tmp_path / "cut.pt").write_bytes(path.read_bytes()[:-200])  # a truncated download
    with pytest.raises(CheckpointError, match="corrupt") as raised:
        load_checkpoint(tmp_path / "cut.pt")
    assert "weights_only" not in str(raised.value)  # torch's advice to load it unsafely
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.pt")


def test_a_replaced_snapshot_finishes_its_games_and_is_credited_with_them() -> None:
    """A full pool retires its oldest snapshot: never drawn again, but a game still playing
    it goes on against the same agent and its result counts for that snapshot; the slot is
    reused once no game holds it. Every entry keeps its index."""
    from agents.train.pool import OpponentPool
    from hanafuda_env.rules import NINTENDO

    pool = OpponentPool(NINTENDO, ["random", "greedy"], {"hidden": 8, "layers": 1},
                        max_snapshots=2)
    net = ActorCritic(hidden=8, layers=1)
    pool.add_snapshot(net, 100)
    pool.add_snapshot(net, 200)
    old_agent = pool.agent(2)  # @100, drawn by a game still playing
    pool.add_snapshot(net, 300, in_use=[-1, 2])
    assert [e.name for e in pool.entries] == ["random", "greedy", "snapshot@100",
                                              "snapshot@200", "snapshot@300"]
    assert pool.entries[2].retired and pool.agent(2) is old_agent
    pool.record(2, np.array([5.0]))  # that game's result
    assert pool.entries[2].rounds == 1 and pool.entries[4].rounds == 0
    drawn = pool.sample(2000, np.random.default_rng(0), self_play_fraction=0.0)
    assert 2 not in drawn and {0, 1, 3, 4} <= set(drawn.tolist())
    pool.add_snapshot(net, 400, in_use=[0, 3])  # @100's games are over: its slot is reused
    assert [e.name for e in pool.entries][2:] == ["snapshot@400", "snapshot@200",
                                                  "snapshot@300"]
    assert pool.entries[3].retired and not pool.entries[2].retired
    state = pool.state_dict()
    again = OpponentPool(NINTENDO, [], {"hidden": 8, "layers": 1}, max_snapshots=2)
    again.load_state_dict(state)
    assert [e.retired for e in again.entries] == [e.retired for e in pool.entries]


def test_card_features_see_captures_and_yaku_progress() -> None:
    from agents.bots.network import YAKU_GROUPS, CardFeatures
    from hanafuda_env import cards as C
    from hanafuda_env.observation import BLOCK, OBS_DIM

    month_of = C.CARD_MONTH
    crane, plum = C.ids_of(C.CRANE)[0], C.ids_of(C.PHOENIX)[0]
    pine_mate = next(c for c in range(48) if month_of[c] == month_of[crane] and c != crane)
    obs = torch.zeros(1, OBS_DIM)
    obs[0, BLOCK["hand"].start + pine_mate] = 1.0  # a pine card in hand ...
    obs[0, BLOCK["field"].start + crane] = 1.0  # ... takes the crane on the field
    obs[0, BLOCK["hand"].start + plum] = 1.0  # the phoenix has no mate on the field
    obs[0, BLOCK["own_pile"].start + C.ids_of(C.MOON)[0]] = 1.0
    features = CardFeatures()(obs)[0, OBS_DIM:]
    per_card = features[:7 * 48].reshape(7, 48)
    captures_now, field_takeable = per_card[4], per_card[5]
    assert captures_now[pine_mate] == 1 and captures_now[plum] == 0
    assert field_takeable[crane] == 1 and field_takeable.sum() == 1
    assert per_card[0, pine_mate] == pytest.approx(1 / 3)  # one field card of its month
    own_groups = features[7 * 48:7 * 48 + len(YAKU_GROUPS)]
    assert own_groups[0] == pytest.approx(1 / 5)  # one of the five brights


def test_card_features_match_a_plain_per_card_reference() -> None:
    from agents.bots.network import YAKU_GROUPS, CardFeatures
    from hanafuda_env import cards as C
    from hanafuda_env.core import KoiKoiCore
    from hanafuda_env.observation import BLOCK, OBS_DIM, encode_observations

    core, rng = KoiKoiCore(16, seed=3), np.random.default_rng(3)
    rows = []
    for _ in range(12):  # states from all phases of a round
        core.step(core.sample_legal_actions(rng))
        rows.append(encode_observations(core))
    obs = np.concatenate(rows)
    got = CardFeatures()(torch.as_tensor(obs)).numpy()
    assert np.array_equal(got[:, :OBS_DIM], obs)
    month = C.CARD_MONTH
    groups = C.bits_to_bool(np.array(YAKU_GROUPS, dtype=np.uint64)).reshape(-1, 48)
    for row, features in zip(obs, got[:, OBS_DIM:]):
        hand, field, own, opp, unseen, pending = (
            row[BLOCK[name]] for name in ("hand", "field", "own_pile", "opp_pile", "unseen",
                                          "pending"))
        count = {name: np.array([cards[month == month[c]].sum() / 3 for c in range(48)])
                 for name, cards in (("field", field), ("unseen", unseen), ("hand", hand),
                                     ("piles", own + opp))}
        expected = [count["field"], count["unseen"], count["hand"], count["piles"],
                    hand * (count["field"] > 0), field * (count["hand"] > 0),
                    field * (count["unseen"] > 0)]
        free = hand + field + unseen + pending
        for cards in (own, opp, free):
            expected.append([(cards * g).sum() / g.sum() for g in groups])
        assert np.allclose(features, np.concatenate(expected), atol=1e-6)


def test_card_feature_networks_save_load_and_play(tmp_path) -> None:
    net = ActorCritic(hidden=16, layers=1, card_features=True)
    path = tmp_path / "cf.pt"
    save_checkpoint(path, {"model": net.state_dict(),
                           "network": {"hidden": 16, "layers": 1, "card_features": True}})
    agent = PolicyAgent.load(path)
    from hanafuda_env.vector_env import KoiKoiVectorEnv

    env = KoiKoiVectorEnv(8, seed=0)
    obs, info = env.reset()
    actions = agent.act(obs, info["action_mask"])
    assert info["action_mask"][np.arange(8), actions].all()
    with pytest.raises(ConfigError, match="card_features must be true or false"):
        PPOConfig(card_features="yes")


def test_minibatches_never_hold_a_single_sample() -> None:
    generator = torch.Generator().manual_seed(0)
    for n, wanted in [(0, 4), (1, 4), (3, 4), (5, 5), (8, 4), (1000, 4)]:
        parts = minibatches(n, wanted, generator)
        assert all(len(p) >= 2 for p in parts) and len(parts) <= wanted
        covered = sorted(torch.cat(parts).tolist()) if parts else []
        assert covered == (list(range(n)) if n >= 2 else [])


def test_tiny_batches_train_without_nan(tmp_path) -> None:
    """A rollout with fewer learner decisions than minibatches once filled the weights with
    NaN (one-sample advantage normalisation); and such configs are refused up front."""
    from agents.train.run import train as run_training

    with pytest.raises(ConfigError, match="a minibatch needs two samples"):
        PPOConfig(n_envs=1, n_steps=3, n_minibatches=4)
    cfg = PPOConfig(n_envs=1, n_steps=4, n_minibatches=2, hidden=16, layers=1,
                    total_decisions=12, baselines=["random"], self_play_fraction=0.0,
                    warmstart_decisions=8, eval_interval=0, progress_bar=False)
    run_training(cfg, run_dir=tmp_path / "run")
    model = load_checkpoint(tmp_path / "run" / "checkpoints" / "latest.pt")["model"]
    assert all(torch.isfinite(t).all() for t in model.values())


def test_an_unreadable_checkpoint_says_why(tmp_path, monkeypatch) -> None:
    path = tmp_path / "locked.pt"
    save_checkpoint(path, {"model": {}, "network": {}})

    def no_permission(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(torch, "load", no_permission)
    with pytest.raises(CheckpointError, match="cannot be read: Permission denied"):
        load_checkpoint(path)


def test_round_statistics_credit_rounds_dealt_after_an_episode_to_its_new_seats(tmp_path):
    """A hand yaku dealt right after an episode ends belongs to the next episode: the trainer's
    logged round statistics read it with the seats it draws for that episode."""
    from agents.train.ppo import SELF, Trainer

    cfg = PPOConfig.from_dict({"n_envs": 64, "n_steps": 48, "hidden": 16, "rules": {"rounds": 1},
                               "episode": "match", "warmstart_decisions": 0, "eval_interval": 0,
                               "self_play_fraction": 0.0, "baselines": ["random"]})
    trainer = Trainer(cfg, tmp_path)
    steps, env_step = [], trainer.env.step

    def spy(action):
        before = (trainer.learner_seat.copy(), trainer.opponent.copy())
        out = env_step(action)
        steps.append((before, out[4]["round_results"], out[4]["next_episode"]))
        return out

    trainer.env.step = spy
    _, stats = trainer.collect()
    expected, moved = [], 0
    for t, ((seat, opponent), rows, later) in enumerate(steps):
        after = steps[t + 1][0][0] if t + 1 < len(steps) else trainer.learner_seat
        for k in [*np.flatnonzero(~later), *np.flatnonzero(later)]:
            g = rows.game[k]
            assert opponent[g] != SELF
            s = after[g] if later[k] else seat[g]
            moved += bool(later[k] and after[g] != seat[g])
            expected.append(rows.reward[k, s])
    assert moved > 0  # some rounds changed hands with the new draw of seats
    assert stats["pool_points"] == expected  # no self-play: every learner round is a pool one
    assert stats["learner_rounds"] == len(expected)


def test_a_plain_pickle_is_refused_without_torch_warnings(tmp_path) -> None:
    import pickle
    import warnings

    path = tmp_path / "plain.pt"
    path.write_bytes(pickle.dumps({"model": 1}, protocol=4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(CheckpointError, match="plain.pt"):
            load_checkpoint(path)
    assert not caught


def test_warm_start_value_targets_use_the_runs_gamma() -> None:
    """The teacher's returns are discounted like PPO's value targets: the same games give
    the same last-decision returns, and smaller earlier ones with gamma < 1."""
    from agents.bots.baselines import GreedyAgent
    from agents.train.warm_start import collect_teacher_games
    from hanafuda_env.vector_env import KoiKoiVectorEnv

    def returns(gamma: float) -> dict[str, np.ndarray]:
        env = KoiKoiVectorEnv(8, seed=0)
        env.reset()
        return collect_teacher_games(env, GreedyAgent(seed=0), 48, 1.0, gamma=gamma)

    full, half = returns(1.0), returns(0.5)
    np.testing.assert_array_equal(full["action"], half["action"])  # the same games
    keep = full["keep"]
    last_of_seat = np.zeros_like(keep)  # each seat's last decision of each finished episode
    for g in range(keep.shape[1]):
        seen: set[tuple[int, int]] = set()
        episode = 0
        for t in reversed(range(keep.shape[0])):
            if full["done"][t, g]:
                episode += 1
            key = (episode, int(full["seat"][t, g]))
            if keep[t, g] and key not in seen:
                seen.add(key)
                last_of_seat[t, g] = True
    np.testing.assert_allclose(half["return"][last_of_seat], full["return"][last_of_seat])
    differs = ~np.isclose(half["return"], full["return"]) & keep
    assert differs.any() and not (differs & last_of_seat).any()
