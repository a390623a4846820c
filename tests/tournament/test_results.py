"""Results (Monopoly ranking and assets, Catan scores by C.SCORE.1), tournament points, standings, CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from itertools import pairwise

import pytest

from engine import game
from engine import tournament as tn
from engine.errors import IllegalCommand, InvalidCommand


def catan_event(n: int = 8, seed: int = 1) -> tn.Tournament:
    return tn.seat_round(tn.create_event("Qualifier", "catan", [f"P{i}" for i in range(n)], seed=seed))


def seats(event: tn.Tournament, rnd: int = 1, table: int = 1) -> tuple[str, ...]:
    return event.round(rnd).table(table).players


# ---- the event ----


def test_event_defaults_and_clock_configs() -> None:
    """M.END.2: Monopoly 90 minutes unless the event says; C.TIME.1: Catan 60 minutes of play."""
    mono = tn.seat_round(tn.create_event("JMA open", "monopoly", list("ABCDEFGH")))
    assert mono.minutes == 90
    cfg = tn.clock_config(mono, mono.round(1).tables[0])
    assert cfg.kind == "monopoly" and cfg.play_seconds == 90 * 60
    short = tn.create_event("JMA short", "monopoly", list("ABCD"), minutes=60)
    assert tn.clock_config(tn.seat_round(short), tn.seat_round(short).round(1).tables[0]).play_seconds == 3600
    cat = catan_event(7)
    t4, t3 = cat.round(1).tables
    cfg4, cfg3 = tn.clock_config(cat, t4), tn.clock_config(cat, t3)
    assert cfg4.kind == "catan" and cfg4.play_seconds == 3600 and cfg4.players == t4.players
    assert cfg4.settlements == 8 and cfg3.settlements == 6  # C.TABLE.1 three-player table


def test_event_refusals() -> None:
    with pytest.raises(InvalidCommand):
        tn.create_event("X", "chess")
    with pytest.raises(InvalidCommand):
        tn.create_event("X", "catan", ["A", "A"])
    with pytest.raises(InvalidCommand):
        tn.create_event("X", "monopoly", minutes=0)
    with pytest.raises(IllegalCommand) as err:
        tn.seat_round(tn.create_event("X", "catan", list("ABCDE")))
    assert err.value.rule == "C.TABLE.1"
    with pytest.raises(InvalidCommand):
        tn.drop_player(tn.create_event("X", "catan", list("ABC")), "Z")


# ---- C.SCORE.1 ----


def test_catan_winner_recorded_as_10_others_capped_at_9() -> None:
    """C.SCORE.1: the winner's 11 is recorded as 10; a loser's 10 (undeclared, C.WIN.1) as 9."""
    r = tn.CatanResult(points={"A": 11, "B": 10, "C": 6, "D": 3}, winner="A")
    assert r.scores() == {"A": 10, "B": 9, "C": 6, "D": 3}
    assert r.ended_by == "win"


def test_catan_time_game_has_no_winner_and_caps_everyone_at_9() -> None:
    """C.SCORE.1: ended by time, no winner, everyone at most 9."""
    r = tn.CatanResult(points={"A": 10, "B": 9, "C": 12, "D": 4})
    assert r.scores() == {"A": 9, "B": 9, "C": 9, "D": 4}
    assert r.ended_by == "time"
    assert tn.table_places(r) == {"A": 1, "B": 1, "C": 1, "D": 4}  # level on 9: shared place


def test_catan_winner_needs_10_points() -> None:
    """C.WIN.1: only a player with 10 or more can have declared the win."""
    event = catan_event()
    a, b, c, d = seats(event)
    with pytest.raises(IllegalCommand) as err:
        tn.record_result(event, 1, 1, tn.CatanResult(points={a: 9, b: 5, c: 4, d: 3}, winner=a))
    assert err.value.rule == "C.WIN.1"


def test_result_must_cover_exactly_the_table() -> None:
    event = catan_event()
    a, b, c, _ = seats(event)
    with pytest.raises(InvalidCommand):
        tn.record_result(event, 1, 1, tn.CatanResult(points={a: 10, b: 5, c: 4}, winner=a))
    with pytest.raises(InvalidCommand):
        tn.record_result(event, 1, 9, tn.CatanResult(points={}))
    with pytest.raises(InvalidCommand):
        tn.record_result(event, 2, 1, tn.CatanResult(points={}))
    with pytest.raises(InvalidCommand):
        tn.record_result(event, 1, 1, tn.MonopolyResult(ranking=seats(event), assets={}))


def test_monopoly_result_checks() -> None:
    event = tn.seat_round(tn.create_event("JMA", "monopoly", list("ABCD")))
    a, b, c, d = seats(event)
    assets = {a: 3000, b: 2000, c: 1000, d: 0}
    with pytest.raises(InvalidCommand):
        tn.record_result(event, 1, 1, tn.MonopolyResult(ranking=(a, b, c), assets=assets))
    with pytest.raises(IllegalCommand) as err:
        tn.record_result(event, 1, 1, tn.MonopolyResult(ranking=(a, b, c, d), assets=assets, winner=b))
    assert err.value.rule == "M.END.4"
    with pytest.raises(InvalidCommand):
        tn.record_result(event, 1, 1, tn.MonopolyResult(ranking=(a, b, c, d), assets={**assets, d: -5}))


# ---- places and points ----


@pytest.mark.parametrize(("size", "points"), [(4, [3, 2, 1, 0]), (3, [3, 1, 0])])
def test_place_points(size: int, points: list[int]) -> None:
    assert [tn.place_points(p, size) for p in range(1, size + 1)] == points


def test_catan_winner_places_first_then_by_recorded_score() -> None:
    r = tn.CatanResult(points={"A": 7, "B": 12, "C": 9, "D": 9}, winner="B")
    assert tn.table_places(r) == {"B": 1, "C": 2, "D": 2, "A": 4}


# ---- standings ----


def _two_catan_rounds() -> tn.Tournament:
    event = tn.create_event("Qualifier", "catan", [f"P{i}" for i in range(7)], seed=4)
    for rnd in (1, 2):
        event = tn.seat_round(event)
        for t in event.round(rnd).tables:
            pts = dict(zip(t.players, (10, 8, 6, 4), strict=False))
            winner = t.players[0] if t.number == 1 else None  # table 2 (of three) ends by time
            event = tn.record_result(event, rnd, t.number, tn.CatanResult(points=pts, winner=winner))
    return event


def test_standings_sum_points_then_wins_then_score() -> None:
    event = _two_catan_rounds()
    table = tn.standings(event)
    assert len(table) == 7
    lines: dict[str, list[tuple[int, int, int]]] = {}
    for r in event.rounds:
        for t in r.tables:
            res = r.results[t.number]
            places, scores = tn.table_places(res), res.scores()
            for p in t.players:
                lines.setdefault(p, []).append(
                    (tn.place_points(places[p], len(t.players)), int(res.winner == p), scores[p]))
    for s in table:
        mine = lines[s.player]
        assert (s.points, s.wins, s.score, s.games) == (
            sum(x[0] for x in mine), sum(x[1] for x in mine), sum(x[2] for x in mine), 2)
    keys = [(s.points, s.wins, s.score) for s in table]
    assert keys == sorted(keys, reverse=True)
    assert table[0].rank == 1
    for prev, cur in pairwise(table):
        assert cur.rank == (prev.rank if (cur.points, cur.wins, cur.score) == (prev.points, prev.wins, prev.score)
                            else table.index(cur) + 1)


def test_wins_break_a_tie_on_points() -> None:
    """Two players each with 3 points: a declared win (C.WIN.1) beats a time-game first place."""
    event = tn.create_event("Q", "catan", list("ABCDEFG"), seed=2)
    event = tn.seat_round(event)
    four, three = event.round(1).tables
    w = four.players
    event = tn.record_result(event, 1, 1, tn.CatanResult(points={w[0]: 10, w[1]: 5, w[2]: 4, w[3]: 3}, winner=w[0]))
    t = three.players
    event = tn.record_result(event, 1, 2, tn.CatanResult(points={t[0]: 9, t[1]: 5, t[2]: 4}))
    table = tn.standings(event)
    assert [s.player for s in table[:2]] == [w[0], t[0]]
    assert (table[0].points, table[0].wins, table[1].points, table[1].wins) == (3, 1, 3, 0)
    assert table[1].rank == 2


def test_monopoly_standings_use_assets_as_the_tiebreak() -> None:
    event = tn.seat_round(tn.create_event("JMA", "monopoly", list("ABCDEFGH"), seed=5))
    for t in event.round(1).tables:
        p = t.players
        assets = {p[0]: 4000 + t.number, p[1]: 2000, p[2]: 1000, p[3]: 0}
        event = tn.record_result(event, 1, t.number, tn.MonopolyResult(ranking=p, assets=assets))
    table = tn.standings(event)
    assert [s.points for s in table] == [3, 3, 2, 2, 1, 1, 0, 0]
    assert table[0].score == 4002 and table[1].score == 4001  # more assets first (M.END.3)
    assert table[2].rank == table[3].rank == 3  # level on points, wins and assets


def test_unplayed_and_dropped_players_stay_in_the_standings() -> None:
    event = tn.create_event("Q", "catan", list("ABCDEFGH"), seed=2)
    event = tn.seat_round(event)
    event = tn.drop_player(event, "A")
    event = tn.add_players(event, ["Z"])
    by_name = {s.player: s for s in tn.standings(event)}
    assert by_name["A"].games == 0 and by_name["Z"].games == 0 and len(by_name) == 9


def test_correcting_a_result_replaces_it() -> None:
    event = catan_event()
    a, b, c, d = seats(event)
    event = tn.record_result(event, 1, 1, tn.CatanResult(points={a: 10, b: 5, c: 4, d: 3}, winner=a))
    event = tn.record_result(event, 1, 1, tn.CatanResult(points={a: 9, b: 10, c: 4, d: 3}, winner=b))
    assert event.round(1).results[1].winner == b
    assert not event.round(1).complete
    assert tn.standings(event)[0].player == b


# ---- Monopoly from the engine ----


def test_monopoly_result_from_an_engine_game() -> None:
    """M.END.3 valuation and M.END.4 ranking come from the engine."""
    state = game.start(["A", "B", "C"], seed=1)
    cash = {"A": 900, "B": 2100, "C": 1500}
    state = replace(state, players=tuple(replace(p, cash=cash[p.name]) for p in state.players))
    res = tn.monopoly_result(state)
    assert res.ranking == ("B", "C", "A")
    assert dict(res.assets) == cash
    assert res.winner is None  # a time game's asset lead is not a win (M.END.5) unless the event says so
    assert tn.monopoly_result(state, asset_lead_wins=True).winner == "B"


def test_monopoly_last_player_standing_wins() -> None:
    """M.END.1: every other player bankrupt."""
    state = game.start(["A", "B", "C"], seed=1)
    state = replace(state, players=tuple(
        replace(p, cash=0, bankrupt=True, out_order=i) if p.name != "C" else p
        for i, p in enumerate(state.players, start=1)))
    res = tn.monopoly_result(state)
    assert res.winner == "C" and res.ranking == ("C", "B", "A") and res.assets["A"] == 0


# ---- CSV ----


def test_results_csv() -> None:
    event = _two_catan_rounds()
    text = tn.results_csv(event)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == tn.RESULT_COLUMNS
    assert len(rows) == 14  # 7 players x 2 rounds
    first = event.round(1).table(1).players[0]
    row = next(r for r in rows if r["round"] == "1" and r["table"] == "1" and r["player"] == first)
    assert row == {"event": "Qualifier", "game": "catan", "round": "1", "table": "1", "seat": "1",
                   "player": first, "place": "1", "points": "3", "win": "1", "score": "10", "raw": "10",
                   "ended_by": "win"}
    by_time = [r for r in rows if r["table"] == "2"]
    assert {r["ended_by"] for r in by_time} == {"time"} and {r["win"] for r in by_time} == {"0"}
    top = next(r for r in by_time if r["raw"] == "10")
    assert top["score"] == "9" and top["place"] == "1"  # C.SCORE.1: by time, 10 on the board is recorded 9


def test_csv_quotes_awkward_names_and_skips_unrecorded_tables() -> None:
    event = tn.seat_round(tn.create_event('Open, "2025"', "monopoly", ["Ann, Jr.", 'Bo "B"', "Cy", "Di"]))
    assert tn.results_csv(event).count("\n") == 1  # header only: nothing recorded yet
    p = seats(event)
    event = tn.record_result(event, 1, 1, tn.MonopolyResult(ranking=p, assets=dict.fromkeys(p, 1500)))
    rows = list(csv.DictReader(io.StringIO(tn.results_csv(event))))
    assert {r["player"] for r in rows} == set(p) and {r["event"] for r in rows} == {'Open, "2025"'}
    assert {r["raw"] for r in rows} == {""} and {r["ended_by"] for r in rows} == {"time"}
    st_rows = list(csv.DictReader(io.StringIO(tn.standings_csv(event))))
    assert [r["player"] for r in st_rows] == [s.player for s in tn.standings(event)]
    assert st_rows[0]["places"] == "1"


# ---- storage form ----


def test_tournament_json_round_trip() -> None:
    import json

    event = _two_catan_rounds()
    event = tn.seat_round(event)  # a third round, seated, nothing recorded yet
    data = json.loads(json.dumps(tn.tournament_to_json(event)))
    again = tn.tournament_from_json(data)
    assert again == event
    assert tn.results_csv(again) == tn.results_csv(event)
    mono = tn.seat_round(tn.create_event("JMA", "monopoly", list("ABCD"), minutes=75, asset_lead_wins=True))
    p = seats(mono)
    mono = tn.record_result(mono, 1, 1, tn.MonopolyResult(ranking=p, assets=dict(zip(p, (4, 3, 2, 1), strict=True)),
                                                          winner=p[0]))
    assert tn.tournament_from_json(json.loads(json.dumps(tn.tournament_to_json(mono)))) == mono


def test_tournament_json_rechecks_results() -> None:
    event = catan_event()
    data = tn.tournament_to_json(event)
    a, b, c, d = seats(event)
    data["rounds"][0]["results"] = {"1": {"kind": "catan", "points": {a: 8, b: 5, c: 4, d: 3}, "winner": a}}
    with pytest.raises(IllegalCommand) as err:
        tn.tournament_from_json(data)
    assert err.value.rule == "C.WIN.1"
