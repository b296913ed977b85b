"""A trained Hana-awase network as an agent, and its checkpoint files.

The network (:class:`HanaawaseNetwork`) is the Koi-Koi bots' :class:`~agents.bots.network.
ActorCritic` on the Hana-awase observation of N players plus fixed per-card features, with
96 actions. Checkpoints are written and read by the same safe functions as Koi-Koi's
(:mod:`agents.bots.policy`: atomic, a digest, ``weights_only`` loading) and say which game,
player count and observation layout they were trained on, so a checkpoint never plays a game
it does not know.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.bots.hanaawase import check_inputs
from agents.bots.network import ActorCritic, actor_critic_shapes, weights_problem
from agents.bots.policy import (
    MAX_HIDDEN,
    MAX_LAYERS,
    CheckpointError,
    PolicyAgent,
    load_checkpoint,
)
from hanafuda_env.common import cards as C
from hanafuda_env.hanaawase.observation import HA_OBS_VERSION, observation_size
from hanafuda_env.hanaawase.rules import CARD_POINTS, HanaawaseRules
from hanafuda_env.hanaawase.state import NUM_ACTIONS

GAME = "hanaawase"


class HanaawaseFeatures(nn.Module):
    """Fixed (untrained) per-card features an MLP finds slowly on its own: whether a card
    can take or be taken depends on the cards of its month in *another* set (a product of two
    observation blocks). Per card (48 each): its month's count on the field and among the
    unseen cards; "this hand card takes now" and the points it would take; "this field card
    is takeable by my hand", by an unseen card, by the waiting card; the card points of the
    hand and of the field."""

    size = 8 * 48

    def __init__(self, card_points: tuple[int, ...]):
        super().__init__()
        months = torch.zeros(C.NUM_CARDS, C.NUM_MONTHS)
        months[torch.arange(C.NUM_CARDS), torch.as_tensor(C.CARD_MONTH.astype("int64") - 1)] = 1.0
        self.register_buffer("same_month", months @ months.T - torch.eye(C.NUM_CARDS),
                             persistent=False)
        self.register_buffer("points", torch.tensor(card_points, dtype=torch.float32) / 20.0,
                             persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        hand, field, pending, unseen = (obs[:, 48 * k:48 * (k + 1)] for k in range(4))
        at_field, at_unseen, at_hand, at_pending, field_points = torch.stack(
            [field, unseen, hand, pending, field * self.points]) @ self.same_month
        return torch.cat([at_field / 3.0, at_unseen / 3.0, hand * (at_field > 0),
                          hand * field_points / 3.0, field * (at_hand > 0),
                          field * (at_unseen > 0), field * (at_pending > 0),
                          (hand + field) * self.points], dim=1)


class HanaawaseNetwork(nn.Module):
    """The Koi-Koi bots' :class:`~agents.bots.network.ActorCritic` on the observation plus
    :class:`HanaawaseFeatures`."""

    def __init__(self, num_players: int, hidden: int = 256, layers: int = 2,
                 card_points: tuple[int, ...] = CARD_POINTS):
        super().__init__()
        self.obs_dim = observation_size(num_players)
        self.features = HanaawaseFeatures(card_points)
        self.body = ActorCritic(obs_dim=self.obs_dim + HanaawaseFeatures.size, hidden=hidden,
                                layers=layers, n_actions=NUM_ACTIONS)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        return self.body(torch.cat([obs, self.features(obs)], dim=1), mask)


def network_for(num_players: int, hidden: int = 256, layers: int = 2,
                card_points: tuple[int, ...] = CARD_POINTS) -> HanaawaseNetwork:
    return HanaawaseNetwork(num_players, hidden, layers, card_points)


def network_spec(net: HanaawaseNetwork) -> dict[str, int]:
    first = net.body.trunk[0]
    return {"obs_dim": net.obs_dim, "hidden": first.out_features,
            "layers": sum(isinstance(m, torch.nn.Linear) for m in net.body.trunk),
            "n_actions": NUM_ACTIONS}


def policy_spec(rules: HanaawaseRules, hidden: int, layers: int) -> dict[str, Any]:
    """What a Hana-awase checkpoint holds besides the weights: the game, its players, rules
    and observation layout, and the network's shape."""
    return {"game": GAME, "num_players": rules.num_players, "hanaawase_rules": rules.to_dict(),
            "hanaawase_observation_version": HA_OBS_VERSION,
            "network": {"obs_dim": observation_size(rules.num_players), "hidden": hidden,
                        "layers": layers, "n_actions": NUM_ACTIONS}}


def policy_payload(net: HanaawaseNetwork, rules: HanaawaseRules) -> dict[str, Any]:
    """What a Hana-awase checkpoint holds besides a run's training state."""
    shape = network_spec(net)
    return {**policy_spec(rules, shape["hidden"], shape["layers"]),
            "model": {k: v.detach().clone() for k, v in net.state_dict().items()}}


def network_from_payload(payload: dict[str, Any], path: str | Path, num_players: int,
                         card_points: tuple[int, ...] = CARD_POINTS) -> HanaawaseNetwork:
    """The saved network, refused by name unless it is a Hana-awase network for
    ``num_players`` players on this code's observation layout."""
    where = f"checkpoint {str(path)!r}"
    if payload.get("game") != GAME:
        raise CheckpointError(f"{where} is a Koi-Koi checkpoint, not a Hana-awase one")
    if payload.get("num_players") != num_players:
        raise CheckpointError(f"{where} was trained for {payload.get('num_players')} players; "
                              f"this game has {num_players}")
    if payload.get("hanaawase_observation_version") != HA_OBS_VERSION:
        raise CheckpointError(f"{where} was trained on Hana-awase observation version "
                              f"{payload.get('hanaawase_observation_version')}, this code "
                              f"encodes version {HA_OBS_VERSION}; train it again")
    spec = payload["network"] if isinstance(payload["network"], dict) else {}
    hidden, layers = spec.get("hidden"), spec.get("layers")
    for key, value, high in (("hidden", hidden, MAX_HIDDEN), ("layers", layers, MAX_LAYERS)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high:
            raise CheckpointError(f"{where}: its network asks for {key}={value!r}; a network "
                                  f"here has {key} from 1 to {high}")
    shapes = actor_critic_shapes(observation_size(num_players) + HanaawaseFeatures.size,
                                 hidden, layers, NUM_ACTIONS, prefix="body.")
    problem = weights_problem(payload["model"], shapes)  # before anything is allocated
    if problem:
        raise CheckpointError(f"{where}: {problem}")
    net = network_for(num_players, hidden, layers, card_points)
    try:
        net.load_state_dict(payload["model"])
    except (RuntimeError, KeyError, TypeError) as error:
        raise CheckpointError(f"{where}: its weights do not fit the network {spec!r}: "
                              f"{' '.join(str(error).split())[:300]}") from None
    return net.eval()


class HanaawasePolicyAgent(PolicyAgent):
    """The network bot of :class:`~agents.bots.policy.PolicyAgent` on Hana-awase
    observations of its player count: its most likely legal action (``greedy``) or a
    sample."""

    def __init__(self, network: HanaawaseNetwork, rules: HanaawaseRules, name: str = "ppo",
                 greedy: bool = True, seed: int | None = None):
        super().__init__(network, name, greedy, seed)
        self.rules = rules

    def check(self, obs: np.ndarray, mask: np.ndarray, need_action: bool = True
              ) -> tuple[np.ndarray, np.ndarray]:
        obs, mask = check_inputs(obs, mask, need_action)
        if obs.shape[1] != self.network.obs_dim:
            raise ValueError(f"{self.name} was trained for {self.rules.num_players} players; "
                             f"the observation has {obs.shape[1]} values, not "
                             f"{self.network.obs_dim}")
        return obs, mask

    @classmethod
    def from_payload(cls, payload: dict[str, Any], path: str | Path,  # type: ignore[override]
                     rules: HanaawaseRules, greedy: bool = True, seed: int | None = None
                     ) -> HanaawasePolicyAgent:
        """An agent from a checkpoint's policy already read, named after its file."""
        net = network_from_payload(payload, path, rules.num_players, rules.card_points)
        return cls(net, rules, name=Path(path).stem, greedy=greedy, seed=seed)


def load_hanaawase_policy(path: str | Path, rules: HanaawaseRules,
                          seed: int | None = None) -> HanaawasePolicyAgent:
    return HanaawasePolicyAgent.from_payload(load_checkpoint(path), path, rules, seed=seed)


def hanaawase_policy_weights(path: str | Path, rules: HanaawaseRules) -> dict[str, Any]:
    """A Hana-awase checkpoint's policy alone, checked to build for ``rules``' players: a run
    keeps it in its state, so a file changed or deleted later does not change the run."""
    payload = load_checkpoint(path)
    network_from_payload(payload, path, rules.num_players, rules.card_points)
    return {key: payload[key] for key in (*policy_spec(rules, 1, 1), "model")}
