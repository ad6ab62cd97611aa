"""`tavli-board web`: the companion's pages and API, a Starlette application served by uvicorn.

    app = create_app(config)                 # the service's socket, journal and config file from `config`
    uvicorn.run(app, host=config.web.host, port=config.web.port)

Pages (HTML from `pages.py`, the script and style from `static/`, nothing from elsewhere): Live,
Match, History, Settings, Status. The live board comes as server-sent events (`/events`): each
snapshot of the service with the board drawn as SVG once for every browser. Changes are plain
JSON POSTs, each checked and answered with a 4xx and one clear message when wrong:

- the body must be JSON (`Content-Type: application/json`), at most `MAX_BODY` bytes, an object;
- every POST must carry the CSRF token the page was given (a cookie and the same value in the
  `X-CSRF-Token` header: another site can make a browser send the cookie, never read it) and, when
  the browser names one, the page's own origin;
- changing settings, starting a match, the self-test and the bug report need the PIN of `[web] pin`
  (stored hashed; no PIN set: read-only), with wrong tries limited per client and in total
  (`guard.PinGuard`).

Every request must name this board as its Host (`guard.HostCheck`: served names, this machine's
addresses, `[web] hosts`). Viewing needs nothing more. The journal is read read-only (`JournalReader`).
"""
from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (FileResponse, HTMLResponse, JSONResponse, Response,
                                 StreamingResponse)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware_host import __version__
from firmware_host.config import BUILT_IN, Config, ConfigError, pin_matches
from firmware_host.controller.numbering import play_text
from firmware_host.controller.orientation import Orientation, laid_out
from firmware_host.journal import dicestats
from firmware_host.journal.events import move_from_json
from firmware_host.journal.export import UnreadableMatch, fold, gnubg_match, match_json, match_status, one_match
from firmware_host.journal.store import JournalError, JournalReader
from firmware_host.leds.palette import PALETTES
from firmware_host.leds.scene import DiceSignal, Mark, Scene, Score
from firmware_host.leds.svg import board_svg
from firmware_host.rules import Position, dice_text
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.addresses import lan_urls, qr_svg
from firmware_host.service.bugreport import build_bug_report
from firmware_host.web import pages
from firmware_host.web.guard import HostCheck, PinGuard, client_key, served_names
from firmware_host.web.link import ServiceLink, ServiceUnavailable
from firmware_host.web.settings import SettingsRefused, save_settings, settings_form

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
MAX_QUERY = 8 * 1024
BODY_TIMEOUT_S = 10.0
STREAM_KEEPALIVE_S = 15.0     # a comment on a quiet event stream, so that proxies keep it open
CSRF_COOKIE, CSRF_HEADER = "tavli_csrf", "x-csrf-token"
STATIC = Path(__file__).resolve().parent / "static"
HISTORY_SHOWN = 200


class Refused(HTTPException):
    """A request answered with a 4xx status and one line saying why."""


class Companion:
    """The application's state: the configuration, the link to the service, the SVG of the newest snapshot."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.link = ServiceLink(config.web.socket)
        self._svg_of: tuple[int, str] | None = None
        self.pin_guard = PinGuard()

    # -- the live board ------------------------------------------------------------------------------

    def snapshot_svg(self, snapshot: dict[str, Any]) -> str:
        """The board of a snapshot as SVG, drawn once per snapshot whatever the number of browsers."""
        if self._svg_of is None or self._svg_of[0] != snapshot["seq"]:
            self._svg_of = (snapshot["seq"], view_svg(snapshot))
        return self._svg_of[1]

    # -- checks -----------------------------------------------------------------------------------------

    async def check_pin(self, request: Request, body: dict[str, Any]) -> None:
        await check_pin(self.pin_guard, self.config.web.pin, request, body)


async def check_pin(guard: PinGuard, stored: str | None, request: Request, body: dict[str, Any]) -> None:
    """The PIN of the body against `stored` (`[web] pin`, or the club hub's); a 4xx when it is missing
    or wrong, or after too many wrong ones (from this client, or from all: `guard.PinGuard`). The hash
    (scrypt, 16 MiB, tens of ms) is worked out off the event loop."""
    if stored is None:
        raise Refused(403, "changes are turned off: no PIN is set in the configuration ([web] pin, made by "
                           "`tavli-board web-pin`)")
    pin = body.get("pin")
    if not isinstance(pin, str) or not pin:
        raise Refused(401, "the PIN is needed for this change")
    client = client_key(request.client.host if request.client else None)
    refusal = guard.refusal(client)
    if refusal is not None:
        raise Refused(429, refusal)
    tried_at = guard.tried(client)
    if len(pin) > 128 or not await asyncio.to_thread(pin_matches, stored, pin):
        raise Refused(403, "wrong PIN")
    guard.right(client, tried_at)


def view_svg(snapshot: dict[str, Any]) -> str:
    """The board of a snapshot, or of a board's view as the club hub receives it (`GameView.to_json`):
    the checkers as the sensors read them, the LEDs' marks, dice, turn and score."""
    reading = BoardReading.from_json(snapshot["reading"]) if snapshot.get("reading") else None
    scene = snapshot["scene"]
    score = scene["score"]
    drawn = Scene({location: Mark(mark) for location, mark in scene["marks"].items()},
                  None if scene["dice"] is None else tuple(scene["dice"]),
                  None if scene["dice_signal"] is None else DiceSignal(scene["dice_signal"]), scene["turn"],
                  None if score is None else Score(score["white"], score["black"], score["target"]))
    # The points as the board labels them, as the lights and the guidance words name them.
    return board_svg(reading, drawn, palette=snapshot.get("palette", "standard"))


# == request helpers ==========================================================================================

async def json_body(request: Request) -> dict[str, Any]:
    """The POST's JSON object, after the CSRF checks; a 4xx for anything else."""
    check_csrf(request)
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Refused(415, "send JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refused(413, f"the request body is larger than {MAX_BODY} bytes")
    body = b""
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):      # a body sent slowly must not hold a connection
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    raise Refused(413, f"the request body is larger than {MAX_BODY} bytes")
    except TimeoutError:
        raise Refused(408, f"the request body did not arrive within {BODY_TIMEOUT_S:g} s") from None
    data = parse_json(body, "the body is not JSON")
    if not isinstance(data, dict):
        raise Refused(400, "the body must be a JSON object")
    return data


def parse_json(text: str | bytes, refusal: str) -> Any:
    """`text` as JSON; a 400 starting with `refusal` when it is not UTF-8 JSON that Python reads."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise Refused(400, f"{refusal}: {error}") from None
    except UnicodeDecodeError:
        raise Refused(400, f"{refusal}: not UTF-8") from None
    except ValueError:   # int() refuses a number this long (a denial-of-service guard of Python's)
        raise Refused(400, f"{refusal}: a number is longer than {sys.get_int_max_str_digits()} digits") from None
    except RecursionError:
        raise Refused(400, f"{refusal}: nested too deeply") from None


def check_csrf(request: Request) -> None:
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
        raise Refused(403, "refused: the request came from another site")
    cookie, header = request.cookies.get(CSRF_COOKIE, ""), request.headers.get(CSRF_HEADER, "")
    if not cookie or not hmac.compare_digest(cookie.encode(), header.encode()):
        raise Refused(403, "refused: the page's CSRF token is missing or wrong (reload the page)")


def html_page(request: Request, html: str) -> HTMLResponse:
    """A page, with the CSRF token its script sends back (a new one unless the browser has one)."""
    response = HTMLResponse(html, headers={
        "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                   "frame-ancestors 'none'; form-action 'self'",
        "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"})
    if not request.cookies.get(CSRF_COOKIE):
        response.set_cookie(CSRF_COOKIE, secrets.token_urlsafe(24), samesite="strict", httponly=False)
    return response


def _query(request: Request, name: str) -> str | None:
    if len(request.url.query) > MAX_QUERY:
        raise Refused(414, f"the query is longer than {MAX_QUERY} bytes")
    return request.query_params.get(name)


def _journal(companion: Companion) -> JournalReader:
    try:
        return JournalReader.open(companion.config.journal_path)
    except JournalError as error:
        raise Refused(404, str(error)) from None


def _match_id(reader: JournalReader, text: str) -> int:
    # ASCII digits only: "²" and "٣" are digits to str.isdigit, and int() or the header refuses them.
    if not (text.isascii() and text.isdigit()) or int(text) not in reader.match_ids():
        raise Refused(404, f"no match {text!r} in the journal")
    return int(text)


# == pages ===========================================================================================================

def page(name: str):
    async def endpoint(request: Request) -> Response:
        return html_page(request, pages.render(name, version=__version__))
    return endpoint


# == the live board ===============================================================================================

async def events(request: Request) -> Response:
    """Server-sent events: `snapshot` with the service's snapshot, its SVG and whether the service is
    there now (`live`: false for the last snapshot of a service gone), `link` whenever the service is
    unreachable; a comment every 15 s keeps proxies from closing the stream."""
    companion: Companion = request.app.state.companion

    async def stream():
        if not companion.link.connected:
            yield sse_event("link", {"connected": False})
        subscription = companion.link.subscribe()
        # The wait for the next snapshot outlives each keep-alive comment: cancelling it would end the
        # subscription (a cancelled generator is closed), and the stream with an error 15 s later.
        waiting: asyncio.Future | None = None
        try:
            while True:
                waiting = waiting or asyncio.ensure_future(anext(subscription))
                done, _ = await asyncio.wait({waiting}, timeout=STREAM_KEEPALIVE_S)
                if not done:
                    yield ": still here\n\n"
                    continue
                snapshot, waiting = waiting.result(), None
                if snapshot is None:
                    yield sse_event("link", {"connected": False})
                    continue
                yield sse_event("snapshot", {"snapshot": snapshot, "svg": companion.snapshot_svg(snapshot),
                                        "live": companion.link.connected})
        finally:
            if waiting is not None:
                waiting.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await waiting
            await subscription.aclose()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def sse_event(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def api_snapshot(request: Request) -> Response:
    snapshot = request.app.state.companion.link.snapshot
    if snapshot is None:
        raise Refused(503, "no snapshot from the referee service yet (is it running?)")
    return JSONResponse(snapshot)


async def board(request: Request) -> Response:
    """The live board, or the position or reading given (query `position=`/`reading=` as JSON, or a
    POST body {"position": ...} / {"reading": ...}, with `orientation` and `palette`)."""
    companion: Companion = request.app.state.companion
    if request.method == "POST":
        given = await json_body(request)
    else:
        _query(request, "position")    # the length check
        given = dict(request.query_params)
        for name in ("position", "reading", "marks"):
            if name in given:
                given[name] = parse_json(given[name], f"{name}: not JSON")
    unknown = sorted(set(given) - {"position", "reading", "orientation", "palette", "marks", "pin"})
    if unknown:
        raise Refused(400, f"unknown parameter {unknown[0]!r}; allowed: position, reading, orientation, palette, marks")
    if not {"position", "reading"} & set(given):
        snapshot = companion.link.snapshot
        if snapshot is None:
            raise Refused(503, "no live board: the referee service has not sent one yet (give a position)")
        return svg_response(companion.snapshot_svg(snapshot))
    return svg_response(_given_svg(given))


def _given_svg(given: dict[str, Any]) -> str:
    orientation_name = given.get("orientation", Orientation.AS_WIRED.value)
    try:
        orientation = Orientation(orientation_name)
    except (ValueError, TypeError):
        raise Refused(400, f"orientation {orientation_name!r} is not valid; allowed: "
                           f"{', '.join(o.value for o in Orientation)}") from None
    palette = given.get("palette", "standard")
    if not isinstance(palette, str) or palette not in PALETTES:
        raise Refused(400, f"palette {palette!r} is not valid; allowed: {', '.join(PALETTES)}")
    try:
        if "position" in given:
            position = Position.from_json(given["position"])
            reading, title = laid_out(position, orientation), f"{position.variant}, {position.turn} to play"
        else:
            reading, title = BoardReading.from_json(given["reading"]), "a board reading"
    except (ValueError, TypeError, AttributeError) as error:   # PositionError and ReadingError are ValueErrors
        raise Refused(400, f"{'position' if 'position' in given else 'reading'}: {error}") from None
    marks = given.get("marks", {})
    try:
        scene = Scene({location: Mark(mark) for location, mark in marks.items()}) if marks else None
    except (ValueError, AttributeError, TypeError) as error:
        raise Refused(400, f"marks: an object of location to mark ({', '.join(m.value for m in Mark)}): "
                           f"{error}") from None
    return board_svg(reading, scene, palette=palette, title=title)


def svg_response(text: str) -> Response:
    return Response(text, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


# == commands ===========================================================================================================

async def _service_command(companion: Companion, request: dict[str, Any]) -> dict[str, Any]:
    try:
        reply = await companion.link.command(request)
    except ServiceUnavailable as error:
        raise Refused(503, str(error)) from None
    if not reply.get("ok"):
        raise Refused(409, reply.get("error", "the service refused"))
    return reply


async def referee(request: Request) -> Response:
    body = await json_body(request)
    if set(body) - {"action"}:
        raise Refused(400, f"unknown key {sorted(set(body) - {'action'})[0]!r}; allowed: action")
    action = body.get("action")
    if action not in ("enter", "next", "leave"):
        raise Refused(400, f"action {action!r} is not valid; allowed: enter, next, leave")
    return JSONResponse(await _service_command(request.app.state.companion, {"command": "referee", "action": action}))


async def new_match(request: Request) -> Response:
    companion: Companion = request.app.state.companion
    body = await json_body(request)
    unknown = sorted(set(body) - {"pin", "match", "house_rules"})
    if unknown:
        raise Refused(400, f"unknown key {unknown[0]!r}; allowed: pin, match, house_rules")
    await companion.check_pin(request, body)
    command = {"command": "new_match", "match": body.get("match", {}), "house_rules": body.get("house_rules", {})}
    return JSONResponse(await _service_command(companion, command))


async def self_test(request: Request) -> Response:
    """The sensor MCU's self-test, asked of the service (its result comes in the next snapshots)."""
    companion: Companion = request.app.state.companion
    body = await json_body(request)
    if set(body) - {"pin"}:
        raise Refused(400, f"unknown key {sorted(set(body) - {'pin'})[0]!r}; allowed: pin")
    await companion.check_pin(request, body)
    return JSONResponse(await _service_command(companion, {"command": "self_test"}))


# == settings ===========================================================================================================

async def api_settings(request: Request) -> Response:
    return JSONResponse(settings_form(request.app.state.companion.config))


async def save(request: Request) -> Response:
    companion: Companion = request.app.state.companion
    body = await json_body(request)
    unknown = sorted(set(body) - {"pin", "settings"})
    if unknown:
        raise Refused(400, f"unknown key {unknown[0]!r}; allowed: pin, settings")
    await companion.check_pin(request, body)
    if companion.config.source == BUILT_IN:
        raise Refused(409, "the service runs on the built-in settings: there is no configuration file to change")
    try:
        # The parser reads the board file and the file is fsynced: off the event loop.
        config = await asyncio.to_thread(save_settings, Path(companion.config.source), body.get("settings"))
    except SettingsRefused as error:
        raise Refused(400, str(error)) from None
    except ConfigError as error:
        raise Refused(422, str(error)) from None
    companion.config = config
    try:
        applied = await companion.link.command({"command": "apply_settings"})
    except ServiceUnavailable as error:
        return JSONResponse({"saved": True, "applied": False, "message": f"{error}: the service reads the settings "
                                                                         "when it starts"})
    if not applied.get("ok"):
        return JSONResponse({"saved": True, "applied": False, "message": applied.get("error")})
    return JSONResponse({"saved": True, "applied": True, "changed": applied.get("changed", []),
                         "restart": applied.get("restart", []), "restarting": applied.get("restarting", False)})


# == match and history ===================================================================================================

def _plays(events: list) -> list[dict[str, Any]]:
    """Every game of a match with its plays in the position format's notation (docs/position-format.md)."""
    exported = match_json(events)
    games = []
    for game in exported["games"]:
        plays = []
        for event in game["events"]:
            if event.get("kind") == "play":
                moves = [move_from_json(move) for move in event.get("moves", [])]
                plays.append({"side": event["side"], "dice": event["dice"],
                              "text": f"{dice_text(event['dice'])}: {play_text(moves)}"})
        games.append({"number": game["number"], "variant": game["variant"], "result": game["result"], "plays": plays})
    return games


def _dice_stats(rolls: list[tuple[int, int]]) -> dict[str, Any]:
    test = dicestats.roll_test(rolls)
    faces = [dicestats.face_test(roll[number] for roll in rolls) for number in (0, 1)]
    return {"rolls": len(rolls), "doubles": sum(1 for a, b in rolls if a == b),
            "faces": [{"face": outcome, "seen": seen, "expected": round(expected, 1)} for outcome, seen, expected in
                      dicestats.face_test([die for roll in rolls for die in roll]).counts],
            "p_value": round(test.p_value, 4) if rolls else None,
            "p_value_faces": [round(face.p_value, 4) if rolls else None for face in faces],
            "fair": None if not rolls else test.p_value >= 0.01}


async def api_match(request: Request) -> Response:
    companion: Companion = request.app.state.companion
    snapshot = companion.link.snapshot
    match_id = None if snapshot is None else snapshot["match"]["id"]
    if match_id is None:
        return JSONResponse({"match": None, "games": [], "dice": _dice_stats([]),
                             "message": "no game of this match has begun yet"})
    return JSONResponse(await asyncio.to_thread(_match_data, companion, match_id))


def _match_data(companion: Companion, match_id: int) -> dict[str, Any]:
    with _journal(companion) as reader:
        events = reader.match_events(match_id)
        rolls = reader.rolls(match_id)
    return {"match": match_id, "games": _plays(events), "dice": _dice_stats(rolls)}


async def api_history(request: Request) -> Response:
    return JSONResponse(await asyncio.to_thread(_history, request.app.state.companion))


def _history(companion: Companion) -> dict[str, Any]:
    with contextlib.suppress(Refused):
        with _journal(companion) as reader:
            summaries = reader.summaries()
        matches = []
        for match_id in sorted(summaries, reverse=True)[:HISTORY_SHOWN]:
            try:
                matches.append(_history_entry(summaries[match_id]))
            except UnreadableMatch as error:   # a damaged record: said for that match, the others listed
                matches.append({"match": match_id, "started_at": summaries[match_id][0].at, "sequence": [],
                                "target": None, "status": "cannot be read", "winner": None,
                                "score": {"white": 0, "black": 0}, "games": 0, "error": str(error)})
        return {"matches": matches}
    return {"matches": [], "message": f"no journal yet at {companion.config.journal_path}"}


@one_match
def _history_entry(events: list) -> dict[str, Any]:
    progress = fold(events)
    rules = events[0].data["rules"]
    return {"match": events[0].match_id, "started_at": events[0].at, "sequence": list(rules["sequence"]),
            "target": rules["target"], "status": match_status(progress),
            "winner": None if progress.match.winner is None else progress.match.winner.value,
            "score": {color.value: points for color, points in progress.match.score.items()},
            "games": len(progress.match.games)}


async def export(request: Request) -> Response:
    companion: Companion = request.app.state.companion
    match_text, kind = request.path_params["match"], request.path_params["format"]
    if kind not in ("json", "mat"):
        raise Refused(404, f"no export .{kind}: the exports are .json and .mat")

    def build() -> tuple[str, str]:
        with _journal(companion) as reader:
            events = reader.match_events(_match_id(reader, match_text))
        try:
            if kind == "json":
                return json.dumps(match_json(events), indent=2, sort_keys=True) + "\n", "application/json"
            text, _notes = gnubg_match(events)
        except ValueError as error:   # UnreadableMatch, NothingToWrite: the match cannot be written so
            raise Refused(409, str(error)) from None
        return text + "\n", "text/plain"

    text, media_type = await asyncio.to_thread(build)
    return Response(text, media_type=media_type,
                    headers={"Content-Disposition": f'attachment; filename="tavli-match-{match_text}.{kind}"'})


# == status ==================================================================================================================

async def api_status(request: Request) -> Response:
    companion: Companion = request.app.state.companion
    snapshot = companion.link.snapshot
    journal = companion.config.journal_path
    sizes = {path.name: path.stat().st_size for path in journal.parent.glob(journal.name + "*") if path.is_file()} \
        if journal.parent.is_dir() else {}
    return JSONResponse({
        "version": __version__, "service": companion.link.connected,
        "status": None if snapshot is None else snapshot["status"],
        "link": None if snapshot is None else snapshot["link"],
        "faults": None if snapshot is None else snapshot["faults"],
        "journal": {"path": str(journal), "bytes": sum(sizes.values()), "files": sizes},
        "config": companion.config.source, "browsers": companion.link.streams,
        "phone_urls": lan_urls(companion.config.web.host, companion.config.web.port)})


async def phone_qr(request: Request) -> Response:
    """The QR code of the address a phone on the local network opens (the Status page shows it)."""
    companion: Companion = request.app.state.companion
    urls = lan_urls(companion.config.web.host, companion.config.web.port)
    if not urls:
        raise Refused(404, "the companion listens on this machine only ([web] host): no address for a phone")
    svg = qr_svg(urls[0])
    if svg is None:
        raise Refused(404, "no QR code: the segno package is not installed")
    return Response(svg, media_type="image/svg+xml", headers={"X-Content-Type-Options": "nosniff"})


async def bug_report(request: Request) -> Response:
    """The bug report (`tavli-board bug-report`, no secret in it) for a POST with the PIN: it holds the
    journal and the configuration."""
    companion: Companion = request.app.state.companion
    if request.method != "POST":
        raise Refused(401, "the bug report needs the PIN: ask for it on the Status page (a POST with the PIN)")
    body = await json_body(request)
    if set(body) - {"pin"}:
        raise Refused(400, f"unknown key {sorted(set(body) - {'pin'})[0]!r}; allowed: pin")
    await companion.check_pin(request, body)
    folder = Path(tempfile.mkdtemp(prefix="tavli-web-report-"))
    source = None if companion.config.source == BUILT_IN else Path(companion.config.source)
    output = await asyncio.to_thread(build_bug_report, source, folder / "tavli-board-bug-report.tar.gz")

    def clean() -> None:
        output.unlink(missing_ok=True)
        folder.rmdir()
    return FileResponse(output, filename=output.name, media_type="application/gzip", background=BackgroundTask(clean))


# == the application =========================================================================================================

async def refused(request: Request, error: HTTPException) -> Response:
    return JSONResponse({"error": error.detail}, status_code=error.status_code)


def create_app(config: Config) -> Starlette:
    companion = Companion(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        task = asyncio.create_task(companion.link.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await companion.link.close()

    routes = [
        *[Route(path, page(name)) for name, path in pages.PATHS.items()],
        Route("/events", events),
        Route("/board.svg", board, methods=["GET", "POST"]),
        Route("/api/snapshot", api_snapshot),
        Route("/api/referee", referee, methods=["POST"]),
        Route("/api/new-match", new_match, methods=["POST"]),
        Route("/api/self-test", self_test, methods=["POST"]),
        Route("/api/settings", api_settings),
        Route("/api/settings", save, methods=["POST"]),
        Route("/api/match", api_match),
        Route("/api/history", api_history),
        Route("/history/{match}.{format:str}", export),
        Route("/api/status", api_status),
        Route("/phone-qr.svg", phone_qr),
        Route("/bug-report", bug_report, methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: refused},
                    middleware=[Middleware(HostCheck, names=served_names(config.web.hosts, config.web.host))])
    app.state.companion = companion
    return app
