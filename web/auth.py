"""Clerk authentication for writes: the table's clerk PIN.

A request is a clerk's for table T when it carries the header `X-Clerk-Pin: <T's PIN>`, or when its Flask
session was marked by a PIN login (`session["clerk"]` lists the table ids logged into; the pages engineer's
login form calls `login_clerk`). No credentials: 401. Wrong PIN or another table's login: 403.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from typing import Any, TypeVar, cast

from flask import abort, current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])

PIN_HEADER = "X-Clerk-Pin"


def pin_matches(table_id: str, pin: str) -> bool:
    from web import registry_of

    try:
        expected = registry_of(current_app).get(table_id).clerk_pin
    except KeyError:
        return False
    return hmac.compare_digest(pin.encode(), expected.encode())


def is_clerk(table_id: str) -> bool:
    pin = request.headers.get(PIN_HEADER)
    if pin is not None:
        return pin_matches(table_id, pin)
    return table_id in session.get("clerk", [])


def login_clerk(table_id: str, pin: str) -> bool:
    """Check the PIN and mark the session as this table's clerk; False when the PIN is wrong."""
    if not pin_matches(table_id, pin):
        return False
    tables = list(session.get("clerk", []))
    if table_id not in tables:
        tables.append(table_id)
    session["clerk"] = tables
    return True


def logout_clerk(table_id: str | None = None) -> None:
    if table_id is None:
        session.pop("clerk", None)
    else:
        session["clerk"] = [t for t in session.get("clerk", []) if t != table_id]


def require_clerk(view: F) -> F:
    """For views with a `table_id` argument: only that table's clerk gets through."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        table_id = kwargs.get("table_id")
        if table_id is None:
            raise RuntimeError("require_clerk needs a view with a table_id argument")
        pin = request.headers.get(PIN_HEADER)
        if pin is None and not session.get("clerk"):
            abort(401, description=f"clerk only: send the table's PIN in {PIN_HEADER} or log in")
        if not is_clerk(table_id):
            abort(403, description=f"not the clerk of table {table_id}")
        return view(*args, **kwargs)

    return cast(F, wrapped)
