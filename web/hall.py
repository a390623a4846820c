"""The hall's live feed and the referee's clock, over HTTP (registered under the JSON API's /api):

GET  /api/hall/stream              Server-Sent Events for the hall display: first `event: hall` with every
                                   table's row (`hardware.hall.hall_row`), then `event: table` with one
                                   table's new row on each change of that table; `now` = server time
POST /api/tables/<id>/clock        a referee clock command (clerk PIN): {"type": "start" | "placement_done"
                                   [player] | "pause" [reason] | "resume" | "adjust" seconds | "end"
                                   [reason]} -> {"clock": ...}; 409 {error, rule, message} when the
                                   rules (C.TIME.*, M.END.2) refuse it
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request, stream_with_context

from hardware.hall import HallHub, hall_row, sse_text
from web import i18n
from web.auth import require_clerk

bp = Blueprint("hall", __name__)

SSE_PING_S = 15.0
HUB_KEY = "tableside_hall"


def hub_of(app: Flask) -> HallHub:
    hub = app.extensions.get(HUB_KEY)
    if hub is None:
        hub = app.extensions.setdefault(HUB_KEY, HallHub())
    return hub  # type: ignore[no-any-return]


def rows(app: Flask) -> list[dict[str, Any]]:
    reg = app.extensions["tableside"]
    return [hall_row(t.state_json(), table_id=t.id, name=t.name) for t in reg.tables()]


@bp.get("/hall/stream")
def hall_stream() -> Response:
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    hub = hub_of(app)
    hub.attach(app.extensions["tableside"].tables())  # tables added since (a mirror finds new units)
    sub = hub.subscribe()
    first = sse_text({"kind": "hall", "tables": rows(app), "now": time.time()}, event="hall")

    def gen() -> Iterator[str]:
        try:
            yield first
            while not sub.closed:
                message = sub.get(timeout=SSE_PING_S)
                yield message["sse"] if message is not None else ": ping\n\n"
        finally:
            sub.close()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(gen()), mimetype="text/event-stream", headers=headers)


@bp.post("/tables/<table_id>/clock")
@require_clerk
def clock(table_id: str) -> Any:
    from hardware.errors import ServiceError

    try:
        table = current_app.extensions["tableside"].get(table_id)
    except KeyError:
        i18n.refuse(404, "why_no_table", table=table_id)
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        return jsonify(error="invalid", rule=None, message="the body must be a JSON clock command"), 400
    try:
        out = table.clock_command(body, source="referee")
    except ServiceError as exc:
        return jsonify(error="unavailable", rule=None, message=str(exc)), 409
    return jsonify(clock=out)
