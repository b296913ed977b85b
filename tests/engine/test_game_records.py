"""Game records (hanafuda_env.koikoi.records): the KoiKoi-AI format's card ids, export then replay
as the identity on generated matches of every preset, and malformed records named by file,
round, turn and problem."""

from __future__ import annotations

import copy
import json
import random

import pytest

from agents.bots import make_agent
from agents.eval import play_matches
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.recorder import MatchRecorder
from hanafuda_env.koikoi.records import (
    RecordError,
    card_json,
    match_from_json,
    match_to_json,
    read_record,
    record_files,
    replay,
    write_record,
)

RULE_SETS = ["nintendo", "ten-base", "koikoi-japan", {"preset": "nintendo", "rounds": 3,
                                                      "multiple_koikoi": True}]
# The format's card kinds by [month, index] (the KoiKoi-AI program's tables).
BRIGHTS = [[1, 1], [3, 1], [8, 1], [11, 1], [12, 1]]
ANIMALS = [[2, 1], [4, 1], [5, 1], [6, 1], [7, 1], [8, 2], [9, 1], [10, 1], [11, 2]]
RIBBONS = [[1, 2], [2, 2], [3, 2], [4, 2], [5, 2], [6, 2], [7, 2], [9, 2], [10, 2], [11, 3]]


def random_matches(rules, n: int, seed: int = 3) -> list:
    game = KoiKoiGame(rules, seed=0)
    recorder = MatchRecorder(game, ("north", "south"))
    recorder.reset(seed=seed)
    rng = random.Random(seed)
    while len(recorder.matches) < n:
        recorder.step(rng.choice(game.legal_actions()))
    return recorder.matches[:n]


def test_card_ids_follow_month_and_index_and_the_kinds_agree() -> None:
    for card in C.DECK:
        month, index = card_json(card.id)
        assert card.id == 4 * (month - 1) + index - 1 and card.month == month
        kind = ("bright" if [month, index] in BRIGHTS else "animal" if [month, index] in ANIMALS
                else "ribbon" if [month, index] in RIBBONS else "chaff")
        assert card.kind == kind, (card.name, month, index)


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_export_then_replay_is_the_identity(rules, tmp_path) -> None:
    matches = random_matches(rules, 25)
    assert sum(len(m.rounds) for m in matches) >= 25
    for k, match in enumerate(matches):
        path = tmp_path / f"{k}.json"
        write_record(path, match)
        read = read_record(path)
        assert match_to_json(read) == match_to_json(match)
        summary = replay(read, source=path.name)
        assert summary.rounds == len(match.rounds)
        assert summary.turns == sum(len(r.turns) for r in match.rounds)
        end = tuple(s + d for s, d in zip(match.start_points, summary.scores))
        assert match.over and end == match.end_points
    assert [p.name for p in record_files(tmp_path)][:3] == ["0.json", "1.json", "2.json"]


def test_the_records_of_an_evaluation_replay_and_agree_with_its_results() -> None:
    records: list = []
    rules = "koikoi-japan"
    result = play_matches(make_agent("expert", rules), make_agent("greedy", rules), 10, rules,
                          seed=5, batch=4, records=records)
    assert len(records) == 10
    wins = sum(m.winner == m.names.index("expert") for m in records)
    assert wins == result["wins"]
    assert sum(len(m.rounds) for m in records) == result["rounds"]
    for match in records:
        replay(match)
        assert match.start_points == (30, 30)


def test_an_unfinished_match_replays_up_to_where_it_stops() -> None:
    game = KoiKoiGame("koikoi-japan", seed=0)
    recorder = MatchRecorder(game)
    recorder.reset(seed=9)
    rng = random.Random(1)
    for _ in range(40):
        recorder.step(rng.choice(game.legal_actions()))
    match = recorder.all_matches()[0]
    data = match_to_json(match)
    assert data["result"]["isOver"] is False
    last = data["record"][f"round{len(match.rounds)}"]["basic"]
    assert last["roundWinner"] is None and last["player1RoundPts"] is None
    summary = replay(match_from_json(json.loads(json.dumps(data))))
    assert summary.rounds == len(match.rounds) - 1


# ------------------------------------------------------------------ malformed records
def good_record() -> dict:
    match = random_matches("koikoi-japan", 1, seed=11)[0]
    return match_to_json(match)


def first_turn_with(data: dict, test) -> tuple[int, int]:
    for k in range(1, 9):
        game_round = data["record"].get(f"round{k}", {})
        for t in range(1, 17):
            turn = game_round.get(f"turn{t}")
            if turn is not None and test(turn):
                return k, t
    raise AssertionError("no such turn")


def broken(mutate) -> str:
    data = good_record()
    mutate(data)
    with pytest.raises(RecordError) as error:
        replay(match_from_json(data, "m.json"), source="m.json")
    return str(error.value)


def test_a_missing_key_is_named_with_its_place() -> None:
    message = broken(lambda d: d["record"]["round1"]["turn3"].pop("drawCard"))
    assert message == "m.json, round 1, turn 3: missing key 'drawCard'"
    assert "missing key 'numRound'" in broken(lambda d: d["info"].pop("numRound"))


def test_an_impossible_card_is_named() -> None:
    message = broken(lambda d: d["record"]["round1"]["turn2"].update(discardCard=[13, 1]))
    assert message.startswith("m.json, round 1, turn 2: 'discardCard' holds [13, 1], which is "
                              "no card")


def test_a_card_played_from_outside_the_hand_is_refused() -> None:
    def mutate(data):
        turn = data["record"]["round1"]["turn1"]
        hand = data["record"]["round1"]["basic"]["initHand1" if turn["playerInTurn"] == 1
                                                 else "initHand2"]
        outside = next(c for c in data["record"]["round1"]["basic"]["initBoard"]
                       if c not in hand)
        turn["discardCard"] = outside
    message = broken(mutate)
    assert message.startswith("m.json, round 1, turn 1: player ") and "not in their hand" in (
        message)


def test_a_wrong_capture_a_wrong_draw_and_a_wrong_decision_are_named() -> None:
    data = good_record()
    k, t = first_turn_with(data, lambda turn: turn["collectCard"])
    def drop(d):
        d["record"][f"round{k}"][f"turn{t}"]["collectCard"] = []
    message = broken(drop)
    assert message.startswith(f"m.json, round {k}, turn {t}: ") and "'collectCard'" in message
    assert "says nothing" in message
    message = broken(lambda d: d["record"]["round1"]["turn1"].update(drawCard=[1, 1])
                     if d["record"]["round1"]["turn1"]["drawCard"] != [1, 1]
                     else d["record"]["round1"]["turn1"].update(drawCard=[2, 2]))
    assert message.startswith("m.json, round 1, turn 1: the draw is recorded as")
    k, t = first_turn_with(data, lambda turn: turn["isKoiKoi"] is None)
    message = broken(lambda d: d["record"][f"round{k}"][f"turn{t}"].update(isKoiKoi=True))
    assert message == (f"m.json, round {k}, turn {t}: the record calls koi-koi where the "
                       "rules offer no decision")


def test_round_points_and_the_match_result_are_checked() -> None:
    def more_points(d):
        basic = d["record"]["round1"]["basic"]
        basic["player1RoundPts"] += 1
    assert broken(more_points).startswith("m.json, round 1: the record says")
    def other_end(d):
        d["result"]["player1EndPts"] += 2
    assert "the players end with" in broken(other_end)


def test_a_card_dealt_twice_is_refused_before_any_move() -> None:
    def twice(d):
        basic = d["record"]["round1"]["basic"]
        basic["initHand1"][0] = copy.copy(basic["initHand2"][0])
    message = broken(twice)
    assert message.startswith("m.json, round 1: the deal holds") and "more than once" in message


def test_a_file_that_is_not_json_names_itself(tmp_path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordError, match=r"bad.json: not JSON"):
        read_record(path)


def test_a_rule_set_the_record_names_wrongly_is_refused_by_name() -> None:
    message = broken(lambda d: d["info"].update(ruleSet={"rounds": "eight"}))
    assert message.startswith("m.json: the record's ruleSet: rule 'rounds' must be an integer")
