"""Seating one round of a tournament: table sizes by C.TABLE.1, new opponents first, reproducible from a seed.

- Sizes (C.TABLE.1: four per table, three when numbers require): as many tables of four as possible with
  every table at three or four — 9 players -> 3+3+3, 10 -> 4+3+3, 11 -> 4+4+3, 12 -> 4+4+4. Five players
  (and fewer than three) cannot be seated at all and are refused.
- Opponents: the cost of a seating is, summed over every pair of players at the same table, how many times
  that pair has already met. The first round (no history) is a plain seeded shuffle. Later rounds run a
  greedy placement (each player to the table where they have met the fewest people, ties by the seed)
  followed by pairwise swaps between tables while a swap lowers the cost, from several seeded starts,
  keeping the cheapest. Not guaranteed optimal in general (the problem is NP-hard), but it finds a
  repeat-free seating whenever the tests know one exists, and it matches exhaustive search on small
  fields.
- Determinism: one private `random.Random` per round, seeded from (event seed, round number); the global
  generator is never touched. Players are sorted first, so their input order does not matter, and no set
  or dict is iterated in an order that depends on string hashing.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from engine.errors import IllegalCommand, InvalidCommand

Pair = tuple[str, str]
History = Counter[Pair]

# Seeded starts per later round, to leave plateaus the swaps cannot cross. Small fields get more: each start
# is cheap there, and their histories are dense (everyone has met most others), so plateaus are many; 8
# starts missed the exhaustive optimum in 1 of 300 random 6-10 player cases (16 starts: none of 300); this
# budget (25-42 starts there) missed it in none of 1000.
RESTARTS = 8
RESTART_BUDGET = 256  # starts x players
MAX_PASSES = 200  # safety net on the swap loop; each pass strictly lowers an integer cost, so it ends anyway


def table_sizes(n: int) -> tuple[int, ...]:
    """C.TABLE.1: four per table; three only when the numbers require it (fewest tables of three)."""
    tables = -(-n // 4)
    threes = 4 * tables - n
    if n < 3 or threes > tables:
        raise IllegalCommand("C.TABLE.1", f"{n} players cannot be seated at tables of three and four")
    return (4,) * (tables - threes) + (3,) * threes


def pair(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


def history(tables: Iterable[Sequence[str]]) -> History:
    """How many times each pair of players has sat at the same table."""
    met: History = Counter()
    for table in tables:
        for a, b in combinations(table, 2):
            met[pair(a, b)] += 1
    return met


def repeat_cost(tables: Iterable[Sequence[str]], met: History) -> int:
    """Repeat meetings a seating would add: the number the seating minimises ("new opponents first")."""
    return sum(met[pair(a, b)] for table in tables for a, b in combinations(table, 2))


def _against(x: str, others: Iterable[str], met: History) -> int:
    return sum(met[pair(x, y)] for y in others if y != x)


def _greedy(players: list[str], sizes: tuple[int, ...], met: History, rng: random.Random) -> list[list[str]]:
    order = players[:]
    rng.shuffle(order)
    tables: list[list[str]] = [[] for _ in sizes]
    for p in order:
        open_tables = [i for i, size in enumerate(sizes) if len(tables[i]) < size]
        costs = [_against(p, tables[i], met) for i in open_tables]
        best = min(costs)
        tables[rng.choice([i for i, c in zip(open_tables, costs, strict=True) if c == best])].append(p)
    return tables


def _improve(tables: list[list[str]], met: History) -> None:
    """First-improvement pairwise swaps between tables, only from players who meet someone again."""
    for _ in range(MAX_PASSES):
        if not _one_swap(tables, met):
            return


def _one_swap(tables: list[list[str]], met: History) -> bool:
    for i, ti in enumerate(tables):
        for a, p in enumerate(ti):
            p_here = _against(p, ti, met)
            if p_here == 0:
                continue  # p meets no one again: moving p cannot help p's table
            for j, tj in enumerate(tables):
                if j == i:
                    continue
                for b, q in enumerate(tj):
                    rest_i = [x for x in ti if x != p]
                    rest_j = [y for y in tj if y != q]
                    delta = (_against(q, rest_i, met) - p_here) + (_against(p, rest_j, met) - _against(q, rest_j, met))
                    if delta < 0:
                        ti[a], tj[b] = q, p
                        return True
    return False


def seat(players: Iterable[str], met: History, seed: int | str, round_no: int) -> tuple[tuple[str, ...], ...]:
    """Tables for one round, largest first, each in seat order (the seat order itself is seeded: it
    decides who places first, C.TIME.1, and who starts)."""
    field = sorted(players)
    if len(set(field)) != len(field):
        raise InvalidCommand("a player is listed twice")
    sizes = table_sizes(len(field))
    rng = random.Random(f"tableside-seating/{seed}/{round_no}")
    if not any(met[pair(a, b)] for a, b in combinations(field, 2)):
        order = field[:]
        rng.shuffle(order)  # no history among these players: any seating is repeat-free
        best = _chunk(order, sizes)
    else:
        best, best_cost = [], -1
        for _ in range(max(RESTARTS, RESTART_BUDGET // len(field))):
            tables = _greedy(field, sizes, met, rng)
            _improve(tables, met)
            cost = repeat_cost(tables, met)
            if best_cost < 0 or cost < best_cost:
                best, best_cost = tables, cost
            if best_cost == 0:
                break
    for t in best:
        rng.shuffle(t)
    return tuple(tuple(t) for t in sorted(best, key=len, reverse=True))


def _chunk(order: list[str], sizes: tuple[int, ...]) -> list[list[str]]:
    out, k = [], 0
    for size in sizes:
        out.append(order[k : k + size])
        k += size
    return out
