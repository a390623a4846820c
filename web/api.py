"""The JSON API. Thin views: everything is done by the table's `TableService` (hardware/service.py).

GET  /api/tables                          every table: id, name, game, seq, turn, players, camera
GET  /api/tables/<id>/state               GameState JSON plus "table" {id, name, game, seq, camera, last_roll}
GET  /api/tables/<id>/events?after=N      stored events after seq N: {seq, type, payload, source, time, text}
POST /api/tables/<id>/commands            a command object (clerk only) -> {events, state}; errors
                                          {error, rule, message}: 400 malformed, 409 refused by the rules
GET  /api/tables/<id>/stream              Server-Sent Events: "event: update", data = message JSON
GET  /api/tables/<id>/rolls/<n>.jpg       the annotated frame of roll n
GET  /api/tables/<id>/camera.mjpg         live preview (multipart JPEG)
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, send_file, stream_with_context

from web.auth import require_clerk

if TYPE_CHECKING:
    from flask.typing import ResponseReturnValue

    from hardware.service import TableService

bp = Blueprint("api", __name__, url_prefix="/api")

SSE_PING_S = 15.0  # a comment line this often lets a dead client be noticed and proxies keep the stream
MJPEG_FPS = 8.0
MJPEG_REPEAT_S = 1.0  # a preview whose picture has not changed sends it again this often


def _table(table_id: str) -> TableService:
    from web import registry_of

    try:
        return registry_of(current_app).get(table_id)
    except KeyError:
        abort(404, description=f"no table {table_id!r}")


def _summary(t: TableService) -> dict[str, Any]:
    st = t.state_json()
    return {"id": t.id, "name": t.name, "game": t.game_id, "seq": t.seq, "turn": st["turn"],
            "players": [{"name": p["name"], "cash": p["cash"], "bankrupt": p["bankrupt"]} for p in st["players"]],
            "camera": t.camera_status(), "last_roll": t.last_roll()}


@bp.get("/tables")
def tables() -> ResponseReturnValue:
    from web import registry_of

    return jsonify([_summary(t) for t in registry_of(current_app).tables()])


@bp.get("/tables/<table_id>/state")
def state(table_id: str) -> ResponseReturnValue:
    return jsonify(_table(table_id).state_json())


@bp.get("/tables/<table_id>/events")
def events(table_id: str) -> ResponseReturnValue:
    t = _table(table_id)
    try:
        after = int(request.args.get("after", "0"))
        limit = int(request.args["limit"]) if "limit" in request.args else None
    except ValueError:
        abort(400, description="after and limit are whole numbers")
    return jsonify(t.events(after=after, limit=limit))


@bp.post("/tables/<table_id>/commands")
@require_clerk
def commands(table_id: str) -> ResponseReturnValue:
    from engine.errors import InvalidCommand

    t = _table(table_id)
    body = request.get_json(silent=True)
    if body is None:
        raise InvalidCommand("the body must be a JSON command object, e.g. {\"type\": \"roll\", \"dice\": [3, 4]}")
    rows = t.submit(body, source="clerk")
    return jsonify(events=rows, state=t.state_json())


@bp.get("/tables/<table_id>/stream")
def stream(table_id: str) -> ResponseReturnValue:
    t = _table(table_id)
    sub = t.subscribe()
    first = {"kind": "events", "seq": t.seq, "events": [], "state": t.state_json()}

    def gen() -> Iterator[str]:
        try:
            yield _sse(first)
            while not sub.closed:
                message = sub.get(timeout=SSE_PING_S)
                yield _sse(message) if message is not None else ": ping\n\n"
        finally:
            sub.close()  # the client went away (waitress stops the iterator) or the table stopped

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(gen()), mimetype="text/event-stream", headers=headers)


def _sse(message: dict[str, Any]) -> str:
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return f"id: {message['seq']}\nevent: update\ndata: {data}\n\n"


@bp.get("/tables/<table_id>/rolls/<int:n>.jpg")
def roll_image(table_id: str, n: int) -> ResponseReturnValue:
    path = _table(table_id).roll_image(n)
    if path is None:
        abort(404, description=f"no picture of roll {n}")
    return send_file(path, mimetype="image/jpeg", max_age=3600)


@bp.get("/tables/<table_id>/camera.mjpg")
def camera_mjpeg(table_id: str) -> ResponseReturnValue:
    t = _table(table_id)
    if t.source is None:
        abort(404, description=f"table {table_id} has no camera")

    def part(jpeg: bytes) -> bytes:
        # Each picture is followed by the boundary at once: a browser shows a part when the next boundary
        # comes, and a camera whose picture stays the same (a still, a paused source) sends no next part.
        return (b"Content-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg
                + b"\r\n--frame\r\n")

    def gen() -> Iterator[bytes]:
        last = b""
        idle = quiet = 0.0
        yield b"--frame\r\n"
        while idle < 30.0:  # a camera gone for half a minute ends the preview; the page reconnects
            jpeg = t.latest_frame_jpeg()
            if jpeg and jpeg is not last:
                last, idle, quiet = jpeg, 0.0, 0.0
                yield part(jpeg)
            else:
                idle += 1.0 / MJPEG_FPS
                quiet += 1.0 / MJPEG_FPS
                if last and quiet >= MJPEG_REPEAT_S:
                    # The same picture again: a page gone is noticed at this write, not half a minute on.
                    quiet = 0.0
                    yield part(last)
            time.sleep(1.0 / MJPEG_FPS)

    return Response(gen(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache"})


# The hall's feed and the referee's clock (web/hall.py), under this blueprint's /api prefix.
from web.hall import bp as _hall_bp  # noqa: E402

bp.register_blueprint(_hall_bp)
