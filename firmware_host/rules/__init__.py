"""The rules of the Tavli family: positions, variants, legal plays, game end and matches.

Pure: no I/O, no clock, no randomness, and no imports from the rest of the package.

>>> from firmware_host.rules import Position, legal_plays
>>> start = Position.start("portes")
>>> sorted(str(play) for play in legal_plays(start, (6, 5)))[:3]
['13/8 13/7', '13/8 24/18', '13/8 8/2']
"""
from firmware_host.rules.position import (BLACK, CHECKERS, WHITE, Color, Position, PositionError,
                                          parse_board)
from firmware_host.rules.plays import (GameResult, Move, Owed, Play, Turn, blocked_for_good, dice_text,
                                       legal_plays, side_can_move)
from firmware_host.rules.variants import GAME_OPTIONS, VARIANTS, Rules, RulesError

__all__ = [
    "BLACK", "CHECKERS", "WHITE", "Color", "GAME_OPTIONS", "GameResult", "Move", "Owed", "Play", "Position",
    "PositionError", "Rules", "RulesError", "Turn", "VARIANTS", "blocked_for_good", "dice_text", "legal_plays",
    "parse_board",
    "side_can_move",
]
