"""The club's tournaments at the hub: created by the director, played on the boards, replayed from
the records whenever they are shown.

A tournament is its players (in seed order), its kind (knock-out, or Swiss with a number of rounds:
firmware_host/club/tournament.py pairs them) and what happened since, in order:

- a board's match result: a match seated with the two players of a pairing of the round being played
  (the director seats a pairing at a board: the board's match under way gets the two names, the first
  playing white), which ended with a winner after the tournament was created, fills that pairing;
- the director pairs the next round once the round is finished (until then a result can be corrected);
- the director corrects a result of the round being played. Where the board's match gave the result,
  the correction says the players sat the other way round: the match is seated again with the colours
  swapped, so the board's games count for the right player and the ladder recomputes with them.

Nothing of a tournament is kept but those records: standings are recomputed every time, as the ladder is.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware_host.club.tournament import BYE, Knockout, Pairing, Swiss, TournamentError
from firmware_host.config import NAME_PATTERN
from firmware_host.hub.store import HubStore, MatchKey

KINDS = ("knockout", "swiss")
MOST_PLAYERS = 64


@dataclass
class Played:
    """A tournament replayed: the pairing object of club/tournament.py and where each result came from."""

    row: dict[str, Any]
    tournament: Knockout | Swiss
    sources: dict[tuple[int, Pairing], dict[str, Any]] = field(default_factory=dict)   # (round, pairing) -> source

    def to_json(self) -> dict[str, Any]:
        tournament = self.tournament
        rounds = []
        for number, round_ in enumerate(tournament.rounds, start=1):
            rounds.append({"number": number, "pairings": [
                {"first": pairing.first, "second": pairing.second, "winner": round_.winners.get(pairing),
                 "source": "bye" if pairing.second is BYE else self.sources.get((number, pairing))}
                for pairing in round_.pairings]})
        return {"id": self.row["id"], "name": self.row["name"], "kind": self.row["kind"],
                "players": self.row["players"], "rounds_planned": self.row["rounds"], "rounds": rounds,
                "standings": self.standings(), "champion": self.champion, "next_round": self.can_pair_next}

    @property
    def champion(self) -> str | None:
        if isinstance(self.tournament, Knockout):
            return self.tournament.champion
        finished = len(self.tournament.rounds) == self.tournament.planned and self.tournament.rounds[-1].finished
        return self.tournament.standings()[0] if finished else None

    @property
    def can_pair_next(self) -> bool:
        tournament = self.tournament
        more = len(tournament.rounds) < tournament.planned if isinstance(tournament, Swiss) else tournament.champion is None
        return tournament.rounds[-1].finished and more

    def standings(self) -> list[dict[str, Any]]:
        tournament = self.tournament
        if isinstance(tournament, Swiss):
            return [{"player": player, "score": tournament.score(player)} for player in tournament.standings()]
        reached, reached_winner = {}, {}
        for number, round_ in enumerate(tournament.rounds, start=1):
            for pairing in round_.pairings:
                for player in (pairing.first, pairing.second):
                    if player is not BYE:
                        winner = round_.winners.get(pairing)
                        reached[player] = (number, winner is None or winner == player)
                        reached_winner[player] = winner == player
        order = sorted(tournament.seeds, key=lambda player: (-reached[player][0], not reached[player][1],
                                                             tournament.seeds.index(player)))
        def status(player: str) -> str:
            number, alive = reached[player]
            if player == tournament.champion:
                return "won the tournament"
            if not alive:
                return f"out in round {number}"
            return f"through to round {number + 1}" if reached_winner[player] else f"plays round {number}"
        return [{"player": player, "status": status(player)} for player in order]


def board_results(matches: list[dict[str, Any]], after: int) -> list[tuple[int, str, str, dict[str, Any]]]:
    """The seated matches that ended with a winner after message `after`: (accepted, winner, loser, source)."""
    results = []
    for match in matches:
        ended = match["ended"] or {}
        if match["white"] is None or ended.get("winner") not in ("white", "black") or ended["accepted"] <= after:
            continue
        winner = match[ended["winner"]]
        loser = match["black" if ended["winner"] == "white" else "white"]
        results.append((ended["accepted"], winner, loser,
                        {"board": match["board"], "stream": match["stream"], "match": match["match"],
                         "winner_color": ended["winner"]}))
    return sorted(results, key=lambda result: result[0])


def replay(row: dict[str, Any], matches: list[dict[str, Any]]) -> Played:
    """A tournament as its records make it now."""
    if row["kind"] == "knockout":
        played = Played(row, Knockout(row["players"]))
    else:
        played = Played(row, Swiss(row["players"], row["rounds"]))
        played.tournament.next_round()
    tournament = played.tournament
    events = [(accepted, 0, index, ("result", winner, loser, source))
              for index, (accepted, winner, loser, source) in enumerate(board_results(matches, row["after"]))]
    events += [(action["after"], 1, index, ("action", action)) for index, action in enumerate(row["actions"])]
    for *_, event in sorted(events):
        number = len(tournament.rounds)
        if event[0] == "result":
            _, winner, loser, source = event
            round_ = tournament.rounds[-1]
            try:
                pairing = round_.pairing_of(winner)
            except TournamentError:
                continue                     # a match between players not paired now: not the tournament's
            if loser in (pairing.first, pairing.second) and pairing not in round_.winners:
                round_.record(winner, loser)
                played.sources[(number, pairing)] = source
            continue
        action = event[1]
        try:                                 # every action was checked when taken; a replay never fails
            if action["action"] == "pair":
                tournament.next_round()
            else:
                tournament.correct(action["round"], action["winner"], action["loser"])
                pairing = tournament.rounds[-1].pairing_of(action["winner"])
                played.sources[(number, pairing)] = {**played.sources.get((number, pairing), {}), "corrected": True}
        except TournamentError:
            continue
    return played


# == the director's actions: each checked on the replayed tournament before it is recorded =========================

def find(store: HubStore, number: int) -> Played:
    for row in store.tournaments():
        if row["id"] == number:
            return replay(row, store.matches())
    raise LookupError(f"no tournament {number}")


def create(store: HubStore, name: str, kind: str, players: list[str], rounds: int | None) -> int:
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise TournamentError("a tournament's name: 1 to 80 characters")
    if kind not in KINDS:
        raise TournamentError(f"kind {kind!r} is not valid; allowed: {', '.join(KINDS)}")
    if not isinstance(players, list) or not 2 <= len(players) <= MOST_PLAYERS:
        raise TournamentError(f"players: a list of 2 to {MOST_PLAYERS} names, the best seed first")
    for player in players:
        if not isinstance(player, str) or not NAME_PATTERN.fullmatch(player):
            raise TournamentError(f"player {str(player)[:40]!r} is not valid; allowed: 1 to 40 letters, digits, - and _")
    if kind == "swiss":
        if not isinstance(rounds, int) or isinstance(rounds, bool):
            raise TournamentError("a Swiss tournament needs its number of rounds")
        Swiss(players, rounds)               # its own checks: the field and the rounds it can pair
    else:
        rounds = None
        Knockout(players)
    return store.add_tournament(name.strip(), kind, players, rounds)


def pair_next(store: HubStore, number: int) -> None:
    played = find(store, number)
    played.tournament.next_round()
    store.add_tournament_action(number, "pair", len(played.tournament.rounds))


def correct(store: HubStore, number: int, round_number: int, winner: str, loser: str) -> None:
    """The director's correction; a board's match that gave the other result is seated the other way round."""
    played = find(store, number)
    played.tournament.correct(round_number, winner, loser)
    pairing = played.tournament.rounds[-1].pairing_of(winner)
    source = played.sources.get((round_number, pairing))
    if source is not None and "board" in source:
        key = MatchKey(source["board"], source["stream"], source["match"])
        white, black = (winner, loser) if source["winner_color"] == "white" else (loser, winner)
        store.seat(key, white, black)
    store.add_tournament_action(number, "correct", round_number, winner, loser)


def seat(store: HubStore, number: int, board: str, first: str, second: str) -> MatchKey:
    """Seat a pairing of the round being played at `board`: its match under way, first player white."""
    played = find(store, number)
    round_ = played.tournament.rounds[-1]
    pairing = round_.pairing_of(first)
    if second not in (pairing.first, pairing.second) or second == first or second is BYE:
        raise TournamentError(f"{first} and {second} are not paired in round {len(played.tournament.rounds)}")
    if pairing in round_.winners:
        raise TournamentError(f"{first} and {second} have played: correct the result instead")
    under_way = [match for match in store.matches() if match["board"] == board and match["ended"] is None]
    if not under_way:
        raise LookupError(f"{board} has no match under way: start the match on the board, then seat it")
    key = MatchKey(board, under_way[0]["stream"], under_way[0]["match"])
    store.seat(key, first, second)
    return key
