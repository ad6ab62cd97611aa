"""The referee: from a turn's start, the dice and a board reading to a verdict and guidance.

Pure, like `rules/`: no I/O, no clock, no randomness; it imports only the rules engine.

>>> from firmware_host.rules import Position
>>> from firmware_host.referee import Referee
>>> start = Position.start("portes")
>>> referee = Referee(start, (6, 5))
>>> moved = start.to_json(); moved["white"]["points"].update({"13": 4, "7": 1})
>>> del moved["turn"], moved["rolls"]
>>> verdict = referee.judge(moved)
>>> verdict.kind, verdict.remaining, verdict.destinations["7"]
(<VerdictKind.PARTIAL: 'partial'>, (5,), ('2',))
"""
from firmware_host.referee.judge import (VERDICTS, Fault, Reading, Referee, Verdict, VerdictKind, judge,
                                         restore)
from firmware_host.referee.steps import Step

__all__ = ["VERDICTS", "Fault", "Reading", "Referee", "Step", "Verdict", "VerdictKind", "judge", "restore"]
