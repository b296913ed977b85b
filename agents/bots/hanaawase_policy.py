"""A trained Hana-awase network as an agent, and its checkpoint files.

The network is the Koi-Koi bots' :class:`~agents.bots.network.ActorCritic` sized for the
Hana-awase observation of N players and its 96 actions. Checkpoints are written and read by
the same safe functions as Koi-Koi's (:mod:`agents.bots.policy`: atomic, a digest,
``weights_only`` loading) and say which game, player count and observation layout they were
trained on, so a checkpoint never plays a game it does not know.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots.hanaawase import HanaawaseAgent
from agents.bots.network import ActorCritic, sample_actions
from agents.bots.policy import MAX_HIDDEN, MAX_LAYERS, CheckpointError, load_checkpoint
from hanafuda_env.hanaawase_observation import HA_OBS_VERSION, observation_size
from hanafuda_env.hanaawase_rules import HanaawaseRules
from hanafuda_env.hanaawase_state import NUM_ACTIONS

GAME = "hanaawase"


def network_for(num_players: int, hidden: int = 256, layers: int = 2) -> ActorCritic:
    return ActorCritic(obs_dim=observation_size(num_players), hidden=hidden, layers=layers,
                       n_actions=NUM_ACTIONS)


def network_spec(net: ActorCritic) -> dict[str, int]:
    first = net.trunk[0]
    return {"obs_dim": first.in_features, "hidden": first.out_features,
            "layers": sum(isinstance(m, torch.nn.Linear) for m in net.trunk),
            "n_actions": NUM_ACTIONS}


def policy_payload(net: ActorCritic, rules: HanaawaseRules) -> dict[str, Any]:
    """What a Hana-awase checkpoint holds besides a run's training state."""
    return {"game": GAME, "num_players": rules.num_players, "hanaawase_rules": rules.to_dict(),
            "hanaawase_observation_version": HA_OBS_VERSION,
            "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
            "network": network_spec(net)}


def network_from_payload(payload: dict[str, Any], path: str | Path,
                         num_players: int) -> ActorCritic:
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
    net = network_for(num_players, hidden, layers)
    try:
        net.load_state_dict(payload["model"])
    except (RuntimeError, KeyError, TypeError) as error:
        raise CheckpointError(f"{where}: its weights do not fit the network {spec!r}: "
                              f"{' '.join(str(error).split())[:300]}") from None
    return net.eval()


class HanaawasePolicyAgent(HanaawaseAgent):
    """Plays with a network: its most likely legal action (``greedy``) or a sample."""

    def __init__(self, network: ActorCritic, rules: HanaawaseRules, name: str = "ppo",
                 greedy: bool = True, seed: int | None = None):
        super().__init__(rules, seed=seed, name=name)
        self.network, self.greedy = network, greedy
        self.generator = torch.Generator()
        self.generator.manual_seed(int(seed or 0))

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.generator.manual_seed(int(seed or 0))

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = super().check(obs, mask)
        if obs.shape[1] != self.network.trunk[0].in_features:
            raise ValueError(f"{self.name} was trained for {self.rules.num_players} players; "
                             f"the observation has {obs.shape[1]} values, not "
                             f"{self.network.trunk[0].in_features}")
        if len(obs) == 0:
            return np.zeros(0, dtype=np.int64)
        logits, _ = self.network(torch.as_tensor(obs), torch.as_tensor(mask))
        if self.greedy:
            return logits.argmax(-1).numpy()
        return sample_actions(logits, self.generator).numpy()


def load_hanaawase_policy(path: str | Path, rules: HanaawaseRules,
                          seed: int | None = None) -> HanaawasePolicyAgent:
    payload = load_checkpoint(path)
    net = network_from_payload(payload, path, rules.num_players)
    return HanaawasePolicyAgent(net, rules, name=Path(path).stem, seed=seed)
