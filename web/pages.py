"""The pages people look at: hall display, dashboard, clerk console, stream overlay, PIN login, language.

Views are thin: they pick the table, the language and the CSRF token and render a template; the pages'
JS reads state from the JSON API and follows the Server-Sent Events stream (web/api.py). Writes go to
`POST /api/tables/<id>/commands` with the clerk's session and the CSRF header. This blueprint adds only
what the console needs beyond the API: a dry-run check of a command (the trade builder's JMA check),
the commands legal now, and the cash history for the chart.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    g,
    has_request_context,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response as WerkzeugResponse

import engine
from engine.board import CARD_EDITIONS
from engine.describe import describe
from engine.events import event_from_json
from web import i18n
from web.auth import PIN_HEADER, login_clerk, logout_clerk, require_clerk

bp = Blueprint(
    "pages",
    __name__,
    template_folder="templates",
    # Own URL prefix for the assets, so the pages work whatever static folder the app factory sets up.
    static_folder="static",
    static_url_path="/assets",
)

CSRF_KEY = "csrf"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
CLERK_KEY = "clerk"  # session["clerk"]: ids of the tables this browser has unlocked with the PIN (contract)


# ---- helpers ----


def _registry() -> Any:
    return current_app.extensions["tableside"]


def _table(table_id: str) -> Any:
    try:
        return _registry().get(table_id)
    except KeyError:
        i18n.refuse(404, "why_no_table", table=table_id)


def csrf_token() -> str:
    """The session's CSRF token, made on first use (the same one serves forms and the JS's header)."""
    token = session.get(CSRF_KEY)
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_KEY] = token
    return token


def csrf_ok() -> bool:
    sent = request.form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER) or ""
    token = session.get(CSRF_KEY)
    return isinstance(token, str) and bool(token) and hmac.compare_digest(sent, token)


def is_clerk(table_id: str) -> bool:
    return table_id in (session.get(CLERK_KEY) or [])


def _json_error(status: int, error: str, message: str, rule: str | None = None) -> Response:
    response = jsonify({"error": error, "rule": rule, "message": message})
    response.status_code = status
    return response


def _safe_next(target: str | None, fallback: str) -> str:
    """Only same-site paths: a language switch must not become an open redirect."""
    if not target:
        return fallback
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return fallback
    return target


def _page_data(service: Any | None) -> dict[str, Any]:
    """The JSON block every page embeds: language bundle, board in that language, the table's URLs."""
    lang: str = g.lang
    # Card titles too: the dashboard's log and jail-card badges name cards in the page's language.
    data: dict[str, Any] = {"i18n": i18n.bundle(lang), "board": i18n.board_data(lang), "cards": _cards(lang)}
    if service is not None:
        tid = service.id
        data["table"] = {
            "id": tid,
            "name": service.name,
            "state": f"/api/tables/{tid}/state",
            "stream": f"/api/tables/{tid}/stream",
            "events": f"/api/tables/{tid}/events",
            "commands": f"/api/tables/{tid}/commands",
            "camera": f"/api/tables/{tid}/camera.mjpg",
            "history": url_for("pages.history", table_id=tid),
            "check": url_for("pages.check", table_id=tid),
            "legal": url_for("pages.legal", table_id=tid),
            "calibration": url_for("pages.calibration", table_id=tid),
            "find_board": url_for("pages.find_board", table_id=tid),
        }
    return data


def _cards(lang: str) -> dict[str, dict[str, list[dict[str, str]]]]:
    """Cards for the console's "card drawn" list, by edition and deck, titled in the page's language."""
    return {
        edition: {
            deck: [{"key": c.key, "title": i18n.card_title(c.key, lang, c.text)} for c in cards]
            for deck, cards in decks.items()
        }
        for edition, decks in CARD_EDITIONS.items()
    }


# ---- language, CSRF, template globals ----


@bp.before_app_request
def _pick_language() -> None:
    g.lang = i18n.pick_lang(request.cookies.get(i18n.COOKIE), request.headers.get("Accept-Language"),
                            request.args.get("lang"))


# The pages, and the forms and redirects between them, that pass a page's own `?lang=` on to the next: a clerk
# given the console's link with `?lang=ja` on a browser that prefers English stays in Japanese through the
# PIN login and back to the dashboard. Not the JSON API (the scripts add the page's language to their own
# requests, common.js inPageLang), not the assets, and not the switch, which sets the cookie instead.
CARRY_LANG = frozenset({
    "pages.hall", "pages.dashboard", "pages.clerk", "pages.overlay", "pages.login", "pages.logout",
    "events.index", "events.detail", "events.login", "events.logout", "events.create", "events.seat",
    "events.result",
})


def asked_lang() -> str | None:
    """This request's own `?lang=`, where it names a language the pages speak."""
    asked = request.args.get("lang") if has_request_context() else None
    return asked if asked in i18n.LANGS else None


@bp.app_url_defaults
def _carry_lang(endpoint: str, values: dict[str, Any]) -> None:
    asked = asked_lang()
    if asked and endpoint in CARRY_LANG and "lang" not in values:
        values["lang"] = asked


def carry_lang(path: str) -> str:
    """A same-site path (a form's `next`) with this request's own `?lang=` added, as url_for adds it."""
    asked = asked_lang()
    if not asked or "lang" in dict(parse_qsl(urlsplit(path).query)):
        return path
    return path + ("&" if "?" in path else "?") + urlencode({"lang": asked})


def _here_for_switch() -> str:
    """This page's path and query for the language switch to come back to, less `lang`: a page opened with
    `?lang=ja` must not undo the switch to English on the way back."""
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    return request.path + ("?" + urlencode(args) if args else "")


@bp.before_app_request
def _csrf_guard() -> Response | None:
    """CSRF for every write made with the clerk's session cookie (the API's included): a browser sends the
    cookie with any site's form, never our custom header. A request with the PIN header carries its own
    credential; one with no clerk session at all is left to the API's 401 (or the form's own check)."""
    if request.method in ("GET", "HEAD", "OPTIONS") or request.headers.get(PIN_HEADER) is not None:
        return None
    if not session.get(CLERK_KEY) or csrf_ok():
        return None
    if request.path.startswith("/api/"):
        return _json_error(403, "csrf", "missing or wrong CSRF token (X-CSRF-Token)")
    i18n.refuse(400, "why_csrf")


@bp.app_context_processor
def _template_globals() -> dict[str, Any]:
    lang = getattr(g, "lang", i18n.DEFAULT_LANG)
    return {"lang": lang, "t": lambda key: i18n.t(key, lang), "csrf_token": csrf_token, "langs": i18n.LANGS,
            "here_for_switch": _here_for_switch}


@bp.get("/lang/<code>")
def switch_language(code: str) -> WerkzeugResponse:
    if code not in i18n.LANGS:
        abort(404)
    response = redirect(_safe_next(request.args.get("next"), url_for("pages.hall")))
    # A preference, not a credential: readable by JS is fine; a year long.
    response.set_cookie(i18n.COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax")
    return response


# ---- pages ----


@bp.get("/")
def hall() -> str:
    tables = [_hall_row(s) for s in _registry().tables()]
    return render_template("hall.html", tables=tables, data=_page_data(None))


@bp.get("/api/hall")
def hall_json() -> Response:
    import time

    return jsonify({"tables": [_hall_row(s) for s in _registry().tables()], "now": time.time()})


def _hall_row(service: Any) -> dict[str, Any]:
    from hardware.hall import hall_row

    row = hall_row(service.state_json(), table_id=service.id, name=service.name)
    row["dashboard"] = url_for("pages.dashboard", table_id=service.id)
    return row


@bp.get("/tables/<table_id>")
def dashboard(table_id: str) -> str:
    service = _table(table_id)
    return render_template("dashboard.html", table=service, data=_page_data(service), clerk=is_clerk(table_id))


@bp.get("/tables/<table_id>/overlay")
def overlay(table_id: str) -> str:
    service = _table(table_id)
    return render_template("overlay.html", table=service, data=_page_data(service))


@bp.get("/tables/<table_id>/clerk")
def clerk(table_id: str) -> Any:
    service = _table(table_id)
    if not is_clerk(table_id):
        return redirect(url_for("pages.login", table_id=table_id))
    data = _page_data(service)
    data["csrf"] = csrf_token()
    return render_template("clerk.html", table=service, data=data)


@bp.route("/tables/<table_id>/login", methods=["GET", "POST"])
def login(table_id: str) -> Any:
    service = _table(table_id)
    error = None
    if request.method == "POST":
        if not csrf_ok():
            i18n.refuse(400, "why_csrf")
        if login_clerk(table_id, request.form.get("pin", "").strip()):
            return redirect(url_for("pages.clerk", table_id=table_id))
        error = i18n.t("wrong_pin", g.lang)
    status = 403 if error else 200
    return render_template("login.html", table=service, data=_page_data(None), error=error), status


@bp.post("/tables/<table_id>/logout")
def logout(table_id: str) -> Any:
    if not csrf_ok():
        i18n.refuse(400, "why_csrf")
    logout_clerk(table_id)
    return redirect(url_for("pages.dashboard", table_id=table_id))


# ---- JSON for the pages ----


@bp.get("/api/tables/<table_id>/history")
def history(table_id: str) -> Response:
    """Cash of every player after each accepted command, folded from the stored log (undo included: the
    point after an undo shows the restored cash), for the dashboard's chart."""
    service = _table(table_id)
    state: engine.GameState | None = None
    points: list[dict[str, Any]] = []

    def sample() -> None:
        if state is not None:
            points.append({"seq": state.seq, "turn": state.turn.number,
                           "cash": {p.name: p.cash for p in state.players}})

    for row in service.events():
        event = _event(row)
        if event.type == "command":
            sample()
        state = engine.evolve(state, event)
    sample()
    return jsonify({"points": points})


def _event(row: dict[str, Any]) -> engine.Event:
    payload = row.get("payload") or {}
    return event_from_json({**payload, "type": row["type"]})


@bp.post("/api/tables/<table_id>/check")
@require_clerk
def check(table_id: str) -> Response:
    """A dry run: would the engine accept this command now? Nothing is stored or published."""
    service = _table(table_id)
    command = request.get_json(silent=True)
    if not isinstance(command, dict):
        return jsonify({"ok": False, "rule": None, "message": "the body must be a JSON command object"})
    try:
        events = engine.apply(service.state(), command)
    except engine.IllegalCommand as e:
        return jsonify({"ok": False, "rule": e.rule, "message": i18n.rule_message(e.rule, e.detail, g.lang)})
    except (engine.InvalidCommand, TypeError, KeyError, ValueError) as e:
        # Malformed in a way parse_command did not foresee is still just "malformed" to the clerk.
        return jsonify({"ok": False, "rule": None, "message": str(e)})
    return jsonify({"ok": True, "events": [e.to_json() | {"text": describe(e)} for e in events]})


@bp.get("/api/tables/<table_id>/legal")
@require_clerk
def legal(table_id: str) -> Response:
    service = _table(table_id)
    return jsonify({"commands": [c.to_json() for c in engine.legal_commands(service.state())]})


@bp.get("/api/tables/<table_id>/calibration")
@require_clerk
def calibration_outline(table_id: str) -> Response:
    """Where the table's calibration puts the board (and tray) in the camera's frames: {"calibration": null}
    before the table has one."""
    return jsonify({"calibration": _table(table_id).calibration_outline()})


@bp.post("/api/tables/<table_id>/calibration")
@require_clerk
def calibration(table_id: str) -> Response:
    """Four clicked corners (image pixels: top-left, top-right, bottom-right, bottom-left) for the camera.
    The service stores them as a new calibration and reads with it from the next frame on."""
    service = _table(table_id)
    body = request.get_json(silent=True) or {}
    corners = body.get("corners")
    if (
        not isinstance(corners, list)
        or len(corners) != 4
        or any(not isinstance(c, list) or len(c) != 2 or not all(isinstance(v, int | float) for v in c)
               for c in corners)
    ):
        return _json_error(400, "invalid", "corners must be four [x, y] points")
    setter = getattr(service, "set_corners", None)
    if setter is None:
        return _json_error(501, "unsupported", "this table service cannot take corners yet")
    try:
        cal = setter([(float(x), float(y)) for x, y in corners])
    except ValueError as exc:  # a corner outside the picture, a degenerate quadrilateral
        return _json_error(400, "invalid", str(exc))
    except RuntimeError as exc:  # no picture yet
        return _json_error(409, "unavailable", str(exc))
    return jsonify({"ok": True, "calibration": cal})


@bp.post("/api/tables/<table_id>/calibration/find")
@require_clerk
def find_board(table_id: str) -> Response:
    """The board's four corners found by its outline in the camera's latest frame: `{corners}` in the order
    they are clicked, a proposal the clerk checks on the preview and saves as clicked corners. 409 before the
    camera has given a picture, 422 where the picture shows no board (the message says what was seen)."""
    finder = getattr(_table(table_id), "find_corners", None)
    if finder is None:
        return _json_error(501, "unsupported", "this table service cannot look for the board")
    try:
        corners = finder()
    except ValueError as exc:  # CalibrationError: no board outline in the picture
        return _json_error(422, "not_found", str(exc))
    except RuntimeError as exc:  # no picture yet
        return _json_error(409, "unavailable", str(exc))
    return jsonify({"corners": corners})
