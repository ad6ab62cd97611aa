"""The club hub's pages (`tavli-board club hub`): the café screen, the club's history, the ladder and
the tournaments, a Starlette application behind the companion's doors.

    app = create_hub_app(config, store, listener)   # the hub's configuration, records and ear on the broker
    serve(app, listen(config.web_host, config.web_port))      # firmware_host/web/server.py

Pages (HTML from `pages.py`; the style and page kit from the companion's /static, the hub's script and
style from /hub): Tables (the café screen), History, Ladder, Tournaments. The café screen follows
server-sent events (`/events`): every table at first, then each table that changed as the listener
keeps what its board sent (worked out once, whatever the number of screens; at most `MAX_STREAMS`
screens at once), and fetches a table's drawing (`/tables/BOARD.svg?v=…`) only when its view changed. The director's changes are JSON POSTs with the companion's checks
(`web.app.json_body`: JSON, size, time, CSRF and Origin) and its PIN guard (`web.app.check_pin`,
`web.guard.PinGuard`: wrong PINs limited per client and in total); every request must name the hub as
its Host (`web.guard.HostCheck`); the server bounds every connection (`web.server`).
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import threading
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware_host import __version__
from firmware_host.club.tournament import TournamentError
from firmware_host.hub import pages, tournaments
from firmware_host.hub.config import HubConfig
from firmware_host.hub.listener import HubListener
from firmware_host.hub.store import HubStore
from firmware_host.web.app import (STATIC, STREAM_KEEPALIVE_S, Refused, check_pin, html_page, json_body, refused,
                                   sse_event, svg_response, view_svg)
from firmware_host.web.guard import HostCheck, PinGuard, served_names

log = logging.getLogger(__name__)

HUB_STATIC = Path(__file__).resolve().parent / "static"
MAX_STREAMS = 64           # café screens and phones watching at once
RECONNECT_MS = 3000        # a screen whose stream broke connects again after this
HISTORY_SHOWN = 200


class Tables:
    """The café screen's tables: each board's facts and drawing, brought up to date board by board as
    the listener keeps what the boards send (`changed`, from the broker's thread), worked out once
    however many screens watch."""

    def __init__(self, store: HubStore, boards: list[str], follows_listener: bool) -> None:
        self.store, self.boards = store, boards
        self.follows_listener = follows_listener    # else every look reads every board again
        self.entries: dict[str, dict[str, Any]] = {board: {"board": board, "online": False, "version": None}
                                                   for board in boards}
        self.drawings: dict[str, tuple[str, str]] = {}   # board -> (its view's version, the SVG)
        self.streams = 0
        self._dirty = set(boards)
        self._dirty_lock = threading.Lock()
        self._refreshing = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._change = asyncio.Event()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def changed(self, board: str) -> None:
        """A board's view, presence, records or seating changed (from any thread)."""
        with self._dirty_lock:
            self._dirty.add(board)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        self._change.set()
        self._change = asyncio.Event()     # each watcher waits on the event that was current when it looked

    def next_change(self) -> asyncio.Event:
        return self._change

    async def current(self) -> list[dict[str, Any]]:
        """Every table as it stands now (the boards changed since the last look worked out again)."""
        async with self._refreshing:
            with self._dirty_lock:
                dirty, self._dirty = self._dirty, set() if self.follows_listener else set(self.boards)
            if dirty:
                await asyncio.to_thread(self._refresh, sorted(dirty))
        return [self.entries[board] for board in self.boards]

    def _refresh(self, boards: list[str]) -> None:
        for table in self.store.tables(boards):
            view, board = table["view"], table["board"]
            entry = {"board": board, "online": table["online"], "version": None}
            if isinstance(view, dict):
                entry.update(table_facts(view))
                entry["version"] = self._draw(board, view)
                seated = self.store.seated(board, entry["match"]) if isinstance(entry["match"], int) else None
                entry["players"] = {"white": seated and seated[0], "black": seated and seated[1]}
            self.entries[board] = entry

    def _draw(self, board: str, view: dict[str, Any]) -> str | None:
        """The version of the board's drawing (None: its view cannot be drawn), drawn once per view."""
        version = hashlib.sha256(json.dumps(view, sort_keys=True).encode()).hexdigest()[:16]
        if self.drawings.get(board, ("",))[0] != version:
            try:
                self.drawings[board] = (version, view_svg(view))
            except (KeyError, TypeError, ValueError, AttributeError) as error:   # a view of another version
                log.warning("hub: %s's view cannot be drawn: %s", board, str(error)[:200])
                self.drawings.pop(board, None)
                return None
        return version

    def drawing(self, board: str) -> str | None:
        known = self.drawings.get(board)
        return None if known is None else known[1]


class Hub:
    """The application's state: the configuration, the records, the PIN guard, the tables."""

    def __init__(self, config: HubConfig, store: HubStore, listener: HubListener | None) -> None:
        self.config, self.store = config, store
        self.pin_guard = PinGuard()
        self.tables = Tables(store, sorted(config.boards), follows_listener=listener is not None)
        if listener is not None:
            listener.on_change = self.tables.changed

    async def check_pin(self, request: Request, body: dict[str, Any]) -> None:
        await check_pin(self.pin_guard, self.config.pin, request, body)


def table_facts(view: dict[str, Any]) -> dict[str, Any]:
    """What the café screen says of a table, from its view (`GameView.to_json`; a field missing: None)."""
    match = view.get("match") if isinstance(view.get("match"), dict) else {}
    game = view.get("game") if isinstance(view.get("game"), dict) else {}
    position = view.get("position") if isinstance(view.get("position"), dict) else {}
    return {"state": view.get("state"), "overlay_return": view.get("overlay_return"), "match": match.get("id"),
            "sequence": match.get("sequence"), "target": match.get("target"), "score": match.get("score"),
            "winner": match.get("winner"), "game": game.get("number"), "variant": game.get("variant"),
            "turn": position.get("turn"), "dice": view.get("dice"), "seats": view.get("seats")}


# == pages and reading ==========================================================================================

def page(name: str):
    async def endpoint(request: Request) -> Response:
        hub: Hub = request.app.state.hub
        return html_page(request, pages.render(name, club=hub.config.club, version=__version__))
    return endpoint


async def api_tables(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    return JSONResponse({"club": hub.config.club, "tables": await hub.tables.current()},
                        headers={"Cache-Control": "no-store"})


async def events(request: Request) -> Response:
    """Server-sent events for the café screen: `tables` with every table at first, then with the
    tables that changed, as they change; a comment every 15 s keeps proxies from closing the stream."""
    tables: Tables = request.app.state.hub.tables
    if tables.streams >= MAX_STREAMS:
        raise Refused(429, f"{MAX_STREAMS} screens watch already: try again later")

    async def stream():
        tables.streams += 1
        sent: dict[str, dict[str, Any]] = {}
        try:
            yield f"retry: {RECONNECT_MS}\n\n"
            while True:
                change = tables.next_change()       # taken before looking: a change meanwhile wakes at once
                fresh = [table for table in await tables.current() if sent.get(table["board"]) != table]
                if fresh:
                    sent.update((table["board"], table) for table in fresh)
                    yield sse_event("tables", {"tables": fresh})
                try:
                    await asyncio.wait_for(change.wait(), STREAM_KEEPALIVE_S)
                except TimeoutError:
                    yield ": still here\n\n"
        finally:
            tables.streams -= 1

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def table_svg(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    board = request.path_params["board"]
    if board in hub.config.boards:
        await hub.tables.current()
    svg = hub.tables.drawing(board) if board in hub.config.boards else None
    if svg is None:
        raise Refused(404, f"no drawing of {board[:40]!r}: not one of the club's boards, or no view from it yet")
    return svg_response(svg)


async def api_matches(request: Request) -> Response:
    matches = await asyncio.to_thread(request.app.state.hub.store.matches)
    return JSONResponse({"matches": matches[:HISTORY_SHOWN]})


async def api_ladder(request: Request) -> Response:
    ladder = await asyncio.to_thread(lambda: request.app.state.hub.store.ladder().to_json())
    return JSONResponse({"ladder": ladder})


async def api_tournaments(request: Request) -> Response:
    hub: Hub = request.app.state.hub

    def read() -> list[dict[str, Any]]:
        matches = hub.store.matches()
        return [tournaments.replay(row, matches).to_json() for row in hub.store.tournaments()]
    return JSONResponse({"tournaments": await asyncio.to_thread(read), "boards": sorted(hub.config.boards),
                         "director": hub.config.pin is not None})


# == the director's changes =================================================================================

def _allowed(body: dict[str, Any], keys: set[str]) -> None:
    unknown = sorted(set(body) - keys - {"pin"})
    if unknown:
        raise Refused(400, f"unknown key {unknown[0]!r}; allowed: pin, {', '.join(sorted(keys))}")


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise Refused(400, f"{key}: a name is needed")
    return value


async def _director(request: Request, keys: set[str]) -> tuple[Hub, dict[str, Any]]:
    """The checked body of a director's change, after the PIN."""
    hub: Hub = request.app.state.hub
    body = await json_body(request)
    _allowed(body, keys)
    await hub.check_pin(request, body)
    return hub, body


async def _act(hub: Hub, action, *args) -> Any:
    """A tournament action on the records; its refusal as a 4xx."""
    try:
        return await asyncio.to_thread(action, hub.store, *args)
    except LookupError as error:
        raise Refused(404, str(error.args[0])) from None
    except (TournamentError, ValueError) as error:
        raise Refused(409, str(error)) from None


def _tournament_number(request: Request) -> int:
    text = request.path_params["number"]
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise Refused(404, f"no tournament {text[:20]!r}")
    return int(text)


async def create_tournament(request: Request) -> Response:
    hub, body = await _director(request, {"name", "kind", "players", "rounds"})
    try:
        number = await asyncio.to_thread(tournaments.create, hub.store, body.get("name"), body.get("kind"),
                                         body.get("players"), body.get("rounds"))
    except TournamentError as error:
        raise Refused(400, str(error)) from None
    return JSONResponse({"id": number}, status_code=201)


async def seat_pairing(request: Request) -> Response:
    number = _tournament_number(request)
    hub, body = await _director(request, {"board", "first", "second"})
    board = _text(body, "board")
    if board not in hub.config.boards:
        raise Refused(404, f"{board[:40]!r} is not one of the club's boards; boards: {', '.join(sorted(hub.config.boards))}")
    key = await _act(hub, tournaments.seat, number, board, _text(body, "first"), _text(body, "second"))
    hub.tables.changed(board)      # the café screen names the players
    return JSONResponse({"board": key.board, "match": key.match, "white": body["first"], "black": body["second"]})


async def correct_result(request: Request) -> Response:
    number = _tournament_number(request)
    hub, body = await _director(request, {"round", "winner", "loser"})
    round_number = body.get("round")
    if not isinstance(round_number, int) or isinstance(round_number, bool):
        raise Refused(400, "round: the round's number, from 1")
    await _act(hub, tournaments.correct, number, round_number, _text(body, "winner"), _text(body, "loser"))
    for board in hub.config.boards:     # a match may have been seated the other way round
        hub.tables.changed(board)
    return JSONResponse({"corrected": True})


async def next_round(request: Request) -> Response:
    number = _tournament_number(request)
    hub, _ = await _director(request, set())
    await _act(hub, tournaments.pair_next, number)
    return JSONResponse({"paired": True})


# == the application ==========================================================================================

def create_hub_app(config: HubConfig, store: HubStore, listener: HubListener | None = None) -> Starlette:
    """The hub's pages on `store`; the café screen follows what `listener` keeps (None: the records as
    they stand when asked)."""
    hub = Hub(config, store, listener)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        hub.tables.attach(asyncio.get_running_loop())
        yield

    routes = [
        *[Route(path, page(name)) for name, path in pages.PATHS.items()],
        Route("/events", events),
        Route("/api/tables", api_tables),
        Route("/tables/{board}.svg", table_svg),
        Route("/api/matches", api_matches),
        Route("/api/ladder", api_ladder),
        Route("/api/tournaments", api_tournaments),
        Route("/api/tournaments", create_tournament, methods=["POST"]),
        Route("/api/tournaments/{number}/seat", seat_pairing, methods=["POST"]),
        Route("/api/tournaments/{number}/correct", correct_result, methods=["POST"]),
        Route("/api/tournaments/{number}/next-round", next_round, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Mount("/hub", StaticFiles(directory=HUB_STATIC), name="hub"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: refused},
                    middleware=[Middleware(HostCheck, names=served_names((), config.web_host))])
    app.state.hub = hub
    return app
