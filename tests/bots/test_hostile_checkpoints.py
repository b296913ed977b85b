"""Checkpoints and agent specs that would hurt the process are refused by name before they
can: a small file whose network sizes ask for gigabytes (checked against the stored weights'
shapes before any network is built), weights that are NaN or infinite under a valid digest,
pickles in torch's legacy format, and ``module:name`` specs that are no agent."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from agents.bots import hanaawase_policy as HP  # noqa: E402
from agents.bots import policy as P  # noqa: E402
from agents.bots.network import (  # noqa: E402
    MAX_PARAMETERS,
    ActorCritic,
    CardFeatures,
    actor_critic_shapes,
)
from agents.bots.policy import CheckpointError, save_checkpoint  # noqa: E402
from agents.bots.registry import make_agent  # noqa: E402
from hanafuda_env.hanaawase.rules import HanaawaseRules  # noqa: E402
from hanafuda_env.koikoi.observation import OBS_DIM  # noqa: E402


def small_network(hidden: int = 16, layers: int = 2) -> dict[str, Any]:
    return {"model": ActorCritic(hidden=hidden, layers=layers).state_dict(),
            "network": {"hidden": hidden, "layers": layers}}


@pytest.fixture()
def no_building(monkeypatch: pytest.MonkeyPatch) -> None:
    """A network built from a refused checkpoint fails the test: refusal comes first."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a network was built before the checkpoint was checked")

    monkeypatch.setattr(P, "ActorCritic", refuse)
    monkeypatch.setattr(HP, "network_for", refuse)


def test_a_small_file_asking_for_a_huge_network_is_refused_before_building(
        tmp_path: Path, no_building: None) -> None:
    path = tmp_path / "huge.pt"
    save_checkpoint(path, {**small_network(), "network": {"hidden": 8192, "layers": 32}})
    assert path.stat().st_size < 100_000
    with pytest.raises(CheckpointError, match=r"at most 50,000,000"):
        make_agent(str(path))
    save_checkpoint(path, {**small_network(), "network": {"hidden": 64, "layers": 2}})
    with pytest.raises(CheckpointError, match=r"weight 'trunk.0.weight' has shape \(16, "
                                              rf"{OBS_DIM}\); the network its sizes name needs"):
        make_agent(str(path))


def test_weights_missing_or_unknown_are_named(tmp_path: Path, no_building: None) -> None:
    payload = small_network()
    path = tmp_path / "partial.pt"
    model = dict(payload["model"])
    model.pop("value.bias")
    save_checkpoint(path, {**payload, "model": {**model, "extra.weight": torch.zeros(2)}})
    with pytest.raises(CheckpointError, match=r"missing \['value.bias'\], unknown "
                                              r"\['extra.weight'\]"):
        make_agent(str(path))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_nan_or_infinite_weights_with_a_valid_digest_are_refused(tmp_path: Path, bad: float,
                                                                 no_building: None) -> None:
    payload = small_network()
    payload["model"]["trunk.2.bias"][3] = bad
    path = tmp_path / "nan.pt"
    save_checkpoint(path, payload)
    with pytest.raises(CheckpointError, match=r"weight 'trunk.2.bias' holds NaN or infinite"):
        make_agent(str(path))
    with pytest.raises(CheckpointError, match="'trunk.2.bias'"):
        P.policy_weights(path)


def test_a_hanaawase_checkpoint_is_checked_the_same_way(tmp_path: Path,
                                                        no_building: None) -> None:
    rules = HanaawaseRules(num_players=3)
    real = HP.HanaawaseNetwork(3, hidden=16, layers=1)
    payload = HP.policy_payload(real, rules)
    payload["model"]["body.policy.weight"][0, 0] = float("nan")
    path = tmp_path / "ha.pt"
    save_checkpoint(path, payload)
    with pytest.raises(CheckpointError, match="'body.policy.weight' holds NaN"):
        HP.load_hanaawase_policy(path, rules)
    payload = HP.policy_payload(real, rules)
    payload["network"] = {**payload["network"], "hidden": 8192, "layers": 32}
    save_checkpoint(path, payload)
    with pytest.raises(CheckpointError, match="at most 50,000,000"):
        HP.load_hanaawase_policy(path, rules)


@pytest.mark.parametrize(("hidden", "layers", "card_features"),
                         [(16, 1, False), (32, 3, True), (8, 0, False)])
def test_the_computed_shapes_are_those_of_the_built_network(hidden: int, layers: int,
                                                           card_features: bool) -> None:
    net = ActorCritic(hidden=hidden, layers=layers, card_features=card_features)
    width = OBS_DIM + (CardFeatures.size if card_features else 0)
    assert actor_critic_shapes(width, hidden, layers) == {
        k: tuple(v.shape) for k, v in net.state_dict().items()}
    ha = HP.HanaawaseNetwork(4, hidden=hidden, layers=max(layers, 1))
    assert actor_critic_shapes(ha.obs_dim + HP.HanaawaseFeatures.size, hidden, max(layers, 1),
                               96, prefix="body.") == {
        k: tuple(v.shape) for k, v in ha.state_dict().items()}
    assert MAX_PARAMETERS > sum(v.numel() for v in ActorCritic().state_dict().values())


def test_a_legacy_pickle_is_reported_as_unsafe_not_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "legacy.pt"
    torch.save({"format": P.CHECKPOINT_FORMAT, "hook": print}, path,
               _use_new_zipfile_serialization=False)
    with pytest.raises(CheckpointError) as raised:
        make_agent(str(path))
    message = str(raised.value)
    assert "unsafe" in message and "legacy" in message and "corrupt" not in message
    plain = tmp_path / "plain.pt"
    plain.write_bytes(pickle.dumps({"hook": print}))
    with pytest.raises(CheckpointError, match="unsafe, unsupported checkpoint format"):
        P.load_checkpoint(plain)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="is corrupt or not a checkpoint"):
        P.load_checkpoint(junk)


@pytest.mark.parametrize("spec", [None, 5, 1.5, b"random", ["random"]])
def test_a_spec_that_is_no_string_is_a_type_error_naming_the_bots(spec: Any) -> None:
    with pytest.raises(TypeError, match=r"an agent spec is a string: a built-in bot's name "
                                        r"\(random, greedy, expert"):
        make_agent(spec)


def test_a_path_object_names_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "ok.pt"
    save_checkpoint(path, small_network())
    assert make_agent(path).name == "ok"


def test_a_repeated_option_key_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"option 'worlds' is given twice"):
        make_agent("search:worlds=64,worlds=128")
    assert make_agent("search:worlds=64").name == "search:worlds=64"


BOT_MODULE = '''
import os

CALLED = []


class NoAct:
    def __init__(self):
        CALLED.append("NoAct")


def needs_path(path):
    CALLED.append("needs_path")


def returns_number() -> int:
    CALLED.append("returns_number")
    return 3


launch = os.getpid


class Bot:
    def act(self, obs, mask):
        return mask.argmax(axis=1)


def make(seed=None) -> Bot:
    return Bot()
'''


@pytest.mark.parametrize(("spec", "words"), [
    ("os:system", "standard-library module"),
    ("os:abort", "standard-library module"),
    ("subprocess:call", "standard-library module"),
    ("posix:abort", "standard-library module"),
    ("hostile_bots:NoAct", "class NoAct has no act"),
    ("hostile_bots:needs_path", "it needs path"),
    ("hostile_bots:returns_number", "it returns int"),
    ("hostile_bots:launch", "neither an agent class nor a factory function"),
])
def test_module_specs_are_checked_before_anything_is_called(spec: str, words: str, tmp_path,
                                                            monkeypatch) -> None:
    (tmp_path / "hostile_bots.py").write_text(BOT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=words):
        make_agent(spec)
    import hostile_bots

    assert hostile_bots.CALLED == []
    assert make_agent("hostile_bots:make").act is not None
