"""Events in words (engine/describe.py): money and cards named as a player reads them, never by their ids.

The web's Japanese words for the same money reasons (web/i18n.py MONEY_JA) are checked here too: a kind without
Japanese words would show the English under a Japanese page."""

from __future__ import annotations

import random
import re

import pytest

from engine import events as ev
from engine.board import DEEDS
from engine.demo import demo_game
from engine.describe import MONEY_REASONS, describe, money_reason
from web.i18n import MONEY_JA, money_bundle

ID = re.compile(r"\b(?:" + "|".join(DEEDS) + r"|chance:\w+|community_chest:\w+)\b")


def test_money_and_cards_in_words() -> None:
    def paid(reason: str, payer: str | None = "Ann", payee: str | None = None, amount: int = 200) -> str | None:
        return describe(ev.CashMoved(payer=payer, payee=payee, amount=amount, reason=reason, rule=""))

    assert paid("bought b_o_railroad") == "Ann paid the bank $200 (bought B. & O. Railroad)"
    assert paid("rent for electric_company (4x dice)", payee="Bob", amount=28) == (
        "Ann paid Bob $28 (rent for Electric Company, 4x the dice)")
    assert paid("card chance:dividend", payer=None, payee="Ann", amount=50) == (
        "The bank paid Ann $50 (Chance: Bank pays you dividend of $50.)")
    assert paid("buildings on orange sold to the bank", payer=None, payee="Ann") == (
        "The bank paid Ann $200 (buildings on orange sold to the bank)")
    assert paid("2 house(s) on park_place") == "Ann paid the bank $200 (2 house(s) on Park Place)"
    assert paid("10% on mortgaged park_place") == "Ann paid the bank $200 (10% on mortgaged Park Place)"
    assert paid("trade with Bob Q") == "Ann paid the bank $200 (trade with Bob Q)"  # a name with a space
    # A reason this build has no words for is shown as written, not dropped.
    assert paid("something new") == "Ann paid the bank $200 (something new)"
    assert money_reason("something new") is None
    drew = describe(ev.CardDrawn(player="Ann", card="community_chest:goojf", kept=True))
    assert drew is not None and drew.startswith("Ann drew Community Chest: Get Out of Jail Free")
    assert drew.endswith("(kept)")


@pytest.mark.parametrize("seed", range(6))
def test_every_reason_a_game_writes_has_words(seed: int) -> None:
    """Demo games (the bot buys, builds, mortgages, trades, goes bankrupt): every money event matches a kind, and
    no line shows a deed's or card's id."""
    _, log = demo_game(["Ann", "Bob", "Cy", "Dee"], seed=seed, turns=150, rng=random.Random(seed))
    kinds = set()
    for e in log:
        text = describe(e)
        if isinstance(e, ev.CashMoved):
            found = money_reason(e.reason)
            assert found is not None, f"no words for {e.reason!r}"
            kinds.add(found[0])
        if text is not None:
            assert not ID.search(text), text
    assert {"salary", "bought", "rent"} <= kinds


def test_japanese_words_for_every_kind() -> None:
    keys = [key for key, _, _ in MONEY_REASONS]
    assert sorted(MONEY_JA) == sorted(keys) and len(set(keys)) == len(keys)
    for key, pattern, words in MONEY_REASONS:
        # the same named parts in both languages' words as the pattern has (the pages fill them by name)
        names = set(re.findall(r"\(\?P<(\w+)>", pattern))
        assert set(re.findall(r"\{(\w+)\}", words)) <= names, key
        assert set(re.findall(r"\{(\w+)\}", MONEY_JA[key])) == set(re.findall(r"\{(\w+)\}", words)), key
    ja = money_bundle("ja")
    assert ja["words"]["bought"] == "{deed}を購入" and "(?P<" not in str(ja["patterns"])  # JavaScript's groups


def test_a_referees_changes_in_words() -> None:
    """Everyone at the table reads what the referee changed (deeds and squares by name, money as money)."""
    text = describe(ev.RefereeAdjusted(changes={
        "deeds.baltic_avenue.houses": 1, "deeds.park_place.owner": None, "players.Ann.cash": 1500,
        "players.Ann.position": 10, "players.Ann.in_jail": True, "players.Ann.jail_cards": ["chance:goojf"],
        "turn.player": "Bob"}))
    assert text == ("Referee set Baltic Avenue's houses = 1, Park Place's owner = the bank, Ann's cash = $1500, "
                    "Ann's square = Jail / Just Visiting, Ann's in jail = yes, "
                    "Ann's Get Out of Jail Free cards = Chance, turn = Bob")
