"""Flask application: dashboard, clerk console, hall display, JSON API, live push.

The interface between the table service and the web layer is written out in docs/service-web-contract.md:
code exactly to it. `create_app` is the factory; the tables it serves come in a `TableRegistry`
(`app.extensions["tableside"]`); every blueprint named in `BLUEPRINTS` is registered.
"""

from __future__ import annotations

import importlib
import os
import secrets
from typing import TYPE_CHECKING, Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

if TYPE_CHECKING:
    from flask.typing import ResponseReturnValue

    from hardware.service import TableRegistry

# "module:attribute" of each blueprint; the pages engineer appends the pages' blueprints here.
BLUEPRINTS: tuple[str, ...] = ("web.api:bp", "web.pages:bp", "web.events:bp")


class ConfigError(RuntimeError):
    """The app can't be configured safely (e.g. no secret key outside test or demo mode)."""


def create_app(test_config: dict[str, Any] | None = None, registry: TableRegistry | None = None) -> Flask:
    from hardware.service import TableRegistry

    app = Flask(__name__)
    app.config.from_mapping(JSON_SORT_KEYS=False, MAX_CONTENT_LENGTH=1 << 20, DEMO=False)
    if test_config:
        app.config.from_mapping(test_config)
    secret = app.config.get("SECRET_KEY") or os.environ.get("TABLESIDE_SECRET_KEY")
    if not secret:
        if not (app.config.get("TESTING") or app.config.get("DEMO")):
            raise ConfigError("no secret key: set TABLESIDE_SECRET_KEY (any long random string) for the "
                              "clerk sessions, or run the demo table")
        # Test and demo mode: a random key per run (clerk logins last as long as the process).
        secret = secrets.token_hex(32)
    app.config["SECRET_KEY"] = secret
    app.extensions["tableside"] = registry if registry is not None else TableRegistry()

    for spec in BLUEPRINTS:
        module, _, attr = spec.partition(":")
        app.register_blueprint(getattr(importlib.import_module(module), attr or "bp"))
    _register_errors(app)
    return app


def registry_of(app: Flask) -> TableRegistry:
    reg: TableRegistry = app.extensions["tableside"]
    return reg


def _error_page(exc: HTTPException) -> ResponseReturnValue:
    from flask import g, make_response, render_template

    from web import i18n

    lang = getattr(g, "lang", i18n.DEFAULT_LANG)
    code = exc.code or 500
    key = f"error_{code}" if f"error_{code}" in i18n.UI else "error_other"
    # Werkzeug's stock descriptions speak to a developer; our own (abort(404, description=...)) name the thing.
    stock = type(exc).description
    detail = i18n.reason(exc, lang) or (exc.description if exc.description and exc.description != stock else "")
    response = make_response(render_template("error.html", status=code, heading=i18n.t(key, lang), detail=detail,
                                             data={"i18n": i18n.bundle(lang)}), code)
    for name, value in exc.get_headers():  # Allow on a 405, Retry-After, WWW-Authenticate...
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


def _register_errors(app: Flask) -> None:
    """Engine errors become JSON `{error, rule, message}`: 400 for a malformed command, 409 for one the
    rules refuse. The message is one line."""
    from engine.errors import IllegalCommand, InvalidCommand
    from hardware.errors import one_line

    @app.errorhandler(IllegalCommand)
    def _illegal(exc: IllegalCommand) -> ResponseReturnValue:
        return jsonify(error="illegal", rule=exc.rule, message=one_line(exc)), 409

    @app.errorhandler(InvalidCommand)
    def _invalid(exc: InvalidCommand) -> ResponseReturnValue:
        return jsonify(error="invalid", rule=None, message=one_line(exc)), 400

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> ResponseReturnValue:
        # JSON for the API; the pages get a page of ours, in the reader's language, with a way back.
        from flask import request

        if request.path.startswith("/api/"):
            name = (exc.name or "error").lower().replace(" ", "_")
            return jsonify(error=name, rule=None, message=one_line(Exception(exc.description or name))), \
                exc.code or 500
        if exc.code is None or exc.code < 400:
            return exc  # a redirect
        return _error_page(exc)
