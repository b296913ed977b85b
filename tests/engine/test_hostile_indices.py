"""Every game and seat index a core's public method takes is checked before the compiled
kernel sees it: the kernel reads without bounds checks, so an index past the batch read
memory that is no game's (or crashed the process) and a negative one moved the last game.

The methods are found by inspecting the classes (a parameter named ``game``, ``games``,
``seat`` or ``viewers``), so a new one is fuzzed or this test names it. The fuzz runs in a
child process: a crash there fails the test instead of killing pytest.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.helpers.paths import ROOT

INDEX_PARAMS = ("game", "games", "seat", "viewers")
N_GAMES, N_PLAYERS = 4, 3


def hostile(size: int) -> list[Any]:
    """Values that are no index into ``size`` things: past the end, negative, huge, floats,
    bools, strings and NumPy integers out of range."""
    return [size, size + 4, -1, -size - 1, 10**6, 10**7, 2**63, 10**30, np.int64(size),
            np.int32(-1), np.uint64(2**64 - 1), np.int64(-2**63), 0.0, 1.5, np.float64(1.0),
            float("nan"), True, False, np.True_, "0", 1j]


def hostile_lists(size: int) -> list[Any]:
    return [[size], [0, -1], [-1], [10**7], [0.5], [True], np.array([size]), [[0]]]


def index_methods(cls: type) -> dict[str, list[str]]:
    """The public methods of ``cls`` that take a game or seat index, with those parameters."""
    found = {}
    for name, member in inspect.getmembers(cls, inspect.isfunction):
        if name.startswith("_"):
            continue
        params = [p for p in inspect.signature(member).parameters if p in INDEX_PARAMS]
        if params:
            found[name] = params
    return found


def koikoi_calls(core: Any) -> dict[str, Callable[..., Any]]:
    """Each index-taking method with valid other arguments; keywords replace an index."""
    rng = np.random.default_rng(0)
    return {
        "advance": lambda game=0: core.advance(game, 0),
        "deal_next": lambda games=None: core.deal_next(games),
        "fork": lambda games=0: core.fork(games),
        "legal_actions": lambda game=0: core.legal_actions(game),
        "observe": lambda viewers=None: core.observe(viewers),
        "observe_one": lambda game=0, seat=0: core.observe_one(game, seat),
        "resample_hidden": lambda seat=0, games=None: core.resample_hidden(seat, rng, games),
        "shuffle_stock": lambda games=None: core.shuffle_stock(rng, games),
    }


def hanaawase_calls(core: Any) -> dict[str, Callable[..., Any]]:
    return {
        "advance": lambda game=0: core.advance(game, 0),
        "deal_next": lambda games=None: core.deal_next(games),
        "fork": lambda games=0: core.fork(games),
        "legal_actions": lambda game=0: core.legal_actions(game),
        "observe": lambda viewers=None: core.observe(viewers),
        "observe_one": lambda game=0, seat=0: core.observe_one(game, seat),
        "step_one": lambda game=0: core.step_one(game, 0),
    }


def fuzz() -> list[str]:
    """Call every index-taking method with every hostile value; the failures, as text."""
    from hanafuda_env.envs.hanaawase_v0 import render_hanaawase
    from hanafuda_env.hanaawase.core import HanaawaseCore
    from hanafuda_env.koikoi.core import KoiKoiCore
    from hanafuda_env.koikoi.game import KoiKoiGame
    from hanafuda_env.koikoi.observation import encode_game, encode_observations
    from hanafuda_env.render.board_image import board_layout
    from hanafuda_env.render.text import render_game

    failures: list[str] = []
    koikoi = KoiKoiCore(N_GAMES, seed=0)
    hana = HanaawaseCore(N_GAMES, num_players=N_PLAYERS, seed=0)
    game = KoiKoiGame(seed=0)
    cases: list[tuple[str, Any, Callable[..., Any], str, int]] = []
    for cls, core, calls, players in ((KoiKoiCore, koikoi, koikoi_calls(koikoi), 2),
                                      (HanaawaseCore, hana, hanaawase_calls(hana), N_PLAYERS)):
        methods = index_methods(cls)
        if set(methods) != set(calls):
            failures.append(f"{cls.__name__}: index-taking methods {sorted(methods)}, fuzzed "
                            f"{sorted(calls)}: give each a call in this test")
        for name, params in methods.items():
            for param in params:
                if name in calls:
                    size = N_GAMES if param.startswith("game") else players
                    cases.append((f"{cls.__name__}.{name}({param}=…)", core, calls[name],
                                  param, size))
    extra = {
        "render_game(game=…)": (koikoi, lambda game=0: render_game(koikoi, game), "game",
                                N_GAMES),
        "render_game(viewer=…)": (koikoi, lambda seat=0: render_game(koikoi, 0, seat), "seat",
                                  2),
        "render_hanaawase(game=…)": (hana, lambda game=0: render_hanaawase(hana, game), "game",
                                     N_GAMES),
        "render_hanaawase(viewer=…)": (hana, lambda seat=0: render_hanaawase(hana, 0, seat),
                                       "seat", N_PLAYERS),
        "encode_observations(seats=…)": (koikoi, lambda seat=0: encode_observations(koikoi,
                                                                                    seat),
                                         "seat", 2),
        "encode_game(seat=…)": (game, lambda seat=0: encode_game(game, seat), "seat", 2),
        "board_layout(viewer=…)": (game, lambda seat=0: board_layout(game, seat), "seat", 2),
    }
    cases += [(label, engine, call, param, size)
              for label, (engine, call, param, size) in extra.items()]
    for label, engine, call, param, size in cases:
        values = hostile(size) + (hostile_lists(size) if param == "games" else [])
        for value in values:
            if param == "viewers" and value is None:
                continue
            before = snapshot(engine)
            try:
                call(**{param: value})
            except (TypeError, IndexError, ValueError) as error:
                allowed = (f"0..{size - 1}", "0 or 1") if size == 2 else (f"0..{size - 1}",)
                if not any(words in str(error) for words in allowed):
                    failures.append(f"{label} {value!r}: the error does not name the allowed "
                                    f"range {allowed[0]}: {error}")
            except Exception as error:  # noqa: BLE001 - any other error is a failure here
                failures.append(f"{label} {value!r}: {type(error).__name__}: {error}")
            else:
                failures.append(f"{label} {value!r}: accepted")
            if not np.array_equal(snapshot(engine), before):
                failures.append(f"{label} {value!r}: the state changed")
    return failures


def snapshot(engine: Any) -> np.ndarray:
    return engine.records.copy()


def test_every_index_taking_method_refuses_hostile_indices_in_a_child_process() -> None:
    script = ("import json; from tests.engine.test_hostile_indices import fuzz; "
              "print('FUZZ ' + json.dumps(fuzz()))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, (f"the fuzz process died (exit {done.returncode}): "
                                  f"{done.stderr[-3000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("FUZZ "))
    failures = json.loads(line[5:])
    assert not failures, "\n".join(failures)


def test_the_issue_cases_name_the_range_and_numpy_integers_in_range_work() -> None:
    """The cases reported, in this process: they are checked before the kernel now."""
    from hanafuda_env.hanaawase.core import HanaawaseCore
    from hanafuda_env.koikoi.core import KoiKoiCore
    from hanafuda_env.render.text import render_game

    core = KoiKoiCore(8, seed=0)
    before = core.records.copy()
    for game in (8, -1):
        with pytest.raises(IndexError, match=r"game .* out of range: allowed 0\.\.7"):
            core.advance(game, 0)
    with pytest.raises(TypeError, match=r"game must be an integer index in 0\.\.7"):
        core.advance(True, 0)
    with pytest.raises(IndexError, match=r"allowed 0\.\.7"):
        render_game(core, 99)
    assert np.array_equal(core.records, before)
    action = int(np.flatnonzero(core.legal_action_mask()[3])[0])
    core.advance(np.int64(3), np.int16(action))
    assert not np.array_equal(core.records[3], before[3])
    assert np.array_equal(core.records[:3], before[:3])
    assert render_game(core, np.int8(3), viewer=np.int64(1))

    hana = HanaawaseCore(4, num_players=3, seed=0)
    before = hana.records.copy()
    with pytest.raises(IndexError, match=r"allowed 0\.\.3"):
        hana.legal_actions(4)
    with pytest.raises(IndexError, match=r"allowed 0\.\.3"):
        hana.observe_one(99, 0)
    with pytest.raises(IndexError, match=r"seat 5 is out of range: allowed 0\.\.2"):
        hana.observe_one(0, 5)
    with pytest.raises(IndexError, match=r"allowed 0\.\.3"):
        hana.step_one(-1, 0)
    with pytest.raises(ValueError, match="an action must be an integer"):
        hana.step_one(0, 1.0)
    assert np.array_equal(hana.records, before)
    assert hana.legal_actions(np.uint8(2)) == hana.legal_actions(2)
    assert np.array_equal(hana.observe_one(np.int64(1), np.int32(2)), hana.observe(2)[1])
