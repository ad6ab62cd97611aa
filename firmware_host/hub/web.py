"""The club hub's pages (`tavli-board club hub`): the café screen, the club's history, the ladder and
the tournaments, a Starlette application behind the companion's doors.

    app = create_hub_app(config, store)     # the hub's configuration and its records
    serve(app, listen(config.web_host, config.web_port))      # firmware_host/web/server.py

Pages (HTML from `pages.py`; the style and page kit from the companion's /static, the hub's script and
style from /hub): Tables (the café screen), History, Ladder, Tournaments. The café screen asks for
`/api/tables` every second or two (short polling: one small request, answered from a copy at most
half a second old however many screens ask) and fetches a table's drawing (`/tables/BOARD.svg?v=…`)
only when its view changed. The director's changes are JSON POSTs with the companion's checks
(`web.app.json_body`: JSON, size, time, CSRF and Origin) and its PIN guard (`web.app.check_pin`,
`web.guard.PinGuard`: wrong PINs limited per client and in total); every request must name the hub as
its Host (`web.guard.HostCheck`); the server bounds every connection (`web.server`).
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware_host import __version__
from firmware_host.club.tournament import TournamentError
from firmware_host.hub import pages, tournaments
from firmware_host.hub.config import HubConfig
from firmware_host.hub.store import HubStore
from firmware_host.web.app import STATIC, Refused, check_pin, html_page, json_body, refused, svg_response, view_svg
from firmware_host.web.guard import HostCheck, PinGuard, served_names

log = logging.getLogger(__name__)

HUB_STATIC = Path(__file__).resolve().parent / "static"
TABLES_FRESH_S = 0.5       # the café screens' answer is made at most this often, whatever their number
HISTORY_SHOWN = 200


class Hub:
    """The application's state: the configuration, the records, the PIN guard, the tables' drawings."""

    def __init__(self, config: HubConfig, store: HubStore) -> None:
        self.config, self.store = config, store
        self.pin_guard = PinGuard()
        self._tables: tuple[float, dict[str, Any]] | None = None
        self._drawings: dict[str, tuple[str, str]] = {}   # board -> (its view's version, the SVG)
        self._lock = asyncio.Lock()

    async def check_pin(self, request: Request, body: dict[str, Any]) -> None:
        await check_pin(self.pin_guard, self.config.pin, request, body)

    async def tables(self) -> dict[str, Any]:
        async with self._lock:
            if self._tables is None or time.monotonic() - self._tables[0] >= TABLES_FRESH_S:
                self._tables = (time.monotonic(), await asyncio.to_thread(self._read_tables))
            return self._tables[1]

    def _read_tables(self) -> dict[str, Any]:
        seated = {(match["board"], match["match"]): match for match in reversed(self.store.matches())}
        tables = []
        for table in self.store.tables(sorted(self.config.boards)):
            view, board = table["view"], table["board"]
            entry = {"board": board, "online": table["online"], "version": None}
            if isinstance(view, dict):
                entry.update(table_facts(view))
                entry["version"] = self._draw(board, view)
                match = seated.get((board, entry["match"]))
                entry["players"] = {"white": match and match["white"], "black": match and match["black"]}
            tables.append(entry)
        return {"club": self.config.club, "tables": tables}

    def _draw(self, board: str, view: dict[str, Any]) -> str | None:
        """The version of the board's drawing (None: its view cannot be drawn), drawn once per view."""
        version = hashlib.sha256(json.dumps(view, sort_keys=True).encode()).hexdigest()[:16]
        if self._drawings.get(board, ("",))[0] != version:
            try:
                self._drawings[board] = (version, view_svg(view))
            except (KeyError, TypeError, ValueError, AttributeError) as error:   # a view of another version
                log.warning("hub: %s's view cannot be drawn: %s", board, str(error)[:200])
                self._drawings.pop(board, None)
                return None
        return version

    def drawing(self, board: str) -> str | None:
        known = self._drawings.get(board)
        return None if known is None else known[1]


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
    return JSONResponse(await request.app.state.hub.tables(), headers={"Cache-Control": "no-store"})


async def table_svg(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    board = request.path_params["board"]
    await hub.tables()
    svg = hub.drawing(board) if board in hub.config.boards else None
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
    return JSONResponse({"board": key.board, "match": key.match, "white": body["first"], "black": body["second"]})


async def correct_result(request: Request) -> Response:
    number = _tournament_number(request)
    hub, body = await _director(request, {"round", "winner", "loser"})
    round_number = body.get("round")
    if not isinstance(round_number, int) or isinstance(round_number, bool):
        raise Refused(400, "round: the round's number, from 1")
    await _act(hub, tournaments.correct, number, round_number, _text(body, "winner"), _text(body, "loser"))
    return JSONResponse({"corrected": True})


async def next_round(request: Request) -> Response:
    number = _tournament_number(request)
    hub, _ = await _director(request, set())
    await _act(hub, tournaments.pair_next, number)
    return JSONResponse({"paired": True})


# == the application ==========================================================================================

def create_hub_app(config: HubConfig, store: HubStore) -> Starlette:
    hub = Hub(config, store)
    routes = [
        *[Route(path, page(name)) for name, path in pages.PATHS.items()],
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
    app = Starlette(routes=routes, exception_handlers={HTTPException: refused},
                    middleware=[Middleware(HostCheck, names=served_names((), config.web_host))])
    app.state.hub = hub
    return app
