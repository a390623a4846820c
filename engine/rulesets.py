"""Rulesets: named bundles of options (`jma-2006` default, `jma-2003`, `classic`), overridable one by one."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine.errors import InvalidCommand


@dataclass(frozen=True)
class Options:
    ruleset: str = "jma-2006"
    starting_cash: int = 1500  # M.SETUP.1
    go_salary: int = 200  # M.GO.1
    jail_fine: int = 50  # M.JAIL.3
    houses: int = 32  # M.BUILD.4
    hotels: int = 12
    edition: str = "pre2008"  # card decks and taxes: "pre2008" | "2008"
    income_tax: str = "flat"  # M.TAX.1: "flat" (JMA, 2008+) | "choice" ($200 or 10%, classic)
    income_tax_amount: int = 200
    income_tax_percent: int = 10
    luxury_tax: int = 75  # M.TAX.2
    auction_min_bid: int = 10  # M.AUC.1 (JMA: from $10 in $10 steps)
    auction_step: int = 10
    unmortgage_rounding: str = "up"  # M.MORT.2: "up" | "down" | "nearest"
    mortgage_transfer_fee: str = "on_lift"  # M.MORT.4: "on_lift" (jma-2006) | "at_once" (jma-2003, classic)
    utility_card_reroll: bool = True  # M.RENT.4: a card sends you to a utility -> roll again for the rent
    roll_off: bool = False  # M.SETUP.2: decide the start order by rolling; off = seat order as given
    time_limit_minutes: int = 90  # M.END.2
    asset_lead_wins: bool = True  # M.END.5: off = leading on assets at the time limit is not a win
    # M.END.2: after the end signal, doubles in the final (next) turn roll again: 000 plays "the next
    # turn's roll" once (off); 004 ends "after that turn" (on). Doubles already in progress always go on.
    final_turn_doubles: bool = False
    provisional_bankruptcy: bool = True  # M.BK.1 (JMA): rescue offers; classic lets the debtor give up
    hotel_breakup: str = "jma"  # M.BUILD.8: "jma" keeps at most the group's houses; "classic": any the bank has

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_JMA_2006 = Options()

RULESETS: dict[str, Options] = {
    "jma-2006": _JMA_2006,
    # 004 (2003) differs from 2006 in charging the 10% at once on mortgaged deeds that change hands.
    "jma-2003": replace(_JMA_2006, ruleset="jma-2003", mortgage_transfer_fee="at_once", final_turn_doubles=True),
    # The printed Hasbro rules: any bid amount, the $200-or-10% income tax choice, 10% fee on transfer.
    "classic": replace(
        _JMA_2006,
        ruleset="classic",
        income_tax="choice",
        auction_min_bid=1,
        auction_step=1,
        mortgage_transfer_fee="at_once",
        final_turn_doubles=True,
        provisional_bankruptcy=False,
        hotel_breakup="classic",
    ),
}

# The September-2008 redesign (001): new decks, luxury tax $100, flat income tax.
EDITION_SETS: dict[str, dict[str, Any]] = {
    "pre2008": {},
    "2008": {"edition": "2008", "luxury_tax": 100, "income_tax": "flat"},
}

_CHOICES: dict[str, tuple[str, ...]] = {
    "edition": ("pre2008", "2008"),
    "income_tax": ("flat", "choice"),
    "unmortgage_rounding": ("up", "down", "nearest"),
    "mortgage_transfer_fee": ("on_lift", "at_once"),
    "hotel_breakup": ("jma", "classic"),
}


def resolve(ruleset: str = "jma-2006", overrides: dict[str, Any] | None = None) -> Options:
    """The options for a table: the ruleset's bundle, then the edition set, then single overrides."""
    if ruleset not in RULESETS:
        raise InvalidCommand(f"unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})")
    opts = RULESETS[ruleset]
    overrides = dict(overrides or {})
    known = {f.name: f for f in fields(Options)}
    for key, value in overrides.items():
        if key not in known or key == "ruleset":
            raise InvalidCommand(f"unknown option {key!r}")
        expected = type(getattr(opts, key))
        if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidCommand(f"option {key} must be a whole number, got {value!r}")
        if expected is bool and not isinstance(value, bool):
            raise InvalidCommand(f"option {key} must be true or false, got {value!r}")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise InvalidCommand(f"option {key} must be one of {', '.join(_CHOICES[key])}, got {value!r}")
    edition = overrides.get("edition", opts.edition)
    opts = replace(opts, **EDITION_SETS[edition])
    return replace(opts, **overrides)
