"""The controller: the one owner of a match's state, fed one event at a time.

    controller = Controller(journal, dice, MatchRules(...), rules_for=config.rules_for)
    controller.handle(BoardStable(reading), now)   # any sensing or button event
    controller.tick(now)                           # at the latest at controller.next_deadline()
    controller.scene                               # what the LEDs show now

No threads and no clock of its own: `now` comes with every call, so tests drive it in virtual time.
Its outputs are `scene` (an LED `Scene`, in physical locations), journal records (written through
the `Journal` it was given) and beeps (through `beep`). The state machine is declared in `machine`;
this class holds the data the states work on and the conditions and callbacks the table names.

Judging a reading can take a second for a deep gulbara cascade, so verdicts are cached per reading
for the roll, and a changing board is judged only when checkers have been lifted (the lights must
show where a lifted checker may go at once; anything else waits for the stable reading). Where a
lifted checker may go is one search per location, which for a cascade of doubles is far too slow:
in a cascade a lift is only noted (no destinations lit), and the stable board judged. With
`judge_elsewhere` (the event loop's judging thread) a reading not judged before is handed over and
its verdict comes back as a `Judged` event; until then the board is "being judged": a press is
refused, and what the board means (complete, illegal, legal again) is decided when the verdict comes.
"""
from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from firmware_host.controller import faults
from firmware_host.controller import machine as m
from firmware_host.controller.numbering import BoardLabels
from firmware_host.controller.orientation import Orientation, detect, laid_out, nearest, reading_matches
from firmware_host.controller.remote import (RemoteFault, RemoteForfeit, RemotePlay, RemotePlayRefused,
                                             held_play)
from firmware_host.controller.scenes import (destination_marks, fault_leds, led, move_marks, setup_marks,
                                             step_marks)
from firmware_host.controller.view import GameView, LastPlay, RefereePage
from firmware_host.hw.buzzer import Beep
from firmware_host.hw.dice import DiceSource
from firmware_host.hw.events import DiceButtonFreed, DiceButtonStuck, DiceHeld, DicePressed
from firmware_host.journal import JournalWriteError
from firmware_host.journal.events import Kind, PlayRecord, ResumeState
from firmware_host.leds.scene import LOCATIONS, DiceSignal, Mark, Scene, Score
from firmware_host.referee import Reading, Referee, Step, Verdict, VerdictKind, restore
from firmware_host.referee.held import HeldReferee
from firmware_host.referee.observe import Sensing, resolve, unpinned, unstacked
from firmware_host.rules import (BLACK, CHECKERS, WHITE, Color, GameResult, Owed, Play, Position, Rules, Turn,
                                 blocked_for_good)
from firmware_host.rules.match import Match, MatchRules, opening_roll
from firmware_host.rules.plays import TooManyPlays
from firmware_host.sensing.events import (BoardChanging, BoardSettled, BoardStable, LinkLost, LinkSilent,
                                          LinkUp, McuReset, SensorFault, SensorFaultCleared)
from firmware_host.sensing.reading import BoardReading

log = logging.getLogger(__name__)

# Referee mode lists the legal plays of the roll one press at a time; a low gulbara cascade can have
# hundreds of thousands, which no one steps through: past this many the list is not offered.
MOST_PLAYS_LISTED = 200
# Owed dice (gulbara opponent_plays) can be one die or as many as fourteen, but the dice LEDs are two
# faces: owed dice blink one at a time, each on both faces (as many blinks as dice owed), then a
# pause, over and over; a roll is shown steady. (Seconds of the injected clock.)
OWED_DIE_ON_S, OWED_DIE_OFF_S, OWED_PAUSE_S = 0.6, 0.3, 1.5
# A journal that cannot be written (a full disk, a card turned read-only) is tried again this often
# (seconds of the injected clock) while the game is held.
STORAGE_RETRY_S = 2.0
# Stands for "the controller's timer was due" among the events a storage fault holds.
TIMER_DUE = "timer due"


@dataclass(frozen=True)
class Timings:
    """How long the controller's own signals last, in seconds of the injected clock."""

    refusal_s: float = 1.5     # the "roll refused" pattern on the dice LEDs
    game_over_s: float = 6.0   # the final score of a game, before the next game's setup
    remote_fault_s: float = 5.0   # the "remote fault" pattern on the dice LEDs: a message refused, a secret late

    def __post_init__(self) -> None:
        for name in ("refusal_s", "game_over_s", "remote_fault_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"Timings.{name} is {value!r}; allowed: seconds, more than 0")


@dataclass(frozen=True)
class Judged:
    """The verdict on a reading judged elsewhere, posted back to the controller's queue."""

    referee: Referee      # the roll's referee that judged it: a verdict of an earlier roll is dropped
    reading: Reading
    verdict: Verdict


class CommandRefused(ValueError):
    """A command the controller cannot do now, with the reason in words."""


@dataclass
class StorageFault:
    """The journal refused a write: the event (or timer) that wrote it was undone, and waits with
    those that came after it, to be handled in order once the journal takes records again."""

    reason: str
    since: float
    retry_at: float
    held: list[object] = field(default_factory=list)   # the failed one first; presses are not held


class Controller:
    def __init__(self, journal: Any, dice: DiceSource, match_rules: MatchRules, *,
                 rules_for: Callable[[str], Rules] = Rules.for_variant, timings: Timings = Timings(),
                 beep: Callable[[Beep], None] = lambda meaning: None,
                 judge_elsewhere: Callable[[Referee, Reading], None] | None = None,
                 resume: ResumeState | None = None, sensing: Sensing = Sensing.COUNTS,
                 bots: Iterable[Color] = (), choose_play: Callable[[Turn], Play] | None = None,
                 hints: bool = False, remote_seats: Iterable[Color] = ()) -> None:
        """`judge_elsewhere(referee, reading)`: hand a reading to be judged off the loop (the verdict
        comes back as a `Judged` event); None judges here, at once (tests, benchmarks).
        `resume`: the unfinished match of the journal (`Journal.resume()`), continued rather than a
        new one begun; `match_rules` then serve only for a new match after it. `sensing`: what the
        sensors report per location ([sensors.mcu] colour_by); count-and-bottom-colour readings are
        judged as the board they stand for during the turn (referee.observe.resolve). `bots`: the
        seats the bot plays ([match] white / black): on its turn `choose_play(turn)` (default: the
        trained bot) picks the play, the lights show it move by move, and the referee holds the
        board to it (`HeldReferee`) while a person moves its checkers. `hints` ([referee] hints):
        referee mode shows a person the play `choose_play` would make, move by move. `remote_seats`
        ([club] seat): the colour played on the opponent board of a remote match; its turn waits for
        that board's play (a `RemotePlay` event), which is then held as a bot's (controller/remote.py)."""
        self.sensing = Sensing(sensing)
        self.bots = frozenset(bots)
        self.journaled_bots = self.bots                    # the seats as the journal last recorded them
        self.hints = hints
        self.choose_play = choose_play
        self._load_chooser()
        self.bot_moves_made = 0                            # a bot's turn: the moves of its play on the board
        self.remote_seats = frozenset(remote_seats)
        self.remote_plays: list[RemotePlay] = []           # come from the opponent board, not yet played here
        self.remote_fault: str | None = None               # the last thing refused from it, or its lateness
        self.remote_fault_until = float("-inf")            # the dice show REMOTE_FAULT until then
        self.forfeit_pending: RemoteForfeit | None = None          # a forfeit waiting for a game state to end the match in
        self.journal = journal
        self.dice_source = dice
        self.match_rules = match_rules
        self.rules_for = rules_for
        self.timings = timings
        self.beep = beep
        self.judge_elsewhere = judge_elsewhere
        self.now = 0.0
        # The match and the game.
        self.match = Match.new(match_rules)
        self.match_id: int | None = None
        self.variant = self.match.next_variant
        self.rules = rules_for(self.variant)
        self.starter: Color | None = None
        self.position = Position.start(self.variant)       # the start of the turn; .turn moves
        self.cleared_position = self.position                # the board cleared for this game (setup)
        self.dice: tuple[int, ...] | None = None           # the roll being played, or `Owed` dice
        self.opening_dice: tuple[int, int] | None = None   # (white, black) of the last opening roll
        self.kept_die: int | None = None                   # keep_own_die: the starter's opening die
        self.dice_since = 0.0                              # when the dice were rolled (or handed over)
        self.blinking_owed: tuple[int, ...] | None = None  # owed dice the scene blinks through
        self.referee: Referee | None = None
        self.no_legal_move = False
        self.last_play: LastPlay | None = None
        self.result_play: Play | None = None               # the play that ended the game
        self.orientation = Orientation.AS_WIRED
        # The board as sensed.
        self.sensed: BoardReading | None = None            # the last reading, physical numbering
        self.changing = False                              # it changed since the last stable reading
        self.settled = False                               # it has stood for the grace time
        self.verdict: Verdict | None = None                # of the last reading, during a turn
        self.awaiting_verdict: Reading | None = None       # handed to `judge_elsewhere`, not back yet
        self._verdicts: dict[Reading, Verdict] = {}
        self.correction_goal: Position | None = None       # correcting: the legal board to get back to
        self.correction_steps: tuple[Step, ...] = ()       # from the last reading to the goal
        # Referee mode.
        self.referee_pages: tuple[RefereePage, ...] = ()
        self.referee_page = 0
        self.legal_plays: list[Play] = []
        self.best_play: Play | None = None                 # hints: the bot's play for the mover's roll
        self.referee_return = m.MOVING                     # the state a long press leaves referee mode for
        # Faults and signals.
        self.sensor_faults: dict[tuple, SensorFault] = {}
        self.fault_episodes: faults.Episodes = {}          # journaled faults not yet closed (faults.py)
        self.stuck_button_down = False
        self.overlay_return = m.SETUP
        self.correction_return = m.MOVING
        self.refused_until = float("-inf")
        self.link_lost_at: float | None = None             # when the link went down, while it is
        self.deadline: float | None = None                 # game over: when the next game's setup begins
        self.storage_fault: StorageFault | None = None
        # What the journal lost when it opened (`Journal.damage`): shown until a press acknowledges it.
        self.journal_damage: str | None = getattr(journal, "damage", None)
        # Resuming: the state the journaled game goes on in, once the board shows it.
        self.resume_target: str | None = None
        self.orientation_journaled = True
        m.build_machine(self, initial=m.SETUP if resume is None else self._take_up(resume))
        if self.state == m.SETUP:
            self._take_the_board_as_left()
        self.scene = self._build_scene()

    def _take_the_board_as_left(self) -> None:
        """No game under way at start: the board lies as the journal's last game left it, until the
        players clear it (magnet sensors see each stack's bottom checker: its pins say what lies above)."""
        left = self.journal.last_board()
        if left is not None:
            self.cleared_position, orientation = left
            if orientation is not None:
                self.orientation = Orientation(orientation)

    def _load_chooser(self) -> None:
        """The trained bot as the chooser, where a seat or the hints need one and none was passed."""
        if (self.bots or self.hints) and self.choose_play is None:
            from firmware_host.bot import TrainedChooser   # numpy, only where a seat is the bot's
            self.choose_play = TrainedChooser()

    # == commands by name (the web companion's) ==================================================

    def apply_settings(self, match_rules: MatchRules, rules_for: Callable[[str], Rules],
                       bots: Iterable[Color]) -> None:
        """Settings changed while the service runs: the match rules from the next match, the house rules
        (`rules_for`) from the next game, and the seats the bot plays ([match] white / black) from each
        side's next roll (a turn already rolled is played out as it began). The seats are journaled
        with the first turn they apply to (a match not yet begun records its seats as it starts)."""
        self.match_rules, self.rules_for = match_rules, rules_for
        self.seat_bots(bots)

    def seat_bots(self, bots: Iterable[Color]) -> None:
        """The seats the bot plays from each side's next roll on (see `apply_settings`)."""
        self.bots = frozenset(bots)
        self._load_chooser()

    def new_match(self, match_rules: MatchRules, rules_for: Callable[[str], Rules], now: float) -> None:
        """A new match with these rules: when the match is over, or before its first game begins (a
        match under way is never thrown away: `CommandRefused`)."""
        before_first_game = self.state == m.SETUP and self.match_id is None
        if self.state != m.MATCH_OVER and not before_first_game:
            raise CommandRefused("a match is under way: a new one starts once it is over or before its first "
                                 "game is set up")
        self.match_rules, self.rules_for = match_rules, rules_for
        self._command(now, self._begin_new_match)

    def _begin_new_match(self) -> None:
        if self.state == m.MATCH_OVER:
            self._fire("press")                  # as the press that starts the next match
            return
        self.start_new_match()
        if self.sensed is not None and not self.changing:
            self._fire("board_stable")           # the board as it stands, under the new match: set up already?

    def referee_action(self, action: str, now: float) -> None:
        """Referee mode by name: "enter" (as a hold does, from a game's turn, when there is something
        to show), "next" (the next page, as a press) or "leave" (as a hold); `CommandRefused` says why not."""
        if action == "enter":
            if self.state not in m.REFEREE_FROM:
                raise CommandRefused(f"referee mode opens during a game (now: {self.state.replace('_', ' ')})")
            self._command(now, lambda: self._fire("hold"))
            if self.state != m.REFEREE:
                raise CommandRefused("referee mode has nothing to show yet: no play to replay and no legal "
                                     "play listed")
        elif action in ("next", "leave"):
            if self.state != m.REFEREE:
                raise CommandRefused("not in referee mode")
            self._command(now, lambda: self._fire("press" if action == "next" else "hold"))
        else:
            raise CommandRefused(f"no referee action {action!r}; allowed: enter, next, leave")

    def _command(self, now: float, do: Callable[[], None]) -> None:
        """Do a command as an event is done: journaled and applied whole, or (the journal refusing
        records) not at all."""
        self.now = now
        if self.storage_fault is not None:
            raise CommandRefused(f"the game is held: {self.storage_fault.reason}")
        self._atomically(do)
        self.scene = self._build_scene()
        if self.storage_fault is not None:
            self.storage_fault = None   # a command is not held for later: it is refused now
            raise CommandRefused("the journal refuses records: nothing was changed")

    def _take_up(self, resume: ResumeState) -> str:
        """Take up the journaled match: its rules, its score and its game under way (position, roll,
        last play, orientation). Returns the state to start in: setup when no game is under way,
        else resuming, which goes on in `resume_target` once the board shows the game."""
        self.match, self.match_id = resume.match, resume.match_id
        # The seats of the config may have changed while the service was down: the next turn
        # journals them if they differ from the journal's.
        self.journaled_bots = resume.bots
        game = resume.game
        if game is None:
            self.prepare_next_game()
            log.info("match %d resumed between games, score %s", self.match_id, self._score())
            return m.SETUP
        self.variant, self.rules, self.starter, self.position = game.variant, game.rules, game.starter, game.position
        self.kept_die = game.kept_die
        if game.orientation is not None:
            self.orientation = Orientation(game.orientation)
        else:   # a journal from before orientations were journaled: found from the board
            self.orientation_journaled = False
        last, owed = game.last_play, ()
        if last is not None and last.position == game.position:   # not undone by a referee restore
            before, owed = _journaled_play(self.journal, resume.match_id, last)
            self.last_play = LastPlay(before, last.side, _dice(last.dice), Play(last.moves, last.position))
        if game.pending_roll is not None or owed:
            self.resume_target = m.MOVING
            self._start_turn(game.side_to_move, _dice(game.pending_roll) if game.pending_roll else Owed(owed))
        elif game.starter is None and game.first_mover is None:
            self.resume_target = m.OPENING_ROLL
        elif blocked_for_good(game.position, self.rules):
            self.resume_target = m.BLOCKADE
        else:
            self.resume_target = m.AWAITING_ROLL
        return m.RESUMING

    # == input ==================================================================================

    def handle(self, event: object, now: float) -> None:
        """Take one event (sensing, button) at clock time `now`; updates `scene`.

        Each event is atomic: its journal records are one transaction, and if the journal cannot
        write them the controller is left as it was before the event, and holds the game (a storage
        fault) until the journal takes records again (`tick` retries)."""
        self.now = now
        if self.storage_fault is not None:
            self._hold(event)
        else:
            self._atomically(event)
        self.scene = self._build_scene()

    def tick(self, now: float) -> None:
        """Let time pass: the game-over wait ends, the refusal pattern goes out, a held game is retried."""
        self.now = now
        if self.storage_fault is None:
            self._atomically(TIMER_DUE)
        elif now >= self.storage_fault.retry_at:
            self._retry_storage()
        self.scene = self._build_scene()

    def next_deadline(self) -> float | None:
        """The clock time at which `tick` has something to do; None when nothing is pending."""
        if self.storage_fault is not None:
            return self.storage_fault.retry_at
        pending = [t for t in (self.deadline, self.refused_until, self.remote_fault_until) if t is not None and t > self.now]
        episodes_close = faults.next_close(self.fault_episodes)
        if episodes_close is not None:
            pending.append(episodes_close)   # even if past: the loop was late, and it closes at once
        if self.blinking_owed is not None:
            # (At least a millisecond on: a change a rounding error away must not be due at once.)
            pending.append(self.now + max(_owed_blink(self.blinking_owed, self.now - self.dice_since)[1], 1e-3))
        return min(pending, default=None)

    # -- one event, journaled and applied or neither ----------------------------------------------------

    def _atomically(self, item: object) -> None:
        saved = self._saved()
        try:
            with self.journal.transaction():
                self._apply(item)
        except JournalWriteError as error:
            self._restore(saved)
            log.error("%s; the game is held until the journal takes records again (tried every %g s)",
                      error, STORAGE_RETRY_S)
            self.storage_fault = StorageFault(str(error), self.now, self.now + STORAGE_RETRY_S, [item])
        except Exception:
            self._restore(saved)   # a bug: the journal kept nothing of the event, nor does the controller
            raise

    def _retry_storage(self) -> None:
        """Journal the storage fault and its end, then the held events, as one transaction."""
        fault, saved = self.storage_fault, self._saved()
        self.storage_fault = None
        try:
            with self.journal.transaction():
                self.journal.record_fault("storage", fault.reason, since_s=round(self.now - fault.since, 3))
                self.journal.record_fault_cleared("storage", "the journal takes records again",
                                                  held_s=round(self.now - fault.since, 3), events=len(fault.held))
                for item in fault.held:
                    self._apply(item)
        except JournalWriteError as error:
            self._restore(saved)
            fault.reason, fault.retry_at = str(error), self.now + STORAGE_RETRY_S
            return
        except Exception:
            self._restore(saved)
            raise
        log.info("the journal takes records again: the game goes on after %.1f s held", self.now - fault.since)

    def _hold(self, event: object) -> None:
        """While the game is held a press or hold does nothing (the lights say why); a new board
        change makes the readings held since the last one useless; anything else waits its turn."""
        held = self.storage_fault.held
        if isinstance(event, (DicePressed, DiceHeld)):
            return
        if isinstance(event, BoardChanging):
            held[1:] = [item for item in held[1:] if not isinstance(item, (BoardChanging, BoardStable, BoardSettled))]
        held.append(event)

    def _saved(self) -> dict[str, object]:
        """What undoing an event needs: every attribute, containers copied (all else is immutable or
        replaced whole)."""
        return {name: copy.copy(value) if isinstance(value, (dict, list, set)) else value
                for name, value in vars(self).items()}

    def _restore(self, saved: dict[str, object]) -> None:
        vars(self).clear()
        vars(self).update(saved)

    def _apply(self, item: object) -> None:
        if item is TIMER_DUE:
            self._timers()
        elif callable(item):   # a command (`_command`)
            item()
        else:
            self._take(item)

    def _take(self, event: object) -> None:
        if isinstance(event, (BoardChanging, BoardStable, BoardSettled)):
            self._sense(event)
        elif isinstance(event, DicePressed) and self.journal_damage is not None:
            self._acknowledge_journal_damage()
        elif isinstance(event, DicePressed):
            self._fire("press")
        elif isinstance(event, DiceHeld):
            self._fire("hold")
        elif isinstance(event, SensorFault):
            self._sensor_fault(event)
        elif isinstance(event, SensorFaultCleared):
            self._sensor_fault_cleared(event)
        elif isinstance(event, (LinkLost, LinkSilent)):
            self._link_lost(event)
        elif isinstance(event, LinkUp):
            self._link_up()
        elif isinstance(event, Judged):
            self._judged(event)
        elif isinstance(event, RemotePlay):
            self.remote_plays.append(event)
            self._take_remote_play()
            if self.referee is not None and self.verdict is not None:
                self._board_seen()   # the board as it lies now, on the way to the play or off it
        elif isinstance(event, RemoteFault):
            self._remote_fault(event.message)
            self.journal.record_fault(event.fault, event.message)
        elif isinstance(event, RemoteForfeit):
            self.forfeit_pending = event
        elif isinstance(event, McuReset):
            self._fault_began(("mcu_reset",), "mcu_reset", "the sensor MCU restarted; the board is read afresh")
            faults.end(self.fault_episodes, ("mcu_reset",), self.now, "the sensor MCU restarted")
        elif isinstance(event, DiceButtonStuck):
            self.stuck_button_down = True
            self._fault_began(("button_stuck",), "button_stuck", "the dice button has been down too long")
            self._fire("button_stuck")
        elif isinstance(event, DiceButtonFreed):
            self.stuck_button_down = False
            faults.end(self.fault_episodes, ("button_stuck",), self.now, "the dice button was released")
            self._fire("button_freed")
        else:
            log.debug("controller: %s needs nothing from the game", type(event).__name__)
        if self.forfeit_pending is not None:
            self._fire("forfeit")   # where a game is under way; else on a later event

    def _timers(self) -> None:
        faults.close_quiet(self.fault_episodes, self.journal, self.now)
        if self.deadline is not None and self.now >= self.deadline:
            self.deadline = None
            self._fire("timeout")

    def _fire(self, trigger: str) -> None:
        """Fire `trigger` where the current state lists it; elsewhere the event changes nothing."""
        if trigger in m.TRIGGERS_BY_STATE[self.state]:
            self.trigger(trigger)

    def _acknowledge_journal_damage(self) -> None:
        """The first press after a journal lost records only says "seen": the game goes on from the
        position it resumed (the lights guide the board back to it), never from a guess."""
        self.journal.record_fault_cleared("journal_damaged", "a press acknowledged the lost records",
                                          damage=self.journal_damage)
        self.journal_damage = None

    def _sense(self, event: BoardChanging | BoardStable | BoardSettled) -> None:
        self.sensed = event.reading
        if self.state == m.SETUP and self.sensing is Sensing.BOTTOM_COLOUR:
            # Every reading, changing ones too: a pinner lifted and a checker put in its place look alike.
            self.cleared_position = unpinned(self.cleared_position, self.orientation.reading(event.reading, self.variant))
        if self.state == m.RESUMING and not self.orientation_journaled:
            self.orientation = nearest(event.reading, self.position)
        self.changing = isinstance(event, BoardChanging)
        self.settled = isinstance(event, BoardSettled)
        if self._in_turn() and (not self.changing or self._lifted(event.reading)):
            self.verdict = self._judge(event.reading)
            if self.verdict is None:
                return   # being judged elsewhere: `_judged` goes on from here when the verdict comes
        self._board_seen()

    def _board_seen(self) -> None:
        """The board (and, in a turn, its verdict) is known: correct, and trigger what it means."""
        if isinstance(self.referee, HeldReferee) and not self.changing:
            # A checker in hand or a wrong board keeps the lights on the move it was making.
            made = self.referee.moves_made(self._reading())
            self.bot_moves_made = self.bot_moves_made if made is None else made
        self._update_correction()
        if not self.changing:
            self._fire("board_settled" if self.settled else "board_stable")

    def _judged(self, event: Judged) -> None:
        if event.referee is not self.referee:
            return   # a roll that is over
        self._verdicts[event.reading] = event.verdict
        if self.sensed is None or event.reading != self._reading():
            return   # the board has moved on; its own verdict is on the way or in the cache
        self.awaiting_verdict = None
        self.verdict = event.verdict
        self._board_seen()

    def _update_correction(self) -> None:
        if self.state != m.CORRECTING or self.sensed is None:
            return
        if self.correction_return == m.MOVING and self.verdict is not None and self.verdict.kind == VerdictKind.ILLEGAL:
            self.correction_goal = self.verdict.target   # the nearest legal board may have changed
        self.correction_steps = self._steps_to(self.correction_goal, self._reading())

    def _fault_began(self, key: tuple, fault: str, message: str, **details) -> None:
        faults.begin(self.fault_episodes, self.journal, key, self.now, fault, message, **details)

    def close_fault_episodes(self) -> None:
        """Journal the end of every fault episode whose fault has gone away, without waiting for the
        quiet time (the service stops)."""
        with self.journal.transaction():
            faults.close_quiet(self.fault_episodes, self.journal, self.now, quiet_s=0)

    def _sensor_fault(self, event: SensorFault) -> None:
        self.sensor_faults[(event.location, event.kind)] = event
        self._fault_began(("sensor_fault", event.location, event.kind), "sensor_fault", event.reason,
                          location=event.location, fault_kind=event.kind.value)
        self._fire("sensor_fault")

    def _sensor_fault_cleared(self, event: SensorFaultCleared) -> None:
        if self.sensor_faults.pop((event.location, event.kind), None) is None:
            return
        faults.end(self.fault_episodes, ("sensor_fault", event.location, event.kind), self.now,
                   "the sensor reads sensibly again", location=event.location, fault_kind=event.kind.value)
        if not self.sensor_faults:
            self._fire("sensor_faults_cleared")

    def _link_lost(self, event: LinkLost | LinkSilent) -> None:
        if self.state == m.LINK_LOST:
            return
        reason = event.reason if isinstance(event, LinkLost) else f"no frame for {event.silent_for_s:.1f} s"
        self._fault_began(("link_lost",), "link_lost", reason)
        self.link_lost_at = self.now
        # Nothing the link said before it went down can be trusted to still hold.
        self.sensed, self.changing, self.verdict, self.awaiting_verdict = None, False, None, None
        self._fire("link_lost")

    def _link_up(self) -> None:
        """The link answers again: the reconnect is journaled as the end of the `link_lost` fault.
        (The link's first hello at start, with nothing lost, is not a reconnect.)"""
        if self.link_lost_at is None:
            return
        down_s = round(self.now - self.link_lost_at, 3)
        self.link_lost_at = None
        faults.end(self.fault_episodes, ("link_lost",), self.now, f"the sensor link is back after {down_s:g} s",
                   down_s=down_s)
        self._fire("link_up")

    # == what the board shows =====================================================================

    def _in_turn(self) -> bool:
        return self.referee is not None

    def _lifted(self, sensed: BoardReading) -> bool:
        """Checkers are off the board (in a hand): counted on the board the reading stands for, since
        magnet sensors report a mixed point in one colour."""
        reading = self._reading(sensed)
        return reading.total(WHITE) < CHECKERS or reading.total(BLACK) < CHECKERS

    @property
    def board_reading(self) -> Reading | None:
        """The board the sensors' last stable reading stands for, in the rules' orientation."""
        return self._reading() if self.sensed is not None else None

    def _reading(self, sensed: BoardReading | None = None) -> Reading:
        reading = self.orientation.reading(sensed or self.sensed, self.variant)
        if self.sensing is not Sensing.BOTTOM_COLOUR:
            return reading
        start = self.position
        if self.state == m.REFEREE and self.last_play is not None:
            start = start.with_turn(self.last_play.mover)   # a restore moves the last mover's checkers back
        return resolve(reading, start)

    def _judge(self, sensed: BoardReading) -> Verdict | None:
        """The verdict on `sensed`, or None while it is being judged elsewhere."""
        reading = self._reading(sensed)
        verdict = self._verdicts.get(reading)
        if verdict is None and len(self.referee.turn.stages) > 1 and self._lifted(sensed):
            verdict = Verdict(VerdictKind.IN_HAND, lifted={color: CHECKERS - reading.total(color) for color in (WHITE, BLACK)})
        elif verdict is None and self.judge_elsewhere is not None:
            self.awaiting_verdict = reading
            self.judge_elsewhere(self.referee, reading)
            return None
        elif verdict is None:
            verdict = self.referee.judge(reading)
        self._verdicts[reading] = verdict
        self.awaiting_verdict = None
        return verdict

    def _start_turn(self, mover: Color, dice: tuple[int, ...]) -> None:
        self.position = self.position.with_turn(mover)
        self.dice, self.dice_since = dice, self.now
        if self.bots != self.journaled_bots and self.match_id is not None:
            self.journal.record_referee("seats", bots=sorted(color.value for color in self.bots))
            self.journaled_bots = self.bots
        self.bot_moves_made = 0
        if mover in self.remote_seats:
            self.referee, self.verdict, self.no_legal_move, self._verdicts = None, None, False, {}
            self._take_remote_play()   # it may have come already; else it is waited for
            return
        if mover in self.bots:
            self.referee = HeldReferee(self.position, dice, self.rules, self.choose_play)
            log.info("the bot plays %s for %s: %s", dice, mover.value, self.referee.play)
        else:
            self.referee = Referee(self.position, dice, self.rules)
        self._judge_turn_start()

    def _take_remote_play(self) -> None:
        """The remote seat's turn waits for its play: the first that has come, if it is a legal play of
        this turn (else a fault, and nothing applied), held as a bot's play is."""
        while self.referee is None and self.dice is not None and self.position.turn in self.remote_seats \
                and self.remote_plays:
            event = self.remote_plays.pop(0)
            try:
                play = held_play(event, self.position, self.dice, self.rules)
            except RemotePlayRefused as error:
                self._remote_fault(str(error))
                self.journal.record_fault("remote_refused", str(error), board=event.board)
                continue
            self.remote_fault = None
            self.referee = HeldReferee(self.position, self.dice, self.rules, lambda turn: play)
            log.info("%s's play for %s: %s", event.board, self.position.turn.value, play)
            self._judge_turn_start()

    def _remote_fault(self, message: str) -> None:
        """Something of the other board's refused, or late: shown in the view, and on the dice for a while."""
        self.remote_fault = message
        self.remote_fault_until = self.now + self.timings.remote_fault_s

    def _judge_turn_start(self) -> None:
        # The untouched board, judged here: cheap (the root of the play tree), it says whether the
        # roll can be played at all, and it is what the board usually shows when the dice come.
        unchanged = self.referee.judge(Reading.of(self.position))
        self._verdicts = {Reading.of(self.position): unchanged}
        self.no_legal_move = unchanged.kind == VerdictKind.COMPLETE and not unchanged.play.moves
        self.verdict = self._judge(self.sensed) if self.sensed is not None else None

    # == conditions (named in machine.TRANSITIONS) ==================================================

    def board_set_up(self) -> bool:
        return self.sensed is not None and detect(self.sensed, self.position) is not None

    def starter_known(self) -> bool:
        return self.starter is not None

    def board_shows_position(self) -> bool:
        return self.sensed is not None and reading_matches(self._reading(), self.position)

    def board_ready_for_roll(self) -> bool:
        return not self.changing and self.board_shows_position()

    def dice_ready(self) -> bool:
        """A roll can be made now (a remote match: both boards' secrets for it have come)."""
        return self.dice_source.ready()

    def starter_plays_opening_dice(self) -> bool:
        return self.dice is not None

    def board_shows_complete_play(self) -> bool:
        return not self.changing and self.verdict is not None and self.verdict.kind == VerdictKind.COMPLETE

    def play_ends_game(self) -> bool:
        return self.verdict.play.result is not None

    def play_leaves_a_remainder(self) -> bool:
        return bool(self.verdict.play.remainder)

    def play_blocks_for_good(self) -> bool:
        """After this play neither side can ever move (dossier A20); with the `mutual_no_move_draw`
        house rule the play itself ends the game as a tie instead (`play_ends_game`)."""
        return blocked_for_good(self.verdict.play.position, self.rules)

    def board_illegal(self) -> bool:
        return self.verdict is not None and self.verdict.kind == VerdictKind.ILLEGAL

    def board_continues_game(self) -> bool:
        """Resuming: the board shows the journaled position, or (a roll pending) any legal stage of
        playing it, a checker in hand included."""
        if self.resume_target == m.MOVING and self.referee is None:   # a remote seat's turn, its play not in yet
            return self.board_shows_position()
        if self.resume_target == m.MOVING:
            return self.verdict is not None and self.verdict.kind != VerdictKind.ILLEGAL
        return self.board_shows_position()

    def board_legal_again(self) -> bool:
        if self.correction_return == m.MOVING:
            return self.verdict is not None and self.verdict.legal
        return self.board_shows_position()

    def board_restored(self) -> bool:
        page = self.referee_pages[self.referee_page]
        return page.kind == "restore" and reading_matches(self._reading(), self.last_play.before)

    def match_won(self) -> bool:
        return self.match.is_over

    def sensor_faults_active(self) -> bool:
        return bool(self.sensor_faults)

    def button_is_stuck(self) -> bool:
        return self.stuck_button_down

    def referee_has_pages(self) -> bool:
        """Whether referee mode has anything to show in this state (a last play, the legal plays of
        a roll under way); builds the pages `enter_referee` shows."""
        pages: list[RefereePage] = []
        if self.last_play is not None:
            moves = self.last_play.play.moves
            pages += [RefereePage("replay_move", i, len(moves)) for i in range(len(moves))]
        self.best_play = None
        if isinstance(self.referee, HeldReferee):
            # The bot's turn: the board is held to its one play, so that play is what is shown (hints
            # or not: the lights show it anyway), and no other play of the roll is offered.
            self.best_play = self.referee.play
        elif self.hints and self.referee is not None:
            self.best_play = self.choose_play(self.referee.turn)
        if self.best_play is not None:
            moves = self.best_play.moves
            pages += [RefereePage("best_play", i, len(moves)) for i in range(len(moves))]
        self.legal_plays = []
        if self.referee is not None and not isinstance(self.referee, HeldReferee):
            try:
                self.legal_plays = self.referee.turn.plays(limit=MOST_PLAYS_LISTED)
            except TooManyPlays:
                pass
        pages += [RefereePage("legal_play", j, len(self.legal_plays)) for j in range(len(self.legal_plays))]
        # A game already over is journaled as over: its last play cannot be undone; nor, in a remote
        # match, a play the other board has (or will have) played too.
        if self.last_play is not None and self.state != m.GAME_OVER and not self.remote_seats:
            pages.append(RefereePage("restore"))
        self.referee_pages, self.referee_page = tuple(pages), 0
        return bool(pages)

    def returns_to(self) -> str:
        """The state a correction, a resumed game, referee mode or an overlay goes on in (the
        `resumes_<state>` conditions)."""
        returns = {m.CORRECTING: self.correction_return, m.RESUMING: self.resume_target,
                   m.REFEREE: self.referee_return}
        return returns.get(self.state, self.overlay_return)

    # == callbacks (named in machine.TRANSITIONS) ===================================================

    def begin_game(self) -> None:
        self.orientation = detect(self.sensed, self.position)
        if self.match_id is None:
            self.match_id = self.journal.start_match(self.match.rules, bots=self.bots)
            self.journaled_bots = self.bots
        self.journal.start_game(self.variant, self.rules, starter=self.starter, position=self.position,
                                orientation=self.orientation.value)
        self.opening_dice = None
        log.info("game of %s begins; the board lies %s", self.variant, self.orientation.value)

    def roll_opening_dice(self) -> None:
        white_die, black_die = self.dice_source.roll_die(), self.dice_source.roll_die()
        outcome = opening_roll(white_die, black_die, self.match.rules.opening_roll)
        self.journal.record_opening_roll(white_die, black_die, outcome)
        self.opening_dice = (white_die, black_die)
        if outcome.starter is None:
            return
        self.starter = outcome.starter
        self.position = self.position.with_turn(outcome.starter)
        self.dice, self.kept_die = outcome.first_dice, outcome.kept_die
        self._fire("opening_decided")

    def play_opening_dice(self) -> None:
        self._start_turn(self.starter, self.dice)

    def roll_for_mover(self) -> None:
        """Roll for the side to move (`position.turn`) and start its turn; journaled before shown."""
        if self.kept_die is not None:
            dice, self.kept_die = (self.kept_die, self.dice_source.roll_die()), None
        else:
            dice = self.dice_source.roll()
        self.journal.record_roll(self.position.turn, dice)
        self._start_turn(self.position.turn, dice)

    def commit_play(self) -> None:
        """The press committed the play on the board: journaled (durable) before anything else."""
        play, mover = self.verdict.play, self.position.turn
        if isinstance(self.dice, Owed):
            # Owed dice are played before the side's own roll: it is still that side's turn, and
            # not one of its turns played (gulbara's protected turns count them).
            play = Play(play.moves, replace(play.position, turn=mover, rolls=self.position.rolls), play.result)
        self.journal.record_play(mover, self.dice, play)
        self.last_play = LastPlay(self.position, mover, self.dice, play)
        self.position = play.position
        if play.result is not None:
            self.result_play = play
            self.match = self.match.record(play.result, self.starter, mover)
            self.referee, self.dice = None, None

    def hand_over_remainder(self) -> None:
        """gulbara_remainder = opponent_plays: the opponent plays the dice the play left, then rolls."""
        self._start_turn(self.position.turn, Owed(self.last_play.play.remainder))
        log.info("%s plays the dice %s left: %s", self.position.turn.value, self.last_play.mover.value,
                 self.dice)

    def refuse_press(self) -> None:
        reason = self._refusal_reason()
        details = {"state": self.state}
        if self.dice is not None:
            details["dice"] = list(self.dice)
        if self.referee is not None or self.state == m.AWAITING_ROLL:
            details["side"] = self.position.turn.value
        self.journal.record_refusal(reason, **details)
        self.refused_until = self.now + self.timings.refusal_s
        self.beep(Beep.ROLL_REFUSED)
        log.info("press refused: %s", reason)

    def _refusal_reason(self) -> str:
        if self.state in m.OVERLAYS or self.state == m.RESUMING:
            return self.state
        if self.state == m.SETUP:
            return "board_not_set_up"
        if self.state == m.CORRECTING:
            return "board_being_corrected"
        if self.sensed is None:
            return "board_not_read"
        if self.changing:
            return "board_changing"
        if self._lifted(self.sensed):
            return "checker_in_hand"
        if self.state != m.MOVING:
            return "waiting_for_dice" if self.board_shows_position() else "board_differs_from_position"
        if self.referee is None:
            return "waiting_for_remote_play"
        if self.verdict is None:
            return "board_being_judged"
        if self.verdict.kind == VerdictKind.COMPLETE:
            return "waiting_for_dice"
        return {VerdictKind.UNCHANGED: "rolling_too_early", VerdictKind.PARTIAL: "rolling_too_early",
                VerdictKind.ILLEGAL: "illegal_board", VerdictKind.FAULT: "sensor_fault",
                VerdictKind.IN_HAND: "checker_in_hand"}[self.verdict.kind]

    def remember_correction_return(self) -> None:
        self._begin_correction(self.state, "illegal_board")

    def guide_back_to_journal(self) -> None:
        self._begin_correction(self.resume_target, "board_differs_from_journal")

    def _begin_correction(self, returning_to: str, reason: str) -> None:
        self.correction_return = returning_to
        self.correction_goal = self.verdict.target if returning_to == m.MOVING else self.position
        self.correction_steps = self._steps_to(self.correction_goal, self._reading())
        # Not a fault: a board no legal play explains, refused until it is put right.
        self.journal.record_refusal(reason, state=self.state,
                                    steps=[step.to_json() for step in self.correction_steps])
        self.beep(Beep.ILLEGAL_BOARD)

    def resume_game(self) -> None:
        log.info("match %d resumed: game of %s, %s to move, going on in %s%s", self.match_id, self.variant,
                 self.position.turn.value, self.resume_target,
                 "" if self.board_continues_game() else " once the board is guided back")

    def remember_overlay_return(self) -> None:
        if self.state not in m.OVERLAYS:
            self.overlay_return = self.state

    def enter_referee(self) -> None:
        """The pages were built by `referee_has_pages`; a long press goes back to this state."""
        self.referee_return = self.state
        self.journal.record_referee("enter", state=self.state, side=self.position.turn.value,
                                    dice=None if self.dice is None else list(self.dice),
                                    plays_listed=len(self.legal_plays), pages=len(self.referee_pages))
        self._journal_page()

    def next_referee_page(self) -> None:
        self.referee_page = (self.referee_page + 1) % len(self.referee_pages)
        self._journal_page()

    def _journal_page(self) -> None:
        page = self.referee_pages[self.referee_page]
        details: dict[str, Any] = {}
        if page.kind == "replay_move":
            move = self.last_play.play.moves[page.index]
            details = {"side": self.last_play.mover.value, "dice": list(self.last_play.dice),
                       "move": move.to_json(), "index": page.index, "of": page.of}
        elif page.kind == "best_play":
            details = {"side": self.position.turn.value, "dice": list(self.dice),
                       "move": self.best_play.moves[page.index].to_json(), "index": page.index, "of": page.of}
        elif page.kind == "legal_play":
            play = self.legal_plays[page.index]
            details = {"moves": [move.to_json() for move in play.moves], "index": page.index, "of": page.of}
        else:
            details = {"to": self.last_play.before.to_json()}
        self.journal.record_referee(page.kind, **details)

    def leave_referee(self) -> None:
        self.journal.record_referee("leave")

    def restore_last_play(self) -> None:
        """The board stands as before the last play: that side plays the same dice again."""
        last = self.last_play
        self.journal.record_referee("restored", position=last.before, dice=list(last.dice),
                                    undone=[move.to_json() for move in last.play.moves])
        self.position, self.last_play = last.before, None
        self._start_turn(last.mover, last.dice)

    def prepare_next_game(self) -> None:
        self.variant = self.match.next_variant
        self.rules = self.rules_for(self.variant)
        self.starter = self.match.next_starter
        self._reset_game()

    def start_new_match(self) -> None:
        self.match, self.match_id = Match.new(self.match_rules), None
        self.variant = self.match.next_variant
        self.rules = self.rules_for(self.variant)
        self.starter = None
        self._reset_game()

    def _reset_game(self) -> None:
        # The board the players clear: its pins tell what lies under a stack a magnet sensor sees the bottom of.
        self.cleared_position = self.position
        self.position = Position.start(self.variant, self.starter or WHITE)
        self.referee, self.dice, self.verdict, self.opening_dice = None, None, None, None
        self.last_play, self.result_play, self.kept_die = None, None, None

    def forfeit_match(self) -> None:
        """The remote match ends: the side that forfeits loses it (the winner is given what the match
        still needs), journaled as the game's end with the reason."""
        loser, winner = self.forfeit_pending.loser, self.forfeit_pending.loser.opponent
        result = GameResult(winner, max(1, self.match.rules.target - self.match.score[winner]), "forfeit")
        last_mover = self.last_play.mover if self.last_play is not None else (self.starter or winner)
        self.journal.record_fault("remote_forfeit", self.forfeit_pending.reason, loser=loser.value)
        self.journal.end_game(result, last_mover, "forfeit")
        self.result_play = Play((), self.position, result)
        self.match = self.match.record(result, self.starter or last_mover, last_mover)
        self.referee, self.dice, self.forfeit_pending = None, None, None
        log.warning("%s forfeits the match: %s", loser.value, result)

    def note_blockade(self) -> None:
        """No roll can change the board any more: none is rolled; the lights say so."""
        self.referee, self.dice = None, None
        self.journal.record_referee("blocked_for_good", board=self.position.to_json())
        log.info("permanent mutual blockade: a press ends the game as a draw")

    def draw_blockade(self) -> None:
        """The players end a game that can never end otherwise: a tie, 0-0 (as both mothers pinned)."""
        result, last_mover = GameResult(None, 0, "tie"), self.last_play.mover
        self.journal.end_game(result, last_mover, "blocked_for_good")
        self.result_play = Play((), self.position, result)
        self.match = self.match.record(result, self.starter or last_mover, last_mover)

    def update_correction(self) -> None:
        """Back from referee mode: the board may have changed meanwhile. (Not back from an overlay:
        the last reading may be the faulty one; the next reading updates the steps.)"""
        self._update_correction()

    def on_enter_game_over(self) -> None:
        self.deadline = self.now + self.timings.game_over_s

    def on_exit_game_over(self) -> None:
        self.deadline = None

    # == the scene ===================================================================================

    def _score(self) -> Score:
        score = self.match.score
        return Score(score[Color.WHITE], score[Color.BLACK], self.match.rules.target)

    def _faces(self, dice: tuple[int, ...] | None) -> tuple[int, int] | None:
        """What the two dice faces show now: the roll, or the owed die of this moment of their blinking
        (None between blinks)."""
        if not isinstance(dice, Owed):
            return dice
        self.blinking_owed = dice
        return _owed_blink(dice, self.now - self.dice_since)[0]

    def _build_scene(self) -> Scene:
        self.blinking_owed = None
        scene = getattr(self, f"_scene_{self.state}")()
        if self.storage_fault is not None:
            return Scene(scene.marks, None, DiceSignal.STORAGE_FAULT, scene.turn, scene.score)
        if self.journal_damage is not None:
            return Scene(scene.marks, None, DiceSignal.JOURNAL_DAMAGED, scene.turn, scene.score)
        if self.now < self.refused_until and scene.dice_signal is not DiceSignal.NO_LEGAL_MOVE:
            return Scene(scene.marks, None, DiceSignal.ROLL_REFUSED, scene.turn, scene.score)
        if self.now < self.remote_fault_until:
            return Scene(scene.marks, None, DiceSignal.REMOTE_FAULT, scene.turn, scene.score)
        return scene

    def _turn_scene(self, marks: dict[str, Mark]) -> Scene:
        faces = self._faces(self.dice)
        signal = DiceSignal.NO_LEGAL_MOVE if self.no_legal_move and faces is not None else None
        return Scene(marks, faces, signal, self.position.turn.value, self._score())

    def _scene_resuming(self) -> Scene:
        """The journaled score, whose turn and dice, waiting for the board to be read."""
        turn = self.position.turn.value if self.resume_target != m.OPENING_ROLL else None
        return Scene({}, self._faces(self.dice), DiceSignal.WAITING if self.dice is None else None, turn, self._score())

    def _scene_setup(self) -> Scene:
        marks: dict[str, Mark] = {}
        if self.sensed is not None:
            marks = setup_marks(*self._setup_steps())
        return Scene(marks, None, DiceSignal.WAITING, None, self._score())

    def _setup_steps(self) -> tuple[Orientation, tuple[Step, ...]]:
        """The way the players have begun to set up, and the steps from the board to the game's start."""
        sensed = self.sensed
        if self.sensing is Sensing.BOTTOM_COLOUR:
            # The cleared board's pins lie where its game's orientation put them.
            cleared = resolve(self.orientation.reading(sensed, self.variant), self.cleared_position, moving=False)
            sensed = laid_out(cleared, self.orientation)
        orientation = nearest(sensed, self.position)
        return orientation, self._steps_to(self.position, orientation.reading(sensed, self.variant),
                                           orientation.reading(self.sensed, self.variant))

    def _steps_to(self, target: Position, reading: Reading, seen: Reading | None = None) -> tuple[Step, ...]:
        """The steps from `reading` to `target`; for magnet sensors, ordered (with checkers parked where
        two colours wait for each other, or where one lies under a checker that stays) so that every
        checker is taken from the top and every board on the way reads as it is. `seen`: the sensors'
        report in `reading`'s numbering (default: the game's)."""
        steps = restore(target, reading)
        if self.sensing is not Sensing.BOTTOM_COLOUR:
            return steps
        return unstacked(steps, reading, target, seen or self.orientation.reading(self.sensed, self.variant))

    def _scene_opening_roll(self) -> Scene:
        if self.opening_dice is None:
            return Scene({}, None, DiceSignal.WAITING, None, self._score())
        return Scene({}, self.opening_dice, None, None, self._score())

    def _scene_awaiting_roll(self) -> Scene:
        return Scene({}, None, DiceSignal.WAITING, self.position.turn.value, self._score())

    def _scene_moving(self) -> Scene:
        marks: dict[str, Mark] = {}
        verdict = self.verdict
        if isinstance(self.referee, HeldReferee) and (verdict is None or verdict.kind != VerdictKind.FAULT):
            marks = self._bot_move_marks()
        elif verdict is not None and verdict.kind == VerdictKind.IN_HAND:
            mover = self.position.turn
            marks = destination_marks(self.orientation, verdict.origin, verdict.destinations, mover)
            for location in verdict.opponent_destinations:
                marks[self._led(location, mover.opponent)] = Mark.LEGAL_DESTINATION
        elif verdict is not None and verdict.kind == VerdictKind.FAULT:
            marks = {self._led(verdict.fault.location, verdict.fault.color): Mark.SENSOR_FAULT} \
                if verdict.fault.location != "board" else dict.fromkeys(LOCATIONS, Mark.SENSOR_FAULT)
        return self._turn_scene(marks)

    def _bot_move_marks(self) -> dict[str, Mark]:
        """The bot's next move, for a person to make: take a checker from here, put it on there."""
        moves = self.referee.play.moves[self.bot_moves_made:self.bot_moves_made + 1]
        return move_marks(self.orientation, moves, self.position.turn, Mark.TAKE_FROM, Mark.PUT_ON)

    def _scene_correcting(self) -> Scene:
        """Every place that is wrong, and the one step to take first."""
        marks = {}
        for step in self.correction_steps:
            marks.update(dict.fromkeys(step_marks(self.orientation, step), Mark.ILLEGAL))
        if self.correction_steps:
            marks.update(step_marks(self.orientation, self.correction_steps[0]))
        if self.correction_return != m.MOVING:
            return Scene(marks, None, None, None, self._score())
        return self._turn_scene(marks)

    def _scene_referee(self) -> Scene:
        page = self.referee_pages[self.referee_page]
        if page.kind == "replay_move":
            last = self.last_play
            move = last.play.moves[page.index]
            marks = move_marks(self.orientation, [move], last.mover, Mark.LAST_PLAY_ORIGIN,
                               Mark.LAST_PLAY_DESTINATION)
            return Scene(marks, self._faces(last.dice), None, last.mover.value, self._score())
        if page.kind == "best_play":
            move = self.best_play.moves[page.index]
            marks = move_marks(self.orientation, [move], self.position.turn, Mark.LAST_PLAY_ORIGIN,
                               Mark.LAST_PLAY_DESTINATION)
            return Scene(marks, self._faces(self.dice), None, self.position.turn.value, self._score())
        if page.kind == "legal_play":
            play = self.legal_plays[page.index]
            marks = move_marks(self.orientation, play.moves, self.position.turn, Mark.LIFTED_ORIGIN,
                               Mark.LEGAL_DESTINATION)
            return Scene(marks, self._faces(self.dice), None, self.position.turn.value, self._score())
        marks = {}
        if self.sensed is not None:
            steps = self._steps_to(self.last_play.before, self._reading())
            if steps:
                marks = step_marks(self.orientation, steps[0])
        return Scene(marks, self._faces(self.last_play.dice), None, self.last_play.mover.value, self._score())

    def _scene_blockade(self) -> Scene:
        return Scene({}, None, DiceSignal.BLOCKADE, None, self._score())

    def _scene_button_stuck(self) -> Scene:
        """The interrupted state's lights, with "release the button" on the dice."""
        under = getattr(self, f"_scene_{self.overlay_return}")()
        return Scene(under.marks, None, DiceSignal.BUTTON_STUCK, under.turn, under.score)

    def _scene_game_over(self) -> Scene:
        winner = self.result_play.result.winner
        return Scene({}, None, None, winner.value if winner else None, self._score())

    def _scene_match_over(self) -> Scene:
        # A remote match won by a forfeit says so on the dice until the next match begins.
        forfeited = self.match.games and self.match.games[-1].result.reason == "forfeit"
        return Scene({}, None, DiceSignal.REMOTE_FAULT if forfeited else None, self.match.winner.value, self._score())

    def _scene_link_lost(self) -> Scene:
        return Scene(dict.fromkeys(LOCATIONS, Mark.SENSOR_FAULT), self._faces(self.dice), None, self._turn_side(),
                     self._score())

    def _scene_sensor_fault(self) -> Scene:
        marks = {led: Mark.SENSOR_FAULT for fault in self.sensor_faults.values() for led in fault_leds(fault.location)}
        return Scene(marks, self._faces(self.dice), None, self._turn_side(), self._score())

    def _turn_side(self) -> str | None:
        return self.position.turn.value if self.referee is not None else None

    def _led(self, location: str, colour: Color) -> str | None:
        return led(self.orientation, location, colour)

    # == the view ===================================================================================

    def view(self) -> GameView:
        """The game as it stands now, as one immutable value (what every surface reads)."""
        state = m.State(self.state)
        overlaid = state.value in m.OVERLAYS
        returns_to = m.State(self.overlay_return) if overlaid else None
        over = (returns_to or state) in (m.State.GAME_OVER, m.State.MATCH_OVER)
        held = isinstance(self.referee, HeldReferee)
        page = self.referee_pages[self.referee_page] if self.state == m.REFEREE and self.referee_pages else None
        return GameView(
            state=state, returns_to=returns_to, match_id=self.match_id, match=self.match,
            game_number=len(self.match.games) + (not over), variant=self.variant, rules=self.rules,
            bots=self.bots, position=self.position, in_turn=self.referee is not None, dice=self.dice,
            opening_dice=self.opening_dice, no_legal_move=self.no_legal_move, verdict=self.verdict,
            judging=self.awaiting_verdict is not None, orientation=self.orientation, sensed=self.sensed,
            board=self.board_reading,
            changing=self.changing, settled=self.settled, guidance=self._guidance(),
            bot_play=self.referee.play if held else None, bot_moves_made=self.bot_moves_made, scene=self.scene,
            remote_seats=self.remote_seats, remote_fault=self.remote_fault,
            referee_page=page, last_play=self.last_play, sensor_faults=tuple(self.sensor_faults.values()),
            button_stuck=self.stuck_button_down,
            storage_fault=None if self.storage_fault is None else self.storage_fault.reason,
            journal_damage=self.journal_damage)

    def _guidance(self) -> tuple[Step, ...]:
        """The steps the lights guide through now, in the board's labels (setup: all of them; an
        illegal board: from the first)."""
        if self.sensed is None:
            return ()
        if self.state == m.SETUP:
            orientation, steps = self._setup_steps()
        elif self.state == m.CORRECTING:
            orientation, steps = self.orientation, self.correction_steps
        elif self.state == m.REFEREE and self.referee_pages[self.referee_page].kind == "restore":
            orientation, steps = self.orientation, self._steps_to(self.last_play.before, self._reading())
        elif self.referee is not None and self.verdict is not None and self.verdict.kind == VerdictKind.ILLEGAL:
            orientation, steps = self.orientation, self.verdict.steps
        else:
            return ()
        return BoardLabels(orientation).steps(steps)


def _journaled_play(journal: Any, match_id: int, last: PlayRecord) -> tuple[Position, tuple[int, ...]]:
    """From the journal: the position `last` was played from (the one held before it: a play's, a
    referee's or the game's start, with its side to move), and the dice it left the opponent."""
    events = journal.match_events(match_id)
    owed = next(tuple(event.data.get("remainder", ())) for event in events if event.seq == last.seq)
    for event in reversed(events):
        if event.seq < last.seq and "position" in event.data and \
                event.kind in (Kind.PLAY, Kind.REFEREE, Kind.GAME_STARTED):
            return Position.from_json(event.data["position"]).with_turn(last.side), owed
    raise LookupError(f"the journal of match {match_id} holds no position before its play {last.seq}")


def _dice(journaled: tuple[int, ...]) -> tuple[int, ...]:
    """Journaled dice: a roll of two, or more (or one) dice that were owed."""
    return journaled if len(journaled) == 2 else Owed(journaled)


def _owed_blink(owed: tuple[int, ...], elapsed: float) -> tuple[tuple[int, int] | None, float]:
    """Owed dice blinked one at a time (`OWED_DIE_ON_S`...), `elapsed` seconds since they were handed
    over: the faces shown (None: dark), and the seconds until that changes."""
    step = OWED_DIE_ON_S + OWED_DIE_OFF_S
    into_cycle = elapsed % (len(owed) * step + OWED_PAUSE_S)
    die, into_step = divmod(into_cycle, step)
    if die >= len(owed):   # the pause after the last die
        return None, len(owed) * step + OWED_PAUSE_S - into_cycle
    if into_step < OWED_DIE_ON_S:
        return (owed[int(die)],) * 2, OWED_DIE_ON_S - into_step
    return None, step - into_step


def _resumes(state: str) -> Callable[[Controller], bool]:
    def condition(controller: Controller) -> bool:
        return controller.returns_to() == state
    condition.__name__ = f"resumes_{state}"
    condition.__doc__ = f"Whether the correction or overlay being left was entered from {state}."
    return condition


# The table's `resumes_<state>` conditions, one per state a correction or an overlay may return to.
for _state in m.RESUMABLE:
    setattr(Controller, f"resumes_{_state}", _resumes(_state))
