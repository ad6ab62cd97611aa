"""Faults journaled by the episode, so that a fault which comes and goes cannot flood the journal.

A fault that comes back within EPISODE_QUIET_S of going away (a flickering sensor, a link that drops
again and again, junk on the line that looks like an MCU restarting many times a second) is one
episode: one `fault` record when it first begins, and one `fault_cleared` record once it has stayed
away for EPISODE_QUIET_S, with `count` (the times it began in the episode) and `episode_s` (from its
first beginning to its last end) beside the last end's message and details. A fault that happens in
an instant (an MCU restart) begins and ends at once. The episodes live in a plain dict of frozen
values, so the controller's undo of an event (`Controller._saved`) covers them.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Hashable

EPISODE_QUIET_S = 10.0


@dataclass(frozen=True)
class Episode:
    fault: str
    began_at: float
    count: int = 1                     # the times the fault began in this episode
    ended_at: float | None = None      # when it last went away; None while it is on
    message: str = ""                  # the last end's words and details, journaled when the episode closes
    details: tuple[tuple[str, Any], ...] = ()


Episodes = dict[Hashable, Episode]


def begin(episodes: Episodes, journal, key: Hashable, now: float, fault: str, message: str, **details: Any) -> None:
    """The fault `key` began: journaled if it starts an episode, counted if it comes back within one."""
    episode = episodes.get(key)
    if episode is None:
        journal.record_fault(fault, message, **details)
        episodes[key] = Episode(fault, now)
    else:
        episodes[key] = replace(episode, count=episode.count + 1, ended_at=None)


def end(episodes: Episodes, key: Hashable, now: float, message: str, **details: Any) -> None:
    """The fault `key` went away: journaled when the episode closes (`close_quiet`), unless it comes back."""
    episode = episodes.get(key)
    if episode is not None:
        episodes[key] = replace(episode, ended_at=now, message=message, details=tuple(details.items()))


def close_quiet(episodes: Episodes, journal, now: float, quiet_s: float = EPISODE_QUIET_S) -> None:
    """Journal the end of every episode whose fault has stayed away for `quiet_s` (0: every one that
    has ended, as when the service stops)."""
    for key, episode in list(episodes.items()):
        if episode.ended_at is not None and now - episode.ended_at >= quiet_s:
            del episodes[key]
            journal.record_fault_cleared(episode.fault, episode.message, **dict(episode.details),
                                         count=episode.count, episode_s=round(episode.ended_at - episode.began_at, 3))


def next_close(episodes: Episodes) -> float | None:
    """When the next ended episode closes, if one has ended."""
    return min((episode.ended_at + EPISODE_QUIET_S for episode in episodes.values() if episode.ended_at is not None),
               default=None)
