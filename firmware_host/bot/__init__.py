"""The bot: a small network per game that judges the board after each legal play (1-ply), trained
by self-play (`training`), and the random and heuristic players it is measured against.

Pure like `rules/`: no I/O but reading its shipped weights (`importlib.resources`), no clock, and
no randomness of its own (generators are passed in).
"""
from firmware_host.bot.network import OUTCOMES, Network
from firmware_host.bot.players import Bot, HeuristicPlayer, Player, RandomPlayer, Ranked, TrainedChooser, equity

__all__ = ["Bot", "HeuristicPlayer", "Network", "OUTCOMES", "Player", "RandomPlayer", "Ranked", "TrainedChooser",
           "equity"]
