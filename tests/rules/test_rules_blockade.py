"""Dossier A20: a permanent mutual blockade. In neverfinishing (no mother rule) both start points can
end up pinned: White's last checker on 24 under a Black one, Black's on 1 under a White one. Every
other checker is home, but none may bear off while one of its side is pinned, and none has a point
to move to. Neither side can ever move again."""
from firmware_host.rules import Position, Rules, blocked_for_good, legal_plays

STUCK = {
    "variant": "neverfinishing", "turn": "white",
    "white": {"points": {"1": 14, "24": 1}, "bar": 0, "off": 0},
    "black": {"points": {"1": 1, "24": 14}, "bar": 0, "off": 0},
    "pinned": {"1": "black", "24": "white"},
}


def test_both_start_points_pinned_blocks_both_sides_for_good():
    position = Position.from_json(STUCK)
    assert blocked_for_good(position, Rules.for_variant("neverfinishing"))
    assert [play.moves for play in legal_plays(position, (6, 5))] == [()]


def test_the_blockade_is_a_draw_only_under_mutual_no_move_draw():
    position = Position.from_json(STUCK)
    assert legal_plays(position, (2, 1))[0].result is None
    drawn = legal_plays(position, (2, 1), {"mutual_no_move_draw": True})[0].result
    assert (drawn.winner, drawn.points, drawn.reason) == (None, 0, "tie")


def test_a_side_with_a_free_checker_is_not_blocked():
    free = {**STUCK, "white": {"points": {"1": 13, "5": 1, "24": 1}, "bar": 0, "off": 0}}
    assert not blocked_for_good(Position.from_json(free), Rules.for_variant("neverfinishing"))
