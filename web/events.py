"""Tournament events in the web app: pages for organisers and a JSON API (engine.tournament, kept in the store
as append-only versions; the same helpers as `tableside event`).

Reading is open to all (the hall shows standings): `/events`, `/events/<id>`, `/events/<id>/results.csv`,
`/events/<id>/standings.csv`, `GET /api/events`, `GET /api/events/<id>`.

Writing is the organiser's:
- `X-Organiser-Pin: <PIN>` (config `ORGANISER_PIN` or env `TABLESIDE_ORGANISER_PIN`), or
  `Authorization: Bearer <token>` (config `ADMIN_TOKEN` or env `TABLESIDE_ADMIN_TOKEN`), or
- a session marked by the organiser login form (`/events/login`, the same PIN); such a session's writes need
  the CSRF token (form field or `X-CSRF-Token`), like the clerk's.
No credentials: 401; wrong ones (or no organiser PIN configured): 403.

    POST /api/events                        {"name", "game": "monopoly"|"catan", "players": [..] | "A,B,..",
                                             "minutes"?, "seed"?, "asset_lead_wins"?}              -> 201
    POST /api/events/<id>/seat              seat the next round (409 while a table of the last has no result)
    POST /api/events/<id>/results           {"round", "table", + Monopoly {"ranking", "assets", "winner"?} or
                                             {"from_table": TABLE_ID}; Catan {"points", "winner"?}}
Errors: `{error, rule, message}`: 400 malformed, 409 refused by a rule (C.TABLE.1, C.WIN.1, M.END.4, ...) or
by the event's state, 404 no such event.

The store: config `EVENTS_DB` (an SQLAlchemy engine or a URL), else the store of the tables this app serves
(the table unit's own database, or the hall's PostgreSQL for a mirror), so `--from-table` works there.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from engine.errors import IllegalCommand, InvalidCommand
from engine.tournament import (
    CatanResult,
    MonopolyResult,
    Tournament,
    place_points,
    results_csv,
    standings,
    standings_csv,
    table_places,
    tournament_to_json,
)
from tableside.commands.event import (
    EventConflict,
    EventNameAmbiguous,
    EventNotFound,
    Stored,
    all_events,
    change_tournament,
    create_tournament,
    load_event,
    record,
    result_from_body,
    result_from_table,
    seat_next,
)
from web import i18n
from web.pages import carry_lang, csrf_ok

bp = Blueprint("events", __name__, template_folder="templates")

ORGANISER_HEADER = "X-Organiser-Pin"
ORGANISER_KEY = "organiser"  # session["organiser"]: True after the organiser login


# ---- store and credentials ----


def _db() -> Any:
    ext = current_app.extensions
    if "tableside_events_db" not in ext:
        configured = current_app.config.get("EVENTS_DB")
        if isinstance(configured, str):
            from hardware import store

            configured = store.open_store(configured)
        if configured is None:
            reg = ext["tableside"]
            configured = getattr(reg, "db", None)
            if configured is None:
                tables = reg.tables()
                configured = getattr(tables[0], "db", None) if tables else None
        if configured is None:
            abort(503, description="no store for tournament events (set EVENTS_DB)")
        ext["tableside_events_db"] = configured
    return ext["tableside_events_db"]


def _secret(config_key: str, env_key: str) -> str:
    value = current_app.config.get(config_key) or os.environ.get(env_key) or ""
    return str(value)


def _pin_ok(pin: str) -> bool:
    expected = _secret("ORGANISER_PIN", "TABLESIDE_ORGANISER_PIN")
    return bool(expected) and hmac.compare_digest(pin.encode(), expected.encode())


def _token_ok(token: str) -> bool:
    expected = _secret("ADMIN_TOKEN", "TABLESIDE_ADMIN_TOKEN")
    return bool(expected) and hmac.compare_digest(token.encode(), expected.encode())


def is_organiser() -> bool:
    return bool(session.get(ORGANISER_KEY))


def _check_api_writer() -> None:
    """401 without credentials, 403 with wrong ones; a session's write needs the CSRF header."""
    pin = request.headers.get(ORGANISER_HEADER)
    auth = request.headers.get("Authorization", "")
    if pin is not None:
        if not _pin_ok(pin):
            abort(403, description="wrong organiser PIN")
        return
    if auth.startswith("Bearer "):
        if not _token_ok(auth[7:].strip()):
            abort(403, description="wrong admin token")
        return
    if not is_organiser():
        abort(401, description=f"organisers only: send the organiser PIN in {ORGANISER_HEADER}, an admin "
                               "token (Authorization: Bearer), or log in at /events/login")
    if not csrf_ok():
        abort(403, description="missing or wrong CSRF token (X-CSRF-Token)")


def _err(status: int, error: str, message: str, rule: str | None = None) -> Response:
    response = jsonify({"error": error, "rule": rule, "message": message})
    response.status_code = status
    return response


def _api(fn: Callable[[], Any]) -> Any:
    """Run an API write; the tournament's refusals become `{error, rule, message}`."""
    try:
        return fn()
    except EventNotFound as e:
        return _err(404, "not_found", str(e))
    except EventConflict as e:
        return _err(409, "conflict", str(e))
    except IllegalCommand as e:
        return _err(409, "illegal", str(e), e.rule)
    except InvalidCommand as e:
        return _err(400, "invalid", str(e))


# ---- read-outs ----


def event_json(st: Stored) -> dict[str, Any]:
    e = st.event
    data = tournament_to_json(e)
    for r_json, rnd in zip(data["rounds"], e.rounds, strict=True):
        r_json["complete"] = rnd.complete
        for t_json, table in zip(r_json["tables"], rnd.tables, strict=True):
            result = rnd.results.get(table.number)
            t_json["result"] = None if result is None else result.to_json()
            if result is not None:
                places = table_places(result)
                t_json["places"] = places
                t_json["points"] = {p: place_points(n, len(table.players)) for p, n in places.items()}
    return {
        "id": st.event_id,
        "version": st.version,
        **data,
        "standings": [s.to_json() for s in standings(e)],
        "links": {
            "page": url_for("events.detail", event_id=st.event_id),
            "results_csv": url_for("events.results_download", event_id=st.event_id),
            "standings_csv": url_for("events.standings_download", event_id=st.event_id),
        },
    }


def _load(event_id: str) -> Stored:
    try:
        return load_event(_db(), event_id)
    except EventNameAmbiguous as e:
        i18n.refuse(404, "why_event_named_twice", english=str(e), event=event_id)
    except EventNotFound:
        # (The CLI's wording points at `tableside event list`; a page's reader gets the reason alone.)
        i18n.refuse(404, "why_no_event", event=event_id)


def _csv(text: str, filename: str) -> Response:
    """A download, UTF-8 with a byte-order mark: Excel on a Japanese Windows reads a CSV without one as Shift_JIS
    and garbles every Japanese name in it; spreadsheets and Python's csv (utf-8-sig) take the mark in their stride.
    (The command line's `--csv` prints no mark: its output goes to scripts and pipes.)"""
    return Response(("\ufeff" + text).encode("utf-8"), content_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


# ---- JSON API ----


@bp.get("/api/events")
def api_list() -> Response:
    return jsonify({"events": [
        {"id": st.event_id, "name": st.event.name, "game": st.event.game, "players": len(st.event.players),
         "rounds": len(st.event.rounds), "version": st.version,
         "url": url_for("events.api_event", event_id=st.event_id)}
        for st in all_events(_db())
    ]})


@bp.get("/api/events/<event_id>")
def api_event(event_id: str) -> Response:
    return jsonify(event_json(_load(event_id)))


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise InvalidCommand("the body must be a JSON object")
    return body


def _players(value: Any) -> list[str]:
    if isinstance(value, str):
        return [n.strip() for n in value.replace("\n", ",").split(",") if n.strip()]
    if isinstance(value, list) and all(isinstance(n, str) for n in value):
        return [n.strip() for n in value]
    raise InvalidCommand("players: a list of names or one comma-separated string")


def _create(body: dict[str, Any], actor: str) -> Stored:
    minutes = body.get("minutes")
    try:
        minutes_f = None if minutes in (None, "") else float(minutes)
        seed = int(body.get("seed") or 0)
    except (TypeError, ValueError):
        raise InvalidCommand("minutes and seed must be numbers") from None
    return create_tournament(_db(), name=str(body.get("name") or ""), game=str(body.get("game") or ""),
                             players=_players(body.get("players", [])), minutes=minutes_f, seed=seed,
                             asset_lead_wins=bool(body.get("asset_lead_wins")), actor=actor)


def _record(event_id: str, round_no: Any, table_no: Any, body: dict[str, Any], actor: str) -> Stored:
    try:
        r, t = int(round_no), int(table_no)
    except (TypeError, ValueError):
        raise InvalidCommand("round and table must be numbers") from None
    current = load_event(_db(), event_id)
    from_table = body.get("from_table")
    result: MonopolyResult | CatanResult
    if from_table:
        result = result_from_table(_db(), str(from_table), current.event)
    else:
        result = result_from_body(current.event, body)
    command: dict[str, Any] = {"type": "result", "round": r, "table": t, "result": result.to_json()}
    if from_table:
        command["from_table"] = str(from_table)

    def apply(e: Tournament) -> Tournament:
        return record(e, r, t, result)

    return change_tournament(_db(), event_id, command, apply, actor=actor, expected_version=current.version)


@bp.post("/api/events")
def api_create() -> Any:
    _check_api_writer()

    def go() -> Any:
        st = _create(_body(), "api")
        return jsonify(event_json(st)), 201

    return _api(go)


@bp.post("/api/events/<event_id>/seat")
def api_seat(event_id: str) -> Any:
    _check_api_writer()
    return _api(lambda: jsonify(event_json(change_tournament(_db(), event_id, {"type": "seat"}, seat_next,
                                                             actor="api"))))


@bp.post("/api/events/<event_id>/results")
def api_result(event_id: str) -> Any:
    _check_api_writer()

    def go() -> Any:
        body = _body()
        return jsonify(event_json(_record(event_id, body.get("round"), body.get("table"), body, "api")))

    return _api(go)


# ---- pages ----


def _page_data() -> dict[str, Any]:
    return {"i18n": i18n.bundle(g.lang)}


def _message(exc: Exception) -> tuple[str, int]:
    if isinstance(exc, IllegalCommand):
        return i18n.rule_message(exc.rule, exc.detail, g.lang), 409
    if isinstance(exc, EventConflict):
        return str(exc), 409
    return str(exc), 400


def _form_writer() -> Any:
    """None when this form post may go ahead; else the response to send (login page, or 400 on CSRF)."""
    if not csrf_ok():
        i18n.refuse(400, "why_csrf")
    if not is_organiser():
        return redirect(url_for("events.login", next=request.path))
    return None


@bp.get("/events")
def index() -> str:
    return render_template("events.html", events=all_events(_db()), organiser=is_organiser(), error=None,
                           form={}, data=_page_data())


@bp.post("/events")
def create() -> Any:
    stop = _form_writer()
    if stop is not None:
        return stop
    form = request.form.to_dict()
    try:
        st = _create({**form, "asset_lead_wins": form.get("asset_lead_wins") == "on"}, "organiser")
    except (InvalidCommand, IllegalCommand, EventConflict) as e:
        message, status = _message(e)
        return render_template("events.html", events=all_events(_db()), organiser=True, error=message,
                               form=form, data=_page_data()), status
    return redirect(url_for("events.detail", event_id=st.event_id))


def _detail(st: Stored, error: str | None = None, status: int = 200) -> Any:
    return render_template("events_detail.html", st=st, e=st.event, view=event_json(st), organiser=is_organiser(),
                           error=error, data=_page_data()), status


@bp.get("/events/<event_id>")
def detail(event_id: str) -> Any:
    return _detail(_load(event_id))


@bp.post("/events/<event_id>/seat")
def seat(event_id: str) -> Any:
    stop = _form_writer()
    if stop is not None:
        return stop
    try:
        change_tournament(_db(), event_id, {"type": "seat"}, seat_next, actor="organiser")
    except (InvalidCommand, IllegalCommand, EventConflict) as e:
        message, status = _message(e)
        return _detail(_load(event_id), message, status)
    return redirect(url_for("events.detail", event_id=event_id))


@bp.post("/events/<event_id>/rounds/<int:round_no>/tables/<int:table_no>/result")
def result(event_id: str, round_no: int, table_no: int) -> Any:
    stop = _form_writer()
    if stop is not None:
        return stop
    st = _load(event_id)
    f = request.form
    try:
        players = st.event.round(round_no).table(table_no).players
        body: dict[str, Any] = {"winner": f.get("winner") or None}
        if f.get("from_table", "").strip():
            body["from_table"] = f["from_table"].strip()
        elif st.event.game == "catan":
            body["points"] = {p: f.get(f"points_{i}", "") for i, p in enumerate(players)}
        else:
            places = {p: f.get(f"place_{i}", "") for i, p in enumerate(players)}
            try:
                order = sorted(players, key=lambda p: int(places[p]))
            except ValueError:
                raise InvalidCommand("every player needs a place (1, 2, ...)") from None
            if sorted(int(v) for v in places.values()) != list(range(1, len(players) + 1)):
                raise InvalidCommand(f"the places must be 1 to {len(players)}, each once (M.END.4)")
            body["ranking"] = order
            body["assets"] = {p: f.get(f"assets_{i}", "") for i, p in enumerate(players)}
        _record(event_id, round_no, table_no, body, "organiser")
    except (InvalidCommand, IllegalCommand, EventConflict) as e:
        message, status = _message(e)
        return _detail(_load(event_id), message, status)
    return redirect(url_for("events.detail", event_id=event_id) + f"#round-{round_no}")


@bp.get("/events/<event_id>/results.csv")
def results_download(event_id: str) -> Response:
    st = _load(event_id)
    return _csv(results_csv(st.event), f"{st.event_id}-results.csv")


@bp.get("/events/<event_id>/standings.csv")
def standings_download(event_id: str) -> Response:
    st = _load(event_id)
    return _csv(standings_csv(st.event), f"{st.event_id}-standings.csv")


@bp.route("/events/login", methods=["GET", "POST"])
def login() -> Any:
    error = None
    nxt = request.values.get("next") or url_for("events.index")
    if not nxt.startswith("/") or nxt.startswith("//"):
        nxt = url_for("events.index")
    # With no organiser PIN set, no PIN can be right: the page says how to set one instead of "wrong PIN".
    unset = not _secret("ORGANISER_PIN", "TABLESIDE_ORGANISER_PIN")
    if request.method == "POST":
        if not csrf_ok():
            i18n.refuse(400, "why_csrf")
        if _pin_ok(request.form.get("pin", "").strip()):
            session[ORGANISER_KEY] = True
            return redirect(carry_lang(nxt))
        error = i18n.t("organiser_unset" if unset else "wrong_pin", g.lang)
    return render_template("events_login.html", error=error, next=nxt, unset=unset, data=_page_data()), \
        403 if error else 200


@bp.post("/events/logout")
def logout() -> Any:
    if not csrf_ok():
        i18n.refuse(400, "why_csrf")
    session.pop(ORGANISER_KEY, None)
    return redirect(url_for("events.index"))
