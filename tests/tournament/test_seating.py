"""Seating (C.TABLE.1 sizes, new opponents first), as properties over random fields and histories."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import tournament as tn
from engine.errors import IllegalCommand
from engine.tournament_seating import History, history, repeat_cost, seat, table_sizes


def names(n: int) -> list[str]:
    return [f"P{i:02d}" for i in range(n)]


def naive(players: list[str], rng: random.Random) -> list[list[str]]:
    """The baseline: a random shuffle cut into the same table sizes, blind to history."""
    order = sorted(players)
    rng.shuffle(order)
    out, k = [], 0
    for size in table_sizes(len(order)):
        out.append(order[k : k + size])
        k += size
    return out


def partitions(players: list[str], sizes: list[int]) -> Iterator[list[tuple[str, ...]]]:
    """Every seating into these table sizes (tables unordered): the exhaustive optimum for small fields."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes)):
        left = sizes[:]
        left.remove(size)
        for mates in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in mates]
            for tail in partitions(remaining, left):
                yield [(first, *mates), *tail]


# ---- C.TABLE.1: sizes ----


@pytest.mark.parametrize(
    ("n", "sizes"),
    [(3, (3,)), (4, (4,)), (6, (3, 3)), (7, (4, 3)), (8, (4, 4)), (9, (3, 3, 3)), (10, (4, 3, 3)),
     (11, (4, 4, 3)), (12, (4, 4, 4)), (13, (4, 3, 3, 3)), (240, (4,) * 60)],
)
def test_table_sizes_prefer_four(n: int, sizes: tuple[int, ...]) -> None:
    """C.TABLE.1: four per table; three only when the numbers require."""
    assert table_sizes(n) == sizes


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_unseatable_numbers_are_refused(n: int) -> None:
    with pytest.raises(IllegalCommand) as err:
        table_sizes(n)
    assert err.value.rule == "C.TABLE.1"


@given(st.integers(min_value=6, max_value=400))
def test_table_sizes_property(n: int) -> None:
    """C.TABLE.1 for every field from 6 up: sizes 3-4, sum n, fewest tables, so fewest tables of three."""
    sizes = table_sizes(n)
    assert sum(sizes) == n and set(sizes) <= {3, 4}
    assert len(sizes) == -(-n // 4)
    assert sizes.count(3) < 4  # four tables of three would be three tables of four


# ---- every round: each player seated once ----


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=6, max_value=70), rounds=st.integers(min_value=1, max_value=4),
       seed=st.integers(min_value=0, max_value=10**6))
def test_every_player_seated_exactly_once_at_tables_of_three_or_four(n: int, rounds: int, seed: int) -> None:
    event = tn.create_event("Open", "catan", names(n), seed=seed)
    for _ in range(rounds):
        event = tn.seat_round(event)
    for r in event.rounds:
        seated = [p for t in r.tables for p in t.players]
        assert sorted(seated) == sorted(event.players)  # everyone once, nobody twice
        sizes = tuple(len(t.players) for t in r.tables)
        assert sizes == table_sizes(n)  # C.TABLE.1: 4s first, 3s only as needed
        assert [t.number for t in r.tables] == list(range(1, len(r.tables) + 1))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(min_value=6, max_value=40), seed=st.integers(min_value=0, max_value=10**6))
def test_seating_is_deterministic_from_the_seed_and_ignores_entry_order(n: int, seed: int) -> None:
    players = names(n)
    a = tn.create_event("A", "monopoly", players, seed=seed)
    b = tn.create_event("A", "monopoly", list(reversed(players)), seed=seed)
    for _ in range(3):
        a, b = tn.seat_round(a), tn.seat_round(b)
    assert [r.tables for r in a.rounds] == [r.tables for r in b.rounds]


def test_seating_does_not_touch_the_global_random() -> None:
    random.seed(123)
    expected = random.random()
    random.seed(123)
    event = tn.create_event("A", "catan", names(23), seed=9)
    for _ in range(3):
        event = tn.seat_round(event)
    assert random.random() == expected


def test_different_seeds_seat_differently() -> None:
    a = tn.seat_round(tn.create_event("A", "catan", names(20), seed=1))
    b = tn.seat_round(tn.create_event("A", "catan", names(20), seed=2))
    assert a.rounds[0].tables != b.rounds[0].tables


# ---- new opponents first ----


@st.composite
def field_and_history(draw: st.DrawFn, max_n: int) -> tuple[list[str], History]:
    n = draw(st.integers(min_value=6, max_value=max_n))
    players = names(n)
    rng = random.Random(draw(st.integers(min_value=0, max_value=10**6)))
    tables: list[list[str]] = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        tables.extend(naive(players, rng))
    return players, history(tables)


@settings(max_examples=60, deadline=None)
@given(field_and_history(max_n=10), st.integers(min_value=0, max_value=1000))
def test_repeat_opponents_match_the_exhaustive_optimum_on_small_fields(
    fh: tuple[list[str], History], seed: int
) -> None:
    players, met = fh
    tables = seat(players, met, seed, 2)
    best = min(repeat_cost(p, met) for p in partitions(players, list(table_sizes(len(players)))))
    assert repeat_cost(tables, met) == best


@settings(max_examples=40, deadline=None)
@given(field_and_history(max_n=60), st.integers(min_value=0, max_value=1000))
def test_repeat_opponents_never_worse_than_a_naive_shuffle(fh: tuple[list[str], History], seed: int) -> None:
    players, met = fh
    ours = repeat_cost(seat(players, met, seed, 2), met)
    rng = random.Random(seed)
    baseline = [repeat_cost(naive(players, rng), met) for _ in range(5)]
    assert ours <= min(baseline)


@pytest.mark.parametrize(("n", "rounds"), [(16, 3), (9, 4), (40, 6), (120, 6)])
def test_no_repeat_opponents_while_fresh_ones_are_easy_to_find(n: int, rounds: int) -> None:
    """16 players, 3 rounds; 9 players, 4 rounds (the affine plane of order 3: everyone meets everyone
    once); larger halls over a typical six-round day: no pair meets twice."""
    event = tn.create_event("Open", "catan", names(n), seed=7)
    for _ in range(rounds):
        event = tn.seat_round(event)
    assert max(event.met().values()) == 1


def test_repeats_over_a_long_event_stay_far_below_naive() -> None:
    n, rounds = 16, 6
    event = tn.create_event("Open", "monopoly", names(n), seed=3)
    rng = random.Random(3)
    naive_met: Counter[tuple[str, str]] = Counter()
    naive_total = 0
    for _ in range(rounds):
        event = tn.seat_round(event)
        tables = naive(names(n), rng)
        naive_total += repeat_cost(tables, naive_met)
        naive_met += history(tables)
    ours = sum(v - 1 for v in event.met().values() if v > 1)
    assert ours < naive_total / 2


def test_dropped_and_late_players() -> None:
    event = tn.seat_round(tn.create_event("Open", "catan", names(12), seed=1))
    event = tn.drop_player(event, "P00")
    event = tn.add_players(event, ["Late"])
    event = tn.seat_round(event)
    seated = {p for t in event.rounds[1].tables for p in t.players}
    assert "P00" not in seated and "Late" in seated and len(seated) == 12
