"""Houses and hotels: building (M.BUILD.1-5) and shortage auctions (M.BUILD.6); selling is engine/selling.py.

A build that no follower could push past the bank's stock completes at once (M.BUILD.5). Otherwise it is
a declaration: a `BuildRound` waits until every other player has passed, then builds hotels before houses;
when demand exceeds the stock, units are auctioned one at a time (`BuildingAuction`) and declarations are
taken again after each.
"""

from __future__ import annotations

from dataclasses import replace

from engine import commands as cmd
from engine import events as ev
from engine.auction import tie_priority
from engine.board import DEEDS, GROUPS
from engine.errors import IllegalCommand, InvalidCommand
from engine.finance import between_turns, liquidation_value
from engine.state import BuildingAuction, BuildRound, GameState
from engine.tx import Tx

HOTEL = 5  # a hotel stands for the 4 houses it replaced plus itself: one more level (M.BUILD.3)
Decl = tuple[str, str, int, bool]


def level(state: GameState, deed: str) -> int:
    ds = state.deeds[deed]
    return HOTEL if ds.hotel else ds.houses


def require_street(deed: str) -> None:
    if deed not in DEEDS:
        raise InvalidCommand(f"unknown deed {deed!r}")
    if DEEDS[deed].kind != "street":
        raise IllegalCommand("M.BUILD.1", f"{deed} is not a street; nothing can be built on it")


def uneven_message(group: str, levels: dict[str, int]) -> str:
    def show(d: str) -> str:
        return f"{d} {'hotel' if levels[d] == HOTEL else levels[d]}"

    hi = max(levels, key=lambda d: levels[d])
    lo = min(levels, key=lambda d: levels[d])
    return f"uneven build on {group} ({show(hi)}, {show(lo)})"


def check_group(state: GameState, player: str, deed: str) -> None:
    """M.BUILD.1: the whole colour group, owned by the builder, none of it mortgaged (004)."""
    require_street(deed)
    owner = state.deeds[deed].owner
    if owner != player:
        raise IllegalCommand("M.BUILD.1", f"{player} does not own {deed}")
    group = DEEDS[deed].group
    missing = [d for d in GROUPS[group] if state.deeds[d].owner != player]
    if missing:
        raise IllegalCommand("M.BUILD.1", f"{player} does not own the whole {group} group ({', '.join(missing)})")
    mortgaged = [d for d in GROUPS[group] if state.deeds[d].mortgaged]
    if mortgaged:
        raise IllegalCommand("M.BUILD.1", f"lift the mortgage on {', '.join(mortgaged)} before building on {group}")


def _planned(state: GameState, decls: tuple[Decl, ...], player: str, group: str) -> dict[str, int]:
    levels = {d: level(state, d) for d in GROUPS[group]}
    for who, d, count, hotel in decls:
        if who == player and d in levels:
            levels[d] = HOTEL if hotel else levels[d] + count
    return levels


def check_build(state: GameState, player: str, deed: str, count: int, hotel: bool,
                decls: tuple[Decl, ...] = ()) -> int:
    """Refuse a build (or declaration) the rules forbid; the cost in dollars otherwise."""
    if count < 1:
        raise InvalidCommand(f"build: count must be at least 1, got {count}")
    check_group(state, player, deed)
    group = DEEDS[deed].group
    levels = _planned(state, decls, player, group)
    if hotel:
        if levels[deed] == HOTEL:
            raise IllegalCommand("M.BUILD.3", f"{deed} already has a hotel; one hotel per deed")
        short = [d for d in GROUPS[group] if level(state, d) < 4]
        if short:
            raise IllegalCommand("M.BUILD.3", f"a hotel needs 4 houses on every deed of {group} ({', '.join(short)})")
        if state.bank_hotels < 1:
            raise IllegalCommand("M.BUILD.4", "the bank has no hotels left")
    else:
        if levels[deed] == HOTEL or levels[deed] + count > 4:
            raise IllegalCommand("M.BUILD.3", f"at most 4 houses per deed ({deed} has {levels[deed]}, asked {count})")
        after = dict(levels)
        after[deed] += count
        if max(after.values()) - min(after.values()) > 1:
            raise IllegalCommand("M.BUILD.2", uneven_message(group, after))
        if state.bank_houses < count:
            raise IllegalCommand("M.BUILD.4", f"the bank has {state.bank_houses} houses, {count} asked")
    cost = DEEDS[deed].house_cost * count
    committed = sum(DEEDS[d].house_cost * c for who, d, c, _ in decls if who == player)
    cash = state.player(player).cash
    if cash < cost + committed:
        raise IllegalCommand("M.BUILD.5", f"{player} has ${cash}; building costs ${cost + committed}")
    return cost


def potential(state: GameState, player: str, unit: str) -> int:
    """Most units of `unit` a player could still declare: capacity on buildable groups, bounded by the
    cash they could raise (used to tell whether any follower could run the stock short, M.BUILD.5)."""
    capacity, cheapest = 0, 0
    for deeds in GROUPS.values():
        if DEEDS[deeds[0]].kind != "street":
            continue
        if any(state.deeds[d].owner != player or state.deeds[d].mortgaged for d in deeds):
            continue
        levels = [level(state, d) for d in deeds]
        if unit == "house":
            cap = sum(4 - lv for lv in levels if lv < 4)
        else:
            cap = sum(1 for lv in levels if lv == 4) if min(levels) >= 4 else 0
        if cap:
            capacity += cap
            cost = DEEDS[deeds[0]].house_cost
            cheapest = cost if not cheapest else min(cheapest, cost)
    if not capacity:
        return 0
    return min(capacity, liquidation_value(state, player) // cheapest)


def free_houses(state: GameState) -> int:
    """Houses in the bank that a hotel's sale may break into (M.BUILD.8): a house under a shortage auction
    (M.BUILD.6) is the auction's until it is placed or the bid is void. A sale during that auction once took
    it, and the winner's placement then left the bank with -1 houses."""
    held = sum(1 for p in state.pending if isinstance(p, BuildingAuction) and p.unit == "house")
    return state.bank_houses - held


def _stock(state: GameState, unit: str) -> int:
    return state.bank_hotels if unit == "hotel" else state.bank_houses


def _demand(decls: tuple[Decl, ...], unit: str) -> int:
    return sum(c for _, _, c, h in decls if h == (unit == "hotel"))


def builder_or_owner(state: GameState, name: str | None, deed: str) -> str:
    if name is not None:
        if not state.has_player(name):
            raise IllegalCommand("M.BUILD.1", f"unknown player {name!r}")
        return name
    require_street(deed)
    owner = state.deeds[deed].owner
    if owner is None:
        raise IllegalCommand("M.BUILD.1", f"nobody owns {deed}")
    return owner


# ---- declaring (M.BUILD.5) ----


def build(tx: Tx, c: cmd.Build) -> None:
    _declare(tx, builder_or_owner(tx.state, c.player, c.deed), c.deed, c.count, False)


def build_hotel(tx: Tx, c: cmd.BuildHotel) -> None:
    _declare(tx, builder_or_owner(tx.state, c.player, c.deed), c.deed, 1, True)


def _timing(state: GameState) -> BuildRound | None:
    if state.ending is not None:
        raise IllegalCommand("M.END.2", "no building after the end signal")
    if state.turn.phase == "game_over":
        raise IllegalCommand("M.END.1", "the game is over")
    head = state.head
    if isinstance(head, BuildRound):
        return head
    if not between_turns(state):
        raise IllegalCommand("M.BUILD.1", "building only between turns (not during doubles or a payment)")
    return None


def _declare(tx: Tx, player: str, deed: str, count: int, hotel: bool) -> None:
    st = tx.state
    if st.player(player).bankrupt:
        raise IllegalCommand("M.BUILD.1", f"{player} is bankrupt")
    rnd = _timing(st)
    unit = "hotel" if hotel else "house"
    if rnd is not None:
        if player in rnd.excluded:
            raise IllegalCommand("M.BUILD.6", f"{player} won a unit without paying and is out of this round")
        check_build(st, player, deed, count, hotel, rnd.declarations)
        decls = (*rnd.declarations, (player, deed, count, hotel))
        tx.emit(ev.BuildDeclared(player=player, deed=deed, count=count, hotel=hotel, note="follow"))
        tx.replace_head(replace(rnd, declarations=decls, passed=(), last=player))
        _maybe_resolve(tx)
        return
    check_build(st, player, deed, count, hotel)
    others = sum(potential(st, p.name, unit) for p in st.active_players if p.name != player)
    if count + others <= _stock(st, unit):
        _do_build(tx, player, deed, count, hotel)  # M.BUILD.5: no follower could exceed the stock
        return
    tx.emit(ev.BuildDeclared(player=player, deed=deed, count=count, hotel=hotel, note="declared"))
    tx.push_front(BuildRound(declarations=((player, deed, count, hotel),), last=player))
    _maybe_resolve(tx)


def _do_build(tx: Tx, player: str, deed: str, count: int, hotel: bool, price: int | None = None) -> None:
    cost = DEEDS[deed].house_cost * count if price is None else price
    tx.transfer(player, None, cost, f"{'hotel' if hotel else f'{count} house(s)'} on {deed}", "M.BUILD.1")
    ds = tx.state.deeds[deed]
    if hotel:
        tx.emit(ev.BuildingsSet(deed=deed, houses=0, hotel=True))  # the 4 houses go back (M.BUILD.3)
    else:
        tx.emit(ev.BuildingsSet(deed=deed, houses=ds.houses + count, hotel=False))


def _round(state: GameState) -> BuildRound:
    head = state.head
    if not isinstance(head, BuildRound):
        raise IllegalCommand("M.BUILD.5", "no building declarations are open")
    return head


def _waiting(state: GameState, rnd: BuildRound) -> list[str]:
    return [
        p.name for p in state.active_players
        if p.name not in rnd.passed and p.name != rnd.last and p.name not in rnd.excluded
    ]


def _maybe_resolve(tx: Tx) -> None:
    st = tx.state
    rnd = _round(st)
    if not rnd.declarations:
        tx.pop()
        return
    waiting = _waiting(st, rnd)
    settled = all(
        _demand(rnd.declarations, u) + sum(potential(st, p, u) for p in waiting) <= _stock(st, u)
        for u in ("hotel", "house")
    )
    if waiting and not settled:
        return  # followers may still declare (M.BUILD.5)
    _resolve(tx)


def _resolve(tx: Tx) -> None:
    """Hotels before houses (M.BUILD.5); a unit kind in shortage goes to auction (M.BUILD.6)."""
    for unit in ("hotel", "house"):
        st = tx.state
        rnd = _round(st)
        mine = tuple(d for d in rnd.declarations if d[3] == (unit == "hotel"))
        if not mine:
            continue
        demand = _demand(mine, unit)
        if _stock(st, unit) == 0:
            _void(tx, mine, "the bank has none left (M.BUILD.4)")
            continue
        if demand > _stock(st, unit):
            if any(_placeable(st, p.name, unit) for p in st.active_players if p.name not in rnd.excluded):
                tx.push_front(BuildingAuction(unit=unit, excluded=rnd.excluded))
                return
            _void(tx, mine, "nobody can place it")
            continue
        rest = tuple(d for d in rnd.declarations if d not in mine)
        tx.replace_head(replace(rnd, declarations=rest))
        for who, deed, count, hotel in mine:
            try:
                check_build(tx.state, who, deed, count, hotel)
            except IllegalCommand as exc:  # an impossible declaration is void (M.BUILD.5)
                tx.emit(ev.BuildDeclared(player=who, deed=deed, count=-count, hotel=hotel, note=f"void: {exc}"))
                continue
            _do_build(tx, who, deed, count, hotel)
    if not _round(tx.state).declarations:
        tx.pop()


def _void(tx: Tx, decls: tuple[Decl, ...], why: str) -> None:
    rnd = _round(tx.state)
    for who, deed, count, hotel in decls:
        tx.emit(ev.BuildDeclared(player=who, deed=deed, count=-count, hotel=hotel, note=f"void: {why}"))
    tx.replace_head(replace(rnd, declarations=tuple(d for d in rnd.declarations if d not in decls)))


def pass_build(tx: Tx, c: cmd.PassBuild) -> None:
    st = tx.state
    rnd = _round(st)
    if not st.has_player(c.player) or st.player(c.player).bankrupt:
        raise IllegalCommand("M.BUILD.5", f"{c.player!r} is not in the game")
    if c.player in rnd.passed:
        raise IllegalCommand("M.BUILD.5", f"{c.player} has already passed")
    tx.replace_head(replace(rnd, passed=(*rnd.passed, c.player)))
    _maybe_resolve(tx)


def check_withdraw(state: GameState, c: cmd.WithdrawBuild) -> tuple[Decl, ...]:
    """The player's declarations after the withdrawal (M.BUILD.5, 004)."""
    rnd = _round(state)
    mine = [d for d in rnd.declarations if d[0] == c.player and (c.deed is None or d[1] == c.deed)]
    if not mine:
        raise IllegalCommand("M.BUILD.5", f"{c.player} has no such declaration")
    if c.player == rnd.last:
        raise IllegalCommand("M.BUILD.5", f"{c.player} declared last and may not withdraw or reduce")
    units = {"hotel" if d[3] else "house" for d in mine}
    if not any(_demand(rnd.declarations, u) > _stock(state, u) for u in units):
        raise IllegalCommand("M.BUILD.5", "a declaration can't be withdrawn unless demand exceeds the bank's stock")
    left: list[Decl] = []
    cut = c.count
    for d in rnd.declarations:
        if d in mine and (cut is None or cut > 0):
            if cut is None or cut >= d[2]:
                cut = None if cut is None else cut - d[2]
                continue
            left.append((d[0], d[1], d[2] - cut, d[3]))
            cut = 0
            continue
        left.append(d)
    return tuple(left)


def withdraw_build(tx: Tx, c: cmd.WithdrawBuild) -> None:
    left = check_withdraw(tx.state, c)
    rnd = _round(tx.state)
    tx.emit(ev.BuildDeclared(player=c.player, deed=c.deed or "", count=-(c.count or 0), note="withdrawn"))
    tx.replace_head(replace(rnd, declarations=left))
    _maybe_resolve(tx)


# ---- shortage auctions (M.BUILD.6) ----


def _placeable(state: GameState, player: str, unit: str) -> list[str]:
    out = []
    for deed, d in DEEDS.items():
        if d.kind != "street" or state.deeds[deed].owner != player:
            continue
        try:
            check_build_unit(state, player, deed, unit)
        except IllegalCommand:
            continue
        out.append(deed)
    return out


def check_build_unit(state: GameState, player: str, deed: str, unit: str) -> None:
    """Could one `unit` go on `deed` now (group rules only; the price is the bid)?"""
    check_group(state, player, deed)
    group = DEEDS[deed].group
    levels = {d: level(state, d) for d in GROUPS[group]}
    if unit == "hotel":
        if levels[deed] != 4 or min(levels.values()) < 4:
            raise IllegalCommand("M.BUILD.3", f"a hotel needs 4 houses on every deed of {group}")
        return
    if levels[deed] >= 4:
        raise IllegalCommand("M.BUILD.3", f"{deed} has 4 houses or a hotel")
    levels[deed] += 1
    if max(levels.values()) - min(levels.values()) > 1:
        raise IllegalCommand("M.BUILD.2", uneven_message(group, levels))


def _auction(state: GameState) -> BuildingAuction:
    head = state.head
    if not isinstance(head, BuildingAuction):
        raise IllegalCommand("M.BUILD.6", "no building auction is open")
    return head


def bidders(state: GameState, a: BuildingAuction) -> list[str]:
    """Everyone who could place the unit may bid, declarers or not (M.BUILD.6)."""
    return [
        p.name for p in state.active_players
        if p.name not in a.excluded and (p.name == a.high_bidder or _placeable(state, p.name, a.unit))
    ]


def min_bid(state: GameState, player: str, unit: str) -> int:
    """Bids start at the build cost of a deed the bidder could build on (M.BUILD.6)."""
    costs = [DEEDS[d].house_cost for d in _placeable(state, player, unit)]
    return min(costs) if costs else 0


def check_bid(state: GameState, player: str, amount: int, tie: bool = False) -> BuildingAuction:
    """`tie`: the bid was called at the same moment as the standing one, for the same amount (M.AUC.3)."""
    a = _auction(state)
    if a.placing:
        raise IllegalCommand("M.BUILD.6", f"{a.high_bidder} is placing the unit won")
    if player not in bidders(state, a) or player in a.out:
        raise IllegalCommand("M.BUILD.6", f"{player} can't bid in this auction")
    step = state.options.auction_step
    if amount % step:
        raise IllegalCommand("M.BUILD.6", f"bids go in ${step} steps, not ${amount}")
    floor = min_bid(state, player, a.unit)
    if amount < floor:
        raise IllegalCommand("M.BUILD.6", f"bids start at the build cost (${floor} for {player})")
    if a.high_bidder == player and not a.held:
        raise IllegalCommand("M.BUILD.6", f"{player} already holds the ${a.high_bid} bid")
    if tie and amount == a.high_bid and a.high_bidder is not None and a.high_bidder != player:
        # M.AUC.3 holds in a shortage auction as in a deed's: equal bids called together go to the bidder
        # nearest in turn order from the next player.
        order = tie_priority(state)
        if order.index(a.high_bidder) < order.index(player):
            raise IllegalCommand(
                "M.AUC.3", f"equal bids of ${amount}: {a.high_bidder} is nearer in turn order and keeps it"
            )
        return a
    if amount <= a.high_bid:
        raise IllegalCommand("M.BUILD.6", f"a bid must exceed the standing ${a.high_bid}")
    return a


def bid(tx: Tx, c: cmd.Bid) -> None:
    a = check_bid(tx.state, c.player, c.amount, c.tie)
    tx.replace_head(replace(a, high_bid=c.amount, high_bidder=c.player, held=False))
    _maybe_close(tx)


def pass_bid(tx: Tx, c: cmd.PassBid) -> None:
    st = tx.state
    a = _auction(st)
    if a.placing:
        raise IllegalCommand("M.BUILD.6", f"{a.high_bidder} is placing the unit won")
    if c.player not in bidders(st, a) or c.player in a.out:
        raise IllegalCommand("M.BUILD.6", f"{c.player} is not bidding in this auction")
    if c.player == a.high_bidder:
        if not a.held:
            raise IllegalCommand("M.BUILD.6", f"{c.player} holds the standing bid and can't pass")
        # Giving up a held bid: the unit is open again without them.
        tx.replace_head(replace(a, high_bid=0, high_bidder=None, held=False, out=(*a.out, c.player)))
    else:
        tx.replace_head(replace(a, out=(*a.out, c.player)))
    _maybe_close(tx)


def _maybe_close(tx: Tx) -> None:
    st = tx.state
    a = _auction(st)
    remaining = [n for n in bidders(st, a) if n not in a.out]
    if a.high_bidder is None:
        if not remaining:
            tx.pop()  # nobody wants it at the build cost: the declarations of this kind lapse
            rnd = _round(tx.state)
            _void(tx, tuple(d for d in rnd.declarations if d[3] == (a.unit == "hotel")), "no bid in the auction")
            _redeclare(tx)
        return
    if remaining != [a.high_bidder]:
        return
    if st.player(a.high_bidder).cash < a.high_bid:
        _void_win(tx, a.high_bidder)
        return
    tx.replace_head(replace(a, placing=True))


def tidy(tx: Tx) -> None:
    """After any command: a shortage auction nobody can act in any more (bidders gone by mortgaging or
    bankruptcy, a winner with nowhere left to build) is closed rather than left hanging (M.BUILD.6)."""
    a = tx.state.head
    if not isinstance(a, BuildingAuction):
        return
    if a.placing:
        if a.high_bidder is None or not _placeable(tx.state, a.high_bidder, a.unit):
            _void_win(tx, a.high_bidder or "")
        return
    _maybe_close(tx)


def _void_win(tx: Tx, player: str) -> None:
    """A winner who can't pay voids the win; declarations are taken again without them (M.BUILD.6)."""
    tx.pop()
    rnd = _round(tx.state)
    for who, deed, count, hotel in rnd.declarations:
        if who == player:
            tx.emit(ev.BuildDeclared(player=who, deed=deed, count=-count, hotel=hotel, note="void: unpaid win"))
    decls = tuple(d for d in rnd.declarations if d[0] != player)
    tx.replace_head(replace(rnd, declarations=decls, excluded=(*rnd.excluded, player)))
    _redeclare(tx)


def _redeclare(tx: Tx) -> None:
    rnd = _round(tx.state)
    tx.replace_head(replace(rnd, passed=()))
    _maybe_resolve(tx)


def check_place(state: GameState, player: str, deed: str) -> BuildingAuction:
    a = _auction(state)
    if not a.placing:
        raise IllegalCommand("M.BUILD.6", "the auction is still open")
    if player != a.high_bidder:
        raise IllegalCommand("M.BUILD.6", f"{a.high_bidder} won the unit, not {player}")
    require_street(deed)
    check_build_unit(state, player, deed, a.unit)
    return a


def place_building(tx: Tx, c: cmd.PlaceBuilding) -> None:
    st = tx.state
    a = _auction(st)
    player = c.player or a.high_bidder or ""
    check_place(st, player, c.deed)
    cost = DEEDS[c.deed].house_cost
    if a.high_bid < cost:
        # Won below the cost of the deed wanted: the win is held and the bidding goes on (M.BUILD.6).
        tx.emit(ev.BuildDeclared(player=player, deed=c.deed, count=0, hotel=a.unit == "hotel", note="held"))
        tx.replace_head(replace(a, placing=False, held=True, out=()))
        return
    if st.player(player).cash < a.high_bid:
        _void_win(tx, player)
        return
    tx.pop()
    _do_build(tx, player, c.deed, 1, a.unit == "hotel", price=a.high_bid)
    rnd = _round(tx.state)
    decls = list(rnd.declarations)
    mine = [i for i, d in enumerate(decls) if d[0] == player and d[3] == (a.unit == "hotel")]
    if mine:
        same = [i for i in mine if decls[i][1] == c.deed]
        i = (same or mine)[0]
        who, deed, count, hotel = decls[i]
        if count > 1:
            decls[i] = (who, deed, count - 1, hotel)
        else:
            del decls[i]
    tx.replace_head(replace(rnd, declarations=tuple(decls)))
    _redeclare(tx)
