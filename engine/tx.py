"""One command's transaction: the events emitted so far and the state they lead to.

Rule handlers read `tx.state` (always current) and call `tx.emit`. If a handler raises, the caller
discards the whole transaction, so a refused command leaves the state untouched.
"""

from __future__ import annotations

from dataclasses import replace

from engine import events as ev
from engine.board import BOARD_SIZE, DEEDS, GROUPS
from engine.errors import IllegalCommand
from engine.evolve import evolve
from engine.state import Debt, GameState, Pending


class Tx:
    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[ev.Event] = []

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)

    # ---- pending queue ----
    def push_front(self, *items: Pending) -> None:
        self.emit(ev.PendingSet(pending=(*items, *self.state.pending)))

    def push_back(self, *items: Pending) -> None:
        self.emit(ev.PendingSet(pending=(*self.state.pending, *items)))

    def pop(self) -> None:
        self.emit(ev.PendingSet(pending=self.state.pending[1:]))

    def replace_head(self, item: Pending) -> None:
        self.emit(ev.PendingSet(pending=(item, *self.state.pending[1:])))

    # ---- money ----
    def transfer(self, payer: str | None, payee: str | None, amount: int, reason: str, rule: str = "") -> None:
        if amount > 0:
            self.emit(ev.CashMoved(payer=payer, payee=payee, amount=amount, reason=reason, rule=rule))

    def charge(
        self, debtor: str, payees: tuple[tuple[str | None, int], ...], reason: str, rule: str
    ) -> bool:
        """A debt (M.TRADE.2): paid at once when cash allows, else queued first for the debtor to raise
        cash. Returns True when paid now."""
        payees = tuple((p, a) for p, a in payees if a > 0)
        total = sum(a for _, a in payees)
        if total == 0:
            return True
        if self.state.player(debtor).cash >= total:
            for payee, amount in payees:
                self.transfer(debtor, payee, amount, reason, rule)
            return True
        self.push_front(Debt(debtor=debtor, payees=payees, reason=reason, rule=rule))
        return False

    # ---- movement ----
    def move_to(self, player: str, target: int, how: str, collect_go: bool = True) -> None:
        start = self.state.player(player).position
        target %= BOARD_SIZE
        # Moving forward onto or past GO pays salary (M.GO.1); a move backwards never does.
        passed = collect_go and how != "back" and target <= start
        self.emit(ev.Moved(player=player, start=start, to=target, passed_go=passed, how=how))
        if passed:
            self.transfer(None, player, self.state.options.go_salary, "salary", "M.GO.1")

    def send_to_jail(self, player: str, reason: str) -> None:
        """M.JAIL.1: straight to jail, no salary; a turn in progress ends (M.DICE.5)."""
        self.emit(ev.SentToJail(player=player, reason=reason))
        if self.state.turn.player == player:
            self.emit(ev.TurnSet(turn=replace(self.state.turn, again=False)))

    # ---- turn flow ----
    def settle(self) -> None:
        """With nothing pending, the turn goes on: roll again after doubles, else the turn may end."""
        st = self.state
        if st.pending or st.turn.phase in ("game_over", "start_order"):
            return
        player = st.player(st.turn.player)
        again = st.turn.again and not player.in_jail and not player.bankrupt
        phase = "pre_roll" if again else ("post_roll" if st.turn.rolled else "pre_roll")
        if phase != st.turn.phase or again != st.turn.again:
            self.emit(ev.TurnSet(turn=replace(st.turn, phase=phase, again=again)))


def require_player(state: GameState, name: str | None, expected: str, rule: str, what: str) -> str:
    """Commands may name their player; when they do it must be the one the rule expects."""
    if name is not None and name != expected:
        if not state.has_player(name):
            raise IllegalCommand(rule, f"unknown player {name!r}")
        raise IllegalCommand(rule, f"{what} is for {expected}, not {name}")
    return expected


def group_of(deed: str) -> tuple[str, ...]:
    return GROUPS[DEEDS[deed].group]


def owns_group(state: GameState, owner: str, deed: str) -> bool:
    return all(state.deeds[d].owner == owner for d in group_of(deed))
