"""Exports: the JSON of a match, and its portes games as a match file that GNU Backgammon imports."""
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.journal import Journal
from firmware_host.journal.export import gnubg_match, match_json
from firmware_host.rules import BLACK, WHITE, GameResult, Position, Rules, Turn
from firmware_host.rules.match import MatchRules
from journal_kit import play_match, play_turn, start_next_game

GNUBG = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")


@pytest.fixture
def journal(tmp_path):
    return Journal.open(tmp_path / "journal.sqlite3")


def played_match(journal, sequence=("portes", "plakoto", "fevga"), target=3, seed=1) -> int:
    match_id = journal.start_match(MatchRules(sequence=sequence, target=target))
    play_match(journal, random.Random(seed))
    return match_id


def test_the_json_export_holds_every_game_roll_play_result_and_house_rule(journal):
    match_id = played_match(journal)
    exported = match_json(journal.match_events(match_id))
    json.dumps(exported)  # plain JSON all the way down
    assert exported["status"] == "won" and exported["winner"] in ("white", "black")
    assert max(exported["score"].values()) >= 3
    for game in exported["games"]:
        kinds = [event["kind"] for event in game["events"]]
        assert kinds.count("roll") == kinds.count("play") > 0
        assert game["result"]["points"] >= 1 and game["house_rules"] == Rules.for_variant(game["variant"]).to_json()
    plays = [event for game in exported["games"] for event in game["events"] if event["kind"] == "play"]
    assert all(set(play) >= {"side", "dice", "moves", "position", "at", "seq"} for play in plays)


def test_records_between_games_are_kept_at_match_level(journal):
    match_id = journal.start_match(MatchRules(sequence=("portes",)))
    journal.record_fault("link-lost", "unplugged")
    journal.start_game("portes", Rules.for_variant("portes"), starter=WHITE)
    journal.record_refusal("rolling too early", side="black")
    exported = match_json(journal.match_events(match_id))
    assert [event["kind"] for event in exported["events"]] == ["fault"]
    assert [event["kind"] for event in exported["games"][0]["events"]] == ["refusal"]
    assert exported["status"] == "unfinished"


def test_the_match_file_writes_each_side_from_its_own_point_of_view(journal):
    match_id = journal.start_match(MatchRules(sequence=("portes",), target=5))
    rules = Rules.for_variant("portes")
    journal.start_game("portes", rules, starter=BLACK)
    position = Position.start("portes", BLACK)
    black_play = next(play for play in Turn(position, (3, 1), rules).plays()
                      if sorted((move.origin, move.destination) for move in play.moves) == [("17", "20"), ("19", "20")])
    journal.record_roll(BLACK, (3, 1))
    journal.record_play(BLACK, (3, 1), black_play)
    journal.end_game(GameResult(BLACK, 1, "resign"), BLACK, "white resigned")
    text, notes = gnubg_match(journal.match_events(match_id))
    lines = text.splitlines()
    assert " 5 point match" in lines and " Game 1" in lines and notes == []
    assert lines[lines.index(" Game 1") + 1].split() == ["White", ":", "0", "Black", ":", "0"]
    first = lines[lines.index(" Game 1") + 2]
    dice, moves = first[5:].split(":")
    assert first.startswith("  1) " + " " * 30) and dice.strip() == "31"       # Black's column
    assert sorted(moves.split()) == ["6/5", "8/5"]                            # his 17/20 19/20
    assert lines[-1].startswith(" " * 30) and lines[-1].strip() == "Wins 1 point"     # in Black's column


def test_only_portes_games_are_written_and_a_refereed_game_is_named(journal):
    match_id = journal.start_match(MatchRules(sequence=("portes", "fevga"), target=9))
    rng = random.Random(4)
    start_next_game(journal, rng)
    play_turn(journal, rng)
    journal.record_referee("restore", position=Position.start("portes", BLACK))
    with pytest.raises(ValueError, match="game 1 is left out: the referee set a position"):
        gnubg_match(journal.match_events(match_id))
    journal.end_game(GameResult(WHITE, 1, "resign"), WHITE, "black resigned")
    for _ in range(2):  # game 2 (fevga) and game 3 (portes again)
        start_next_game(journal, rng)
        play_turn(journal, rng)
        if journal.resume().game.variant == "fevga":
            journal.end_game(GameResult(BLACK, 1, "resign"), BLACK, "white resigned")
    text, notes = gnubg_match(journal.match_events(match_id))
    assert notes == ["game 1 is left out: the referee set a position in it, which a match file cannot show"]
    assert " Game 1" not in text and " Game 3" in text and "White : 1" in text and "Black : 1" in text
    with pytest.raises(ValueError, match="plays only backgammon.*fevga"):
        gnubg_match(journal.match_events(journal.start_match(MatchRules(sequence=("fevga",)))))


def gnubg_view(match_file: Path, tmp_path: Path) -> dict:
    """The match as GNU Backgammon imported it (its Python API's gnubg.match())."""
    script = tmp_path / "read_match.py"
    out = tmp_path / "gnubg.json"
    script.write_text(f"import gnubg, json\ngnubg.command('import mat {match_file}')\n"
                      f"open({str(out)!r}, 'w').write(json.dumps(gnubg.match()))\n")
    subprocess.run([GNUBG, "-t", "-q", "-p", str(script)], check=True, capture_output=True, timeout=120)
    return json.loads(out.read_text())


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed (Debian package gnubg)")
def test_gnu_backgammon_imports_every_turn_and_result(journal, tmp_path):
    match_id = played_match(journal, sequence=("portes", "plakoto"), target=5, seed=9)
    text, _ = gnubg_match(journal.match_events(match_id))
    match_file = tmp_path / "match.mat"
    match_file.write_text(text)
    imported = gnubg_view(match_file, tmp_path)
    assert imported["match-info"]["match-length"] == 5
    ours = match_json(journal.match_events(match_id))
    portes = [game for game in ours["games"] if game["variant"] == "portes"]
    assert len(imported["games"]) == len(portes) >= 2
    for theirs, game in zip(imported["games"], portes):
        plays = [event for event in game["events"] if event["kind"] == "play"]
        turns = [turn for turn in theirs["game"] if turn["action"] == "move"]
        assert [sorted(turn["dice"]) for turn in turns] == [sorted(play["dice"]) for play in plays]
        assert [turn["player"] for turn in turns] == ["X" if play["side"] == "white" else "O" for play in plays]
        for turn, play in zip(turns, plays):
            side = play["side"]
            expected = sorted(point_pair(move, side) for move in play["moves"])
            assert sorted(tuple(step) for step in turn["move"]) == expected, f"turn {turn} vs {play}"
        assert theirs["info"]["winner"] == ("X" if game["result"]["winner"] == "white" else "O")
        assert theirs["info"]["points-won"] == game["result"]["points"]


def point_pair(move: dict, side: str) -> tuple[int, int]:
    def point(location: str) -> int:
        if location in ("bar", "off"):
            return 25 if location == "bar" else 0
        return int(location) if side == "white" else 25 - int(location)
    return point(move["from"]), point(move["to"])


def test_the_commands_export_list_and_count(journal, capsys, tmp_path):
    match_id = played_match(journal, sequence=("portes",), target=1)
    journal.start_match(MatchRules(sequence=("tapa",)))
    path = str(journal.path)
    assert main(["export", "1", "--journal", path]) == 0     # the first match is number 1, as history shows it
    assert json.loads(capsys.readouterr().out)["match"] == match_id
    out_file = tmp_path / "out.mat"
    assert main(["export", "1", "--format", "mat", "--journal", path, "-o", str(out_file)]) == 0
    assert " 1 point match" in out_file.read_text()
    assert main(["history", "--journal", path]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert "unfinished" in listing[1] and "tapa" in listing[1] and "won by" in listing[2]
    assert listing[1].split()[0] == "2" and listing[2].split()[0] == "1"
    assert main(["dice-stats", "--journal", path, "--match", "1"]) == 0
    assert "20 degrees of freedom" in capsys.readouterr().out
    assert main(["export", "999", "--journal", path]) == 2
    assert "no match '999'" in capsys.readouterr().err
    assert main(["export", "last", "--format", "mat", "--journal", path]) == 2
    assert "no portes game" in capsys.readouterr().err


def test_dice_stats_of_a_journal_without_rolls_says_so_in_a_line(tmp_path, capsys):
    """Issue 30: no rolls printed a table of 21 zeros."""
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    assert main(["dice-stats", "--journal", str(path)]) == 0
    assert capsys.readouterr().out == f"no rolls of two dice yet in {path}: nothing to count\n"
