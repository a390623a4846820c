"""The board, the deeds and the card decks, loaded once from the project's transcription of the facts.

`data/monopoly-us.json` is the team's own transcription of ../shared/data/monopoly-us.json (US Standard
board, which the JMA rules are written against). Everything here is immutable module-level data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BOARD_SIZE = 40
JAIL_INDEX = 10
GO_TO_JAIL_INDEX = 30
DECKS = ("chance", "community_chest")


@dataclass(frozen=True)
class Square:
    index: int
    type: str  # go, street, railroad, utility, chance, community_chest, tax, jail, free_parking, go_to_jail
    name: str
    deed: str | None = None
    group: str | None = None


@dataclass(frozen=True)
class Deed:
    id: str
    index: int
    kind: str  # street | railroad | utility
    group: str
    price: int
    mortgage: int
    name: str
    rent: tuple[int, ...] = ()  # streets: base, 1-4 houses, hotel
    house_cost: int = 0
    rent_by_count: tuple[int, ...] = ()  # railroads: 1..4 owned
    multiplier_by_count: tuple[int, ...] = ()  # utilities: 1..2 owned


@dataclass(frozen=True)
class Card:
    deck: str
    id: str
    op: str
    text: str
    amount: int = 0
    square: int | None = None
    kind: str | None = None  # move_to_next target: railroad | utility
    if_owned: str | None = None
    spaces: int = 0
    per_house: int = 0
    per_hotel: int = 0

    @property
    def key(self) -> str:
        """The full card id used in commands and events, e.g. `chance:nearest_railroad_1`."""
        return f"{self.deck}:{self.id}"


def _load() -> dict[str, Any]:
    text = (Path(__file__).parent / "data" / "monopoly-us.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_DATA = _load()

SQUARES: tuple[Square, ...] = tuple(
    Square(index=s["index"], type=s["type"], name=s["name"], deed=s.get("id"), group=s.get("group"))
    for s in _DATA["squares"]
)

DEEDS: dict[str, Deed] = {
    deed_id: Deed(
        id=deed_id,
        index=d["index"],
        kind=d["kind"],
        group=d["group"],
        price=d["price"],
        mortgage=d["mortgage"],
        name=d["name"],
        rent=tuple(d.get("rent", ())),
        house_cost=d.get("house_cost", 0),
        rent_by_count=tuple(d.get("rent_by_count", ())),
        multiplier_by_count=tuple(d.get("multiplier_by_count", ())),
    )
    for deed_id, d in sorted(_DATA["deeds"].items(), key=lambda kv: int(kv[1]["index"]))
}

# Board order from GO: the order bankrupt-to-bank auctions follow (M.BK.3).
DEED_ORDER: tuple[str, ...] = tuple(DEEDS)

GROUPS: dict[str, tuple[str, ...]] = {}
for _deed in DEEDS.values():
    GROUPS.setdefault(_deed.group, ())
    GROUPS[_deed.group] = (*GROUPS[_deed.group], _deed.id)

RAILROADS = GROUPS["railroad"]
UTILITIES = GROUPS["utility"]


def _cards(edition: str) -> dict[str, tuple[Card, ...]]:
    decks: dict[str, tuple[Card, ...]] = {}
    for deck in DECKS:
        decks[deck] = tuple(
            Card(
                deck=deck,
                id=c["id"],
                op=c["op"],
                text=c["text"],
                amount=int(c.get("amount", 0)),
                square=c.get("square"),
                kind=c.get("kind"),
                if_owned=c.get("if_owned"),
                spaces=int(c.get("spaces", 0)),
                per_house=int(c.get("per_house", 0)),
                per_hotel=int(c.get("per_hotel", 0)),
            )
            for c in _DATA["decks"][edition][deck]
        )
    return decks


CARD_EDITIONS: dict[str, dict[str, tuple[Card, ...]]] = {ed: _cards(ed) for ed in ("pre2008", "2008")}


def card(edition: str, key: str) -> Card:
    """Look up a card by its full id (`chance:back_3`)."""
    deck, _, cid = key.partition(":")
    for c in CARD_EDITIONS[edition].get(deck, ()):
        if c.id == cid:
            return c
    raise KeyError(key)


def deed_at(index: int) -> Deed | None:
    sq = SQUARES[index]
    return DEEDS[sq.deed] if sq.deed else None
