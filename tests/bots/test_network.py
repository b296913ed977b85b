"""The actor-critic network: its masked distribution never picks an illegal action and has no
NaN (a single legal action has zero entropy), and its optional card features equal a plain
per-card reference and survive a checkpoint."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.bots.network import ActorCritic, sample_actions
from agents.bots.policy import PolicyAgent, save_checkpoint
from agents.train.config import ConfigError, PPOConfig
from agents.train.ppo import masked_entropy
from hanafuda_env.koikoi.observation import OBS_DIM


def test_masked_distribution_never_picks_illegal_and_has_no_nans() -> None:
    torch.manual_seed(0)
    net = ActorCritic(hidden=32)
    obs = torch.randn(512, OBS_DIM)
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
    logits, _ = net(torch.randn(4, OBS_DIM), mask)
    log_probs = torch.log_softmax(logits, dim=-1)
    assert torch.allclose(masked_entropy(log_probs, mask), torch.zeros(4), atol=1e-6)


# ---------------------------------------------------------------- card features
def test_card_features_see_captures_and_yaku_progress() -> None:
    from agents.bots.network import YAKU_GROUPS, CardFeatures
    from hanafuda_env.common import cards as C
    from hanafuda_env.koikoi.observation import BLOCK, OBS_DIM

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
    from hanafuda_env.common import cards as C
    from hanafuda_env.koikoi.core import KoiKoiCore
    from hanafuda_env.koikoi.observation import BLOCK, OBS_DIM, encode_observations

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
    from hanafuda_env.envs.vector_env import KoiKoiVectorEnv

    env = KoiKoiVectorEnv(8, seed=0)
    obs, info = env.reset()
    actions = agent.act(obs, info["action_mask"])
    assert info["action_mask"][np.arange(8), actions].all()
    with pytest.raises(ConfigError, match="card_features must be true or false"):
        PPOConfig(card_features="yes")
