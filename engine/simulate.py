"""Monte Carlo play through the real engine, for landing frequencies (`tableside simulate`).

Dice come from one seeded `random.Random` per run and enter the engine as `roll` commands, exactly as a
camera's readings would. The bots start rich (a table option) and buy what they land on, so no auction, debt or
bankruptcy disturbs the walk and the jail strategy is never forced by a lack of cash; what is measured is
where each throw leaves a player once its square (card, Go To Jail) is resolved, counting a throw that
leaves or keeps a player in jail as "in jail". That is the convention of the published exact Markov-chain
tables, so the figures can be compared directly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from engine import commands as cmd
from engine.board import BOARD_SIZE, SQUARES
from engine.game import run, start
from engine.state import Auction, BuyDecision, CardDraw, Debt, GameState, JailFine, TaxChoice, UtilityRoll

RICH = 10**9  # starting cash for the bots: money must never steer the walk
IN_JAIL = BOARD_SIZE  # the extra "square" counted for a player who is in jail after a throw


@dataclass
class Frequencies:
    counts: list[int] = field(default_factory=lambda: [0] * (BOARD_SIZE + 1))
    rolls: int = 0
    games: int = 0

    def share(self, square: int) -> float:
        return self.counts[square] / self.rolls if self.rolls else 0.0

    def table(self) -> list[tuple[str, float]]:
        names = [sq.name for sq in SQUARES] + ["In Jail"]
        if names[10].startswith("Jail"):
            names[10] = "Just Visiting"
        return [(names[i], self.share(i)) for i in range(BOARD_SIZE + 1)]


def _bot_command(state: GameState, jail_strategy: str, rng: random.Random) -> cmd.Command:
    head = state.head
    match head:
        case CardDraw():
            return cmd.DrawCard()
        case BuyDecision():
            return cmd.Buy()
        case Auction():
            name = next(n for n in (p.name for p in state.active_players) if n not in head.out)
            return cmd.PassBid(player=name)
        case TaxChoice():
            return cmd.ChooseTax(option="flat")
        case JailFine():
            if state.player(head.player).jail_cards:
                return cmd.UseJailCard()
            if state.player(head.player).cash >= state.options.jail_fine:
                return cmd.PayJailFine()
            return cmd.DeclareBankruptcy()
        case Debt():
            if state.player(head.debtor).cash >= head.amount:
                return cmd.PayDebt()
            return cmd.DeclareBankruptcy()
        case UtilityRoll():
            return cmd.Roll(dice=(rng.randint(1, 6), rng.randint(1, 6)))
    turn = state.turn
    me = state.current
    if turn.phase == "post_roll":
        return cmd.EndTurn()
    if me.in_jail and not turn.rolled and jail_strategy == "pay":
        if me.jail_cards:
            return cmd.UseJailCard()
        if me.cash >= state.options.jail_fine:
            return cmd.PayJailFine()
    return cmd.Roll(dice=(rng.randint(1, 6), rng.randint(1, 6)))


def play(
    games: int,
    seed: int,
    jail_strategy: str = "pay",
    players: int = 2,
    turns_per_game: int = 120,
    ruleset: str = "jma-2006",
) -> Frequencies:
    """Play `games` games of `turns_per_game` turns and count where every throw leaves its thrower."""
    if jail_strategy not in ("pay", "stay"):
        raise ValueError(f"jail strategy must be 'pay' or 'stay', not {jail_strategy!r}")
    rng = random.Random(seed)
    freq = Frequencies()
    names = [f"P{i + 1}" for i in range(players)]
    for _ in range(games):
        state = start(names, ruleset=ruleset, options={"starting_cash": RICH}, seed=rng.randrange(2**32))
        freq.games += 1
        for thrower in _throws(state, jail_strategy, rng, turns_per_game):
            freq.rolls += 1
            freq.counts[thrower] += 1
    return freq


def _throws(state: GameState, jail_strategy: str, rng: random.Random, max_turns: int) -> Iterator[int]:
    watching: str | None = None
    while state.turn.phase != "game_over" and state.turn.number <= max_turns:
        c = _bot_command(state, jail_strategy, rng)
        if isinstance(c, cmd.Roll) and state.head is None:
            # A post_roll roll would end the turn first; the thrower is whoever's turn it is after that.
            watching = state.next_player_after(state.turn.player) if state.turn.phase == "post_roll" else (
                state.turn.player
            )
        state = run(state, c)[1]
        if watching is not None and state.head is None:
            p = state.player(watching)
            yield IN_JAIL if p.in_jail else p.position
            watching = None
