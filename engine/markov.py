"""The exact Markov chain of where a throw leaves a player, built from the board and the card decks.

Reference for `tableside simulate` and its test. The chain's state before a throw is (square, doubles so
far) or (in jail, failed tries so far); cards are drawn uniformly (over a long game a cycling deck shows
every card equally often). Observation: the square after the throw and anything it triggers (card,
Go To Jail, third doubles), with a player left in jail counted as "In Jail". Published figures with the
same convention (Truman Collins, "Monopoly probabilities", exact Markov analysis; also Ash & Bishop 1972):
In Jail 3.95% when paying at once / 9.39% when staying, Illinois Avenue 3.19% / 3.00%, GO 3.10% / 2.92%.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.board import BOARD_SIZE, CARD_EDITIONS, GO_TO_JAIL_INDEX, JAIL_INDEX, SQUARES, Card

JAIL = BOARD_SIZE  # observation index for "In Jail"
_Dest = int  # a square, or JAIL

REFERENCE = {  # percent, from the sources cited above
    "pay": {JAIL: 3.95, 24: 3.19, 0: 3.10},
    "stay": {JAIL: 9.39, 24: 3.00, 0: 2.92},
}


def _card_dest(c: Card, pos: int, edition: str) -> Iterable[tuple[float, _Dest]] | None:
    match c.op:
        case "move_to":
            assert c.square is not None
            return [(1.0, c.square)]
        case "move_to_next":
            k = next(k for k in range(1, BOARD_SIZE + 1) if SQUARES[(pos + k) % BOARD_SIZE].type == c.kind)
            return [(1.0, (pos + k) % BOARD_SIZE)]
        case "move_relative":
            return _resolve((pos + c.spaces) % BOARD_SIZE, edition)
        case "go_to_jail":
            return [(1.0, JAIL)]
    return None


def _resolve(square: int, edition: str) -> list[tuple[float, _Dest]]:
    """Where landing on `square` leaves the player, with probabilities."""
    kind = SQUARES[square].type
    if square == GO_TO_JAIL_INDEX:
        return [(1.0, JAIL)]
    if kind not in ("chance", "community_chest"):
        return [(1.0, square)]
    deck = CARD_EDITIONS[edition][kind]
    out: list[tuple[float, _Dest]] = []
    for c in deck:
        dest = _card_dest(c, square, edition)
        for p, d in dest if dest is not None else [(1.0, square)]:
            out.append((p / len(deck), d))
    return out


def landing_frequencies(jail_strategy: str, edition: str = "pre2008", iterations: int = 3000) -> list[float]:
    """Stationary share of throws ending on each square (index 40 = In Jail), by power iteration."""
    import numpy as np

    states = [(s, d) for s in range(BOARD_SIZE) for d in range(3)] + [(JAIL, k) for k in range(3)]
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    trans = np.zeros((n, n))
    obs = np.zeros((n, BOARD_SIZE + 1))

    def add(i: int, p: float, dest: _Dest, doubles: int) -> None:
        target = (JAIL, 0) if dest == JAIL else (dest, doubles)
        trans[i, index[target]] += p
        obs[i, dest] += p

    for (where, k), i in index.items():
        for a in range(1, 7):
            for b in range(1, 7):
                p, dbl = 1 / 36, a == b
                if where == JAIL and jail_strategy == "stay":
                    if dbl or k == 2:  # out by doubles, or pay after the third failure: move, no re-roll
                        for q, dest in _resolve((JAIL_INDEX + a + b) % BOARD_SIZE, edition):
                            add(i, p * q, dest, 0)
                    else:
                        trans[i, index[(JAIL, k + 1)]] += p
                        obs[i, JAIL] += p
                    continue
                pos, count = (JAIL_INDEX, 0) if where == JAIL else (where, k)
                if dbl and count == 2:
                    add(i, p, JAIL, 0)  # third doubles
                    continue
                for q, dest in _resolve((pos + a + b) % BOARD_SIZE, edition):
                    add(i, p * q, dest, count + 1 if dbl else 0)
    pi = np.full(n, 1.0 / n)
    for _ in range(iterations):
        pi = pi @ trans
    result = pi @ obs
    return [float(x) for x in result / result.sum()]
