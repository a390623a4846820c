"""A tournament as a plain value: the event, its rounds and tables, results, standings and CSV export.

Pure: every function takes a `Tournament` and returns a new one (or a read-out); storage is the service's.

Results per table
- Monopoly (`MonopolyResult`): the final ranking (M.END.4: by assets, the bankrupt by how long they
  survived, ties settled by dice in the engine) and every player's assets (M.END.3 valuation; 0 for the
  bankrupt). `winner`: the last player standing (M.END.1), or the asset leader where the event counts an
  asset lead as a win (M.END.5); otherwise none. `monopoly_result(state)` builds it from an engine game.
- Catan (`CatanResult`): each player's victory points on the board and the declared winner (C.WIN.1), or
  no winner when the game ended by time. Recorded scores follow C.SCORE.1: the winner is recorded as 10
  even with more, everyone else at most 9; ended by time, no winner and everyone at most 9.

Places at a table
- Monopoly: the ranking's order (already strict).
- Catan: the winner first, then by recorded score; equal recorded scores share a place (1, 2, 2, 4), so
  a time game's leaders level on 9 are both second-to-none: both take place 1.

Tournament points (the standings' first key)
- First place: 3 points. Any other place: 1 point per player placed behind you. At four: 3/2/1/0; at
  three (C.TABLE.1): 3/1/0 — winning a three-table is worth the same as winning a four-table, and the
  others get what they beat. A shared place earns that place's points (two Catan players level on 9
  at the top both get 3).

Standings across rounds, best first, by:
  1. tournament points (sum),
  2. wins (Catan: declared wins, C.WIN.1; Monopoly: recorded winners, M.END.1/M.END.5),
  3. total score: Catan recorded scores (C.SCORE.1) summed; Monopoly assets (M.END.3) summed,
  4. name (only to make the order stable; players level on 1-3 share the rank number).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from engine.clock import ClockConfig, catan_config, monopoly_config
from engine.errors import IllegalCommand, InvalidCommand
from engine.tournament_seating import History, history, repeat_cost, seat, table_sizes

# M.END.3/M.END.4 are moving from engine/finance.py into engine/ending.py (another change in flight): take
# them from wherever they are, so this module works on either side of that move.
try:
    from engine.ending import ranking, valuation
except ImportError:  # pragma: no cover - before the move
    from engine.finance import ranking, valuation

if TYPE_CHECKING:
    from engine.state import GameState

GameKind = Literal["monopoly", "catan"]
GAMES: tuple[GameKind, ...] = ("monopoly", "catan")
DEFAULT_MINUTES: dict[str, float] = {"monopoly": 90, "catan": 60}  # M.END.2; C.TIME.1 (play, after placement)
CATAN_WIN_RECORD = 10  # C.SCORE.1
CATAN_OTHER_CAP = 9  # C.SCORE.1
CATAN_WIN_POINTS = 10  # C.WIN.1: 10 or more to declare

__all__ = [
    "CatanResult",
    "MonopolyResult",
    "Round",
    "Standing",
    "Table",
    "Tournament",
    "add_players",
    "clock_config",
    "create_event",
    "drop_player",
    "history",
    "monopoly_result",
    "place_points",
    "record_result",
    "repeat_cost",
    "results_csv",
    "seat_round",
    "standings",
    "standings_csv",
    "table_places",
    "table_sizes",
    "tournament_from_json",
    "tournament_to_json",
]


# ---- results ----


@dataclass(frozen=True)
class MonopolyResult:
    ranking: tuple[str, ...]  # M.END.4, first = best
    assets: Mapping[str, int]  # M.END.3
    winner: str | None = None  # M.END.1 / M.END.5
    kind: ClassVar[str] = "monopoly"

    def scores(self) -> dict[str, int]:
        return {p: self.assets[p] for p in self.ranking}

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ranking": list(self.ranking), "assets": dict(self.assets), "winner": self.winner}


@dataclass(frozen=True)
class CatanResult:
    points: Mapping[str, int]  # victory points on the board when the game ended
    winner: str | None = None  # declared winner (C.WIN.1); None: ended by time (C.TIME.2)
    kind: ClassVar[str] = "catan"

    def scores(self) -> dict[str, int]:
        """C.SCORE.1: the winner recorded as 10 even with more; everyone else at most 9; by time, all at most 9."""
        return {
            p: CATAN_WIN_RECORD if p == self.winner else min(v, CATAN_OTHER_CAP) for p, v in self.points.items()
        }

    @property
    def ended_by(self) -> str:
        return "win" if self.winner is not None else "time"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "points": dict(self.points), "winner": self.winner, "scores": self.scores()}


Result = MonopolyResult | CatanResult


def result_from_json(data: Mapping[str, Any]) -> Result:
    kind = data.get("kind")
    if kind == "monopoly":
        return MonopolyResult(ranking=tuple(data["ranking"]), assets=dict(data["assets"]), winner=data.get("winner"))
    if kind == "catan":
        return CatanResult(points=dict(data["points"]), winner=data.get("winner"))
    raise InvalidCommand(f"unknown result kind {kind!r}")


def monopoly_result(state: GameState, asset_lead_wins: bool = False) -> MonopolyResult:
    """A finished (or time-called) engine game as a table result: the engine's ranking (M.END.4) and
    valuation (M.END.3)."""
    order: tuple[str, ...] = tuple(state.ranking) or ranking(state)
    assets = {p.name: 0 if p.bankrupt else valuation(state, p.name) for p in state.players}
    winner: str | None = getattr(state, "winner", None)
    survivors = [p.name for p in state.players if not p.bankrupt]
    if winner is None and len(survivors) == 1:
        winner = survivors[0]  # M.END.1
    if winner is None and asset_lead_wins:
        winner = order[0]  # M.END.5
    return MonopolyResult(ranking=order, assets=assets, winner=winner)


# ---- the event ----


@dataclass(frozen=True)
class Table:
    number: int  # 1-based within the round
    players: tuple[str, ...]  # seat order: the first places first (C.TIME.1) and starts


@dataclass(frozen=True)
class Round:
    number: int  # 1-based
    tables: tuple[Table, ...]
    results: Mapping[int, Result] = field(default_factory=dict)  # by table number

    def table(self, number: int) -> Table:
        for t in self.tables:
            if t.number == number:
                return t
        raise InvalidCommand(f"round {self.number} has no table {number}")

    @property
    def complete(self) -> bool:
        return all(t.number in self.results for t in self.tables)


@dataclass(frozen=True)
class Tournament:
    name: str
    game: GameKind
    minutes: float  # Monopoly: the time game's limit (M.END.2); Catan: play time after placement (C.TIME.1)
    players: tuple[str, ...]  # entered and still playing
    seed: int = 0
    asset_lead_wins: bool = False  # M.END.5: whether a Monopoly asset lead counts as a win
    rounds: tuple[Round, ...] = ()

    def round(self, number: int) -> Round:
        if not 1 <= number <= len(self.rounds):
            raise InvalidCommand(f"{self.name} has no round {number}")
        return self.rounds[number - 1]

    def met(self) -> History:
        """How often each pair has shared a table so far."""
        return history(t.players for r in self.rounds for t in r.tables)


def tournament_to_json(event: Tournament) -> dict[str, Any]:
    """A plain-JSON form for storage and the API; `tournament_from_json` reads it back (re-checking results)."""
    return {
        "name": event.name, "game": event.game, "minutes": event.minutes, "players": list(event.players),
        "seed": event.seed, "asset_lead_wins": event.asset_lead_wins,
        "rounds": [
            {"number": r.number, "tables": [{"number": t.number, "players": list(t.players)} for t in r.tables],
             "results": {str(k): v.to_json() for k, v in sorted(r.results.items())}}
            for r in event.rounds
        ],
    }


def tournament_from_json(data: Mapping[str, Any]) -> Tournament:
    event = create_event(data["name"], data["game"], data.get("players", ()), minutes=data.get("minutes"),
                         seed=data.get("seed", 0), asset_lead_wins=data.get("asset_lead_wins", False))
    for i, r in enumerate(data.get("rounds", ()), start=1):
        if r.get("number", i) != i:
            raise InvalidCommand(f"round {r.get('number')} out of order")
        tables = tuple(Table(number=t["number"], players=tuple(t["players"])) for t in r["tables"])
        event = replace(event, rounds=(*event.rounds, Round(number=i, tables=tables)))
        for k, v in r.get("results", {}).items():
            event = record_result(event, i, int(k), result_from_json(v))
    return event


def create_event(
    name: str,
    game: str,
    players: Iterable[str] = (),
    minutes: float | None = None,
    seed: int = 0,
    asset_lead_wins: bool = False,
) -> Tournament:
    if game not in GAMES:
        raise InvalidCommand(f"unknown game {game!r}; known: {', '.join(GAMES)}")
    limit = DEFAULT_MINUTES[game] if minutes is None else minutes
    if limit <= 0:
        raise InvalidCommand("the time limit must be positive")
    kind: GameKind = "catan" if game == "catan" else "monopoly"
    event = Tournament(name=name, game=kind, minutes=limit, players=(), seed=seed, asset_lead_wins=asset_lead_wins)
    return add_players(event, players)


def add_players(event: Tournament, names: Iterable[str]) -> Tournament:
    new = tuple(n.strip() for n in names)
    if any(not n for n in new):
        raise InvalidCommand("a player needs a name")
    seen = set(event.players)
    for n in new:
        if n in seen:
            raise InvalidCommand(f"{n} is already entered")
        seen.add(n)
    return replace(event, players=(*event.players, *new))


def drop_player(event: Tournament, name: str) -> Tournament:
    """A player leaves: not seated in later rounds; their results so far stay."""
    if name not in event.players:
        raise InvalidCommand(f"{name} is not entered")
    return replace(event, players=tuple(p for p in event.players if p != name))


def seat_round(event: Tournament) -> Tournament:
    """Seat the next round: C.TABLE.1 sizes, fewest repeat opponents (see `engine.tournament_seating`)."""
    number = len(event.rounds) + 1
    tables = seat(event.players, event.met(), event.seed, number)
    rnd = Round(number=number, tables=tuple(Table(number=i, players=t) for i, t in enumerate(tables, start=1)))
    return replace(event, rounds=(*event.rounds, rnd))


def clock_config(event: Tournament, table: Table) -> ClockConfig:
    """The clock a table of this event runs: the event's limit (M.END.2) or the Catan qualifier (C.TIME.1)."""
    if event.game == "catan":
        return catan_config(table.players, play_minutes=event.minutes)
    return monopoly_config(event.minutes)


def _check(event: Tournament, table: Table, result: Result) -> None:
    seated = sorted(table.players)
    if result.kind != event.game:
        raise InvalidCommand(f"a {result.kind} result for a {event.game} event")
    if isinstance(result, MonopolyResult):
        if sorted(result.ranking) != seated or sorted(result.assets) != seated:
            raise InvalidCommand(f"the result must rank and value exactly {', '.join(table.players)}")
        if any(v < 0 for v in result.assets.values()):
            raise InvalidCommand("assets cannot be negative")
        if result.winner is not None and result.winner != result.ranking[0]:
            raise IllegalCommand("M.END.4", f"the winner {result.winner} must be ranked first")
        return
    if sorted(result.points) != seated:
        raise InvalidCommand(f"the result must score exactly {', '.join(table.players)}")
    if any(v < 0 for v in result.points.values()):
        raise InvalidCommand("victory points cannot be negative")
    if result.winner is not None:
        if result.winner not in result.points:
            raise InvalidCommand(f"{result.winner} did not play at this table")
        if result.points[result.winner] < CATAN_WIN_POINTS:
            raise IllegalCommand("C.WIN.1", f"{result.winner} has fewer than 10 points and cannot have won")


def record_result(event: Tournament, round_no: int, table_no: int, result: Result) -> Tournament:
    """Record (or correct: a mistyped score may be fixed even after the event) one table's result."""
    rnd = event.round(round_no)
    _check(event, rnd.table(table_no), result)
    new = replace(rnd, results={**rnd.results, table_no: result})
    return replace(event, rounds=tuple(new if r.number == round_no else r for r in event.rounds))


# ---- places, points, standings ----


def table_places(result: Result) -> dict[str, int]:
    """1-based place of each player at the table (see the module docstring)."""
    if isinstance(result, MonopolyResult):
        return {p: i for i, p in enumerate(result.ranking, start=1)}
    scores = result.scores()
    key = {p: (p == result.winner, s) for p, s in scores.items()}
    return {p: 1 + sum(1 for q in scores if key[q] > key[p]) for p in scores}


def place_points(place: int, table_size: int) -> int:
    """First: 3; otherwise one per player placed behind (4 players: 3/2/1/0; 3 players: 3/1/0)."""
    return 3 if place == 1 else table_size - place


@dataclass(frozen=True)
class Standing:
    rank: int
    player: str
    points: int
    wins: int
    score: int  # Catan: recorded scores (C.SCORE.1) summed; Monopoly: assets (M.END.3) summed
    games: int
    places: tuple[int, ...]  # place in each game played, by round

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "places": list(self.places)}


@dataclass(frozen=True)
class _Line:
    round: int
    table: int
    seat: int
    player: str
    place: int
    points: int
    win: bool
    score: int
    raw: int | None


def _lines(event: Tournament) -> list[_Line]:
    out: list[_Line] = []
    for r in event.rounds:
        for t in r.tables:
            result = r.results.get(t.number)
            if result is None:
                continue
            places, scores = table_places(result), result.scores()
            raw = result.points if isinstance(result, CatanResult) else None
            for seat_no, p in enumerate(t.players, start=1):
                out.append(_Line(
                    round=r.number, table=t.number, seat=seat_no, player=p, place=places[p],
                    points=place_points(places[p], len(t.players)), win=result.winner == p, score=scores[p],
                    raw=raw[p] if raw is not None else None,
                ))
    return out


def standings(event: Tournament) -> tuple[Standing, ...]:
    """Everyone who has played or is entered, best first (keys in the module docstring)."""
    names = list(dict.fromkeys([*event.players, *(p for r in event.rounds for t in r.tables for p in t.players)]))
    acc: dict[str, list[_Line]] = {n: [] for n in names}
    for line in _lines(event):
        acc[line.player].append(line)

    def key(n: str) -> tuple[int, int, int]:
        ls = acc[n]
        return (sum(x.points for x in ls), sum(x.win for x in ls), sum(x.score for x in ls))

    order = sorted(names, key=lambda n: (tuple(-k for k in key(n)), n))
    out: list[Standing] = []
    for i, n in enumerate(order):
        rank = out[-1].rank if out and key(order[i - 1]) == key(n) else i + 1
        pts, wins, score = key(n)
        out.append(Standing(rank=rank, player=n, points=pts, wins=wins, score=score, games=len(acc[n]),
                            places=tuple(x.place for x in acc[n])))
    return tuple(out)


# ---- CSV ----

RESULT_COLUMNS = ("event", "game", "round", "table", "seat", "player", "place", "points", "win", "score", "raw",
                  "ended_by")
STANDING_COLUMNS = ("rank", "player", "points", "wins", "score", "games", "places")


def results_csv(event: Tournament) -> str:
    """One row per player per recorded table. `score`: Catan recorded score (C.SCORE.1) / Monopoly assets
    (M.END.3); `raw`: Catan points on the board (empty for Monopoly); `ended_by`: Catan `win`/`time`,
    Monopoly `win` when a winner was recorded, else `time`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(RESULT_COLUMNS)
    for line in _lines(event):
        result = event.round(line.round).results[line.table]
        ended_by = "win" if result.winner is not None else "time"
        w.writerow([event.name, event.game, line.round, line.table, line.seat, line.player, line.place,
                    line.points, int(line.win), line.score, "" if line.raw is None else line.raw, ended_by])
    return buf.getvalue()


def standings_csv(event: Tournament) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(STANDING_COLUMNS)
    for s in standings(event):
        w.writerow([s.rank, s.player, s.points, s.wins, s.score, s.games, " ".join(map(str, s.places))])
    return buf.getvalue()
