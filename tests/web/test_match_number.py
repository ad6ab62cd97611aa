"""One match, one number: `history`, `export` (its JSON and the .mat Match ID), the web companion's
History, its snapshot and the service's status line all name a match by the journal's number,
counted from 1, and `export N` is the match `history` lists as N."""
import json
import re
import time

from firmware_host.cli import main
from firmware_host.config import load_config
from firmware_host.journal import Journal
from firmware_host.rules import GameResult, Rules, WHITE
from firmware_host.rules.match import MatchRules
from firmware_host.service.status import status_line
from web_kit import Referee, write_config


def three_matches(path) -> None:
    """Match 1 won, match 2 abandoned after a game began, match 3 under way."""
    with Journal.open(path) as journal:
        journal.record_service("journal_opened")   # records outside any match come first, as on a Pi
        journal.start_match(MatchRules(sequence=("portes",), target=1))
        journal.start_game("portes", Rules.for_variant("portes"), starter=WHITE)
        journal.record_roll(WHITE, (3, 1))
        journal.end_game(GameResult(WHITE, 1, "resigned"), WHITE, "resigned")   # the match won
        journal.start_match(MatchRules(sequence=("portes",), target=3))
        journal.start_game("portes", Rules.for_variant("portes"), starter=WHITE)
        journal.start_match(MatchRules(sequence=("portes", "plakoto", "fevga"), target=5))
        journal.start_game("portes", Rules.for_variant("portes"), starter=WHITE)
        journal.record_roll(WHITE, (6, 5))


def test_every_surface_names_a_match_by_the_same_number(tmp_path, capsys):
    config_path = write_config(tmp_path)
    journal_path = load_config(config_path).journal_path
    three_matches(journal_path)
    assert main(["history", "--journal", str(journal_path)]) == 0
    listed = [int(line.split()[0]) for line in capsys.readouterr().out.splitlines()[1:]]
    assert listed == [3, 2, 1]
    for number in listed:
        assert main(["export", str(number), "--journal", str(journal_path)]) == 0
        assert json.loads(capsys.readouterr().out)["match"] == number
        assert main(["export", str(number), "--format", "mat", "--journal", str(journal_path)]) == 0
        assert f'; [Match ID "{number}"]' in capsys.readouterr().out
    assert main(["export", "4", "--journal", str(journal_path)]) == 2   # no match 4: not a neighbour
    capsys.readouterr()

    from starlette.testclient import TestClient

    from firmware_host.web.app import create_app

    referee = Referee(config_path)
    try:
        app = create_app(load_config(config_path))
        with TestClient(app, base_url="http://localhost") as web:
            deadline = time.monotonic() + 20
            while app.state.companion.link.snapshot is None:
                assert time.monotonic() < deadline, "the web application never heard from the service"
                time.sleep(0.05)
            assert [match["match"] for match in web.get("/api/history").json()["matches"]] == listed
            for number in listed:
                assert web.get(f"/history/{number}.json").json()["match"] == number
                assert f'; [Match ID "{number}"]' in web.get(f"/history/{number}.mat").text
            assert app.state.companion.link.snapshot["match"]["id"] == 3
            assert web.get("/api/match").json()["match"] == 3
        assert re.match(r"match 3, game 1 of ", status_line(referee.controller.view()))
    finally:
        referee.stop()


def test_a_match_with_a_damaged_record_is_named_on_the_history_page_and_not_exported(tmp_path):
    """The History page listed nothing but a 500 when one match held a record it could not read."""
    import sqlite3

    from starlette.testclient import TestClient

    from firmware_host.web.app import create_app

    config_path = write_config(tmp_path)
    journal_path = load_config(config_path).journal_path
    three_matches(journal_path)
    with sqlite3.connect(journal_path) as db:   # match 2's start: rules that are not a table of rules
        db.execute("DROP TRIGGER events_are_never_updated")
        db.execute("UPDATE events SET data = '{\"rules\": 7}' WHERE kind = 'match_started' AND match_id = 2")
    with TestClient(create_app(load_config(config_path)), base_url="http://localhost") as web:
        history = web.get("/api/history")
        assert history.status_code == 200
        statuses = {match["match"]: match["status"] for match in history.json()["matches"]}
        assert statuses[2] == "cannot be read" and statuses[1] == "won" and statuses[3] == "unfinished"
        refused = web.get("/history/2.json")
        assert refused.status_code == 409 and "match 2 holds a record that cannot be read" in refused.json()["error"]
        assert web.get("/history/1.json").status_code == 200
