"""A remote seat: two boards play one match through the club's broker, each the seat of one player.

    [club]
    broker = "club.example"
    board = "argostoli-1"
    opponent = "lixouri-2"                    # the other board
    opponent_key = "base64 Ed25519 key"       # `tavli-board club key` on the other board
    seat = "white"                            # this board's player; the other board's plays black

What this board's player plays is read from the journal (the outbox, as for the club's publisher)
and sent to the other board, signed; a play that comes from the other board is posted to the loop
(`RemotePlay`), where the controller checks it against the turn by the rules and lights it move by
move for this board's player to make, holding the board to it as for the bot's seat
(controller/remote.py). The network never blocks refereeing: this runs on a thread of its own and
only posts events; the loop owns the state.

Dice neither board can choose (club/dice.py): for each roll both boards commit to a secret, then
reveal it; the dice come from both. The next roll is agreed while the current one is played, so a
press never waits for the network unless the other board is slow (then the press is refused,
"waiting for dice", until both secrets are in). A board that has committed but does not reveal
within `reveal_timeout_s` is warned (journaled and shown on both boards); after as long again it
forfeits: the match ends on this board (journaled, shown) and the other board is told. (The board
knows the next roll one turn early; its player sees it only when it is rolled.)

Every message is an envelope signed by its board (club/envelope.py) on its own topic
`tavli/CLUB/BOARD/remote/OPPONENT`; a message that is not the opponent's, not for this board, or
not newer than the last taken (a replay) is refused: a fault is journaled and shown, and nothing of
it applied.

A restart at any moment takes the match up again (`SeatKeeping`: what the seat needs, kept beside the
journal and written whole before each message leaves; the journal says which dice were rolled and
which of the other's plays were made). Each message of the match is numbered on from the last; the
other board takes them whole and in order. At every (re)connection a board tells the other the last
number it took (a `resume` word on the stream `resume/BOARD`), and the other sends everything after it
again, announced (`resending`), so that a message taken twice that way is dropped without a fault;
any other message taken before, a replay, is refused. Both boards begin the remote match together
(their roll numbers start at 1).
"""
from __future__ import annotations

import json
import logging
import os
import queue
import secrets
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.club.dice import SECRET_BYTES, DiceExchangeError, RollExchange, RollId, commitment
from firmware_host.club.envelope import (AlreadyAccepted, EnvelopeRefused, OutOfOrder, Signer, Verifier,
                                         number_after, public_key_from_text)
from firmware_host.config import REMOTE_SEAT_ROLE, ClubSettings
from firmware_host.controller.remote import RemoteFault, RemoteForfeit, RemotePlay
from firmware_host.hw.dice import DiceSource
from firmware_host.journal import JournalReader, Kind
from firmware_host.rules import Color
from firmware_host.service.club import ClubUnavailable, ClubWorker, board_key

log = logging.getLogger(__name__)

REVEAL_TIMEOUT_S = 60.0   # a committed board's secret is this late: warned; twice as late: it forfeits
SEND_TIMEOUT_S = 10.0     # a message the broker has not acknowledged by then is sent again
JOURNAL_INTERVAL_S = 0.2  # the journal read at most this often for new plays (every view wakes the thread)
ASK_AGAIN_S = 2.0         # a board still missing a message of the other's asks for it again this often
RESEND_WINDOW = 10_000    # the most messages one announcement of messages sent again covers


class AgreedDice(DiceSource):
    """The dice both boards agreed, in order; the loop takes them, this seat's thread adds them."""

    def __init__(self, taken: Callable[[], None]):
        self._dice: deque[int] = deque()
        self._lock = threading.Lock()
        self._taken = taken

    def roll_die(self) -> int:
        with self._lock:
            value = self._dice.popleft()
        self._taken()   # the next roll is agreed while this one is played
        return value

    def ready(self) -> bool:
        return self.left() >= 2

    def add(self, dice: tuple[int, int]) -> None:
        with self._lock:
            self._dice.extend(dice)

    def left(self) -> int:
        """The dice agreed and not yet rolled."""
        with self._lock:
            return len(self._dice)


def remote_topic(club: ClubSettings, sender: str, receiver: str) -> str:
    return f"tavli/{club.club}/{sender}/remote/{receiver}"


class RemoteSeat(ClubWorker):
    """This board's end of a remote match: its player's plays out, the opponent's in, the dice agreed."""

    def __init__(self, club: ClubSettings, journal_path: Path, post: Callable[[object], None], *,
                 key: Ed25519PrivateKey | None = None, reveal_timeout_s: float = REVEAL_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic, client_factory: Callable[..., Any] | None = None,
                 draw_secret: Callable[[int], bytes] = secrets.token_bytes):
        """`draw_secret(n)`: n fresh random bytes for each roll's secret (the operating system's CSPRNG;
        tests pass a seeded one, so that a test's match is the same every run). What the seat was doing
        when the service stopped is taken up from `kept_path(journal_path)` and the journal."""
        if club.broker is None or club.opponent is None or club.opponent_key is None or club.seat is None:
            raise ValueError("a remote seat needs [club] broker, opponent, opponent_key and seat")
        self.journal_path, self.post = journal_path, post
        self.me, self.other = club.board, club.opponent
        self.signer = Signer(self.me, key or board_key(club.signing_key_path))
        self.verifier = Verifier({self.other: public_key_from_text(club.opponent_key)})
        self.reveal_timeout_s, self.clock, self.draw_secret = reveal_timeout_s, clock, draw_secret
        client = self._open(club, REMOTE_SEAT_ROLE, client_factory, join_s=SEND_TIMEOUT_S + 5)
        client.on_connect = self._connected
        client.on_message = self._message
        self.dice = AgreedDice(self._wake.set)
        self.match = f"{club.club}/{'+'.join(sorted((self.me, self.other)))}"   # what each roll is bound to
        self.kept = SeatKeeping(kept_path(journal_path))
        self.revealed_at: float | None = None    # when this board revealed and the other's secret became due
        self.warned = False
        self.expect_again: set[int] = set()      # the other's messages taken that it announced it sends again
        self._asked_at = float("-inf")           # when this board last asked the other to send again
        self._seen_ahead = 0                     # the highest number of the other's that came out of order
        self._connected_anew = False
        self._control_seq = 0
        self._journal_read_at = float("-inf")
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        # The kinds of message of the match, each to its handler: a type named by the message picks
        # from these only (never any other method of the seat's).
        self._takers = {"play": self._take_play, "commit": self._take_commit, "reveal": self._take_reveal,
                        "warning": self._take_warning, "forfeit": self._take_forfeit}
        self._take_up()

    @property
    def next_roll(self) -> int:
        return self.kept.rolls_agreed + 1

    @property
    def exchange(self) -> RollExchange | None:
        return self.kept.exchange

    @property
    def forfeited(self) -> bool:
        return self.kept.forfeit is not None

    def _take_up(self) -> None:
        """The remote match this board was in when the service stopped, or a new one (none kept, or the
        last one ended by a forfeit, as its journal says): the dice agreed and not yet rolled (the
        journal says which were rolled), the other's plays taken and not yet made here, posted again,
        and a forfeit not yet journaled, posted again."""
        kept = self.kept
        if kept.load(self.match):
            records = self._journal_after(kept.began_after)
            forfeit_journaled = any(record.kind == Kind.FAULT and record.data["fault"] == "remote_forfeit"
                                    for record in records)
            if kept.forfeit is None or not forfeit_journaled:
                self._go_on(records)
                return
            log.info("remote seat: the last match with %s ended by a forfeit; a new one begins", self.other)
            self.kept = kept = SeatKeeping(kept.path)
        kept.match, kept.began_after = self.match, self._journal_end()
        kept.sent_through = kept.began_after
        kept.save()

    def _go_on(self, records: list) -> None:
        kept = self.kept
        self.verifier.accepted.update({(self.other, stream): seq for stream, seq in kept.accepted.items()})
        rolled, made_here = dice_rolled(records), self._made_here(records)
        self.dice.add(tuple(kept.dice[rolled:]))
        if kept.exchange is not None and kept.exchange.secrets.get(self.me) is not None:
            self.revealed_at = self.clock()   # its secret is due afresh from now
        for body in kept.plays_taken[made_here:]:
            self.post(self._remote_play(body))
        if kept.forfeit is not None:   # not journaled yet
            self.post(RemoteForfeit(Color(kept.forfeit["loser"]), kept.forfeit["reason"]))
        log.info("remote seat: taken up with %s at roll %d (%d dice agreed and not rolled, %d plays to make here)",
                 self.other, self.next_roll, self.dice.left(), len(kept.plays_taken) - made_here)

    def _journal_after(self, seq: int) -> list:
        if not self.journal_path.exists():
            return []
        with JournalReader.open(self.journal_path) as journal:
            return journal.records_after(seq, 1_000_000)

    def _made_here(self, records: list) -> int:
        """How many of the other board's plays these journal records hold (made on this board)."""
        return sum(record.kind == Kind.PLAY and record.data["side"] == self.club.seat.opponent.value for record in records)

    def _match_began(self, seq: int) -> None:
        """A new match began at journal record `seq`: what the last one rolled and made is forgotten,
        so that what is kept stays the size of one match."""
        kept = self.kept
        records = [record for record in self._journal_after(kept.began_after) if record.seq < seq]
        del kept.dice[:dice_rolled(records)]
        del kept.plays_taken[:self._made_here(records)]
        kept.began_after = seq - 1
        kept.save()

    # -- any thread ---------------------------------------------------------------------------------

    def observe(self, view: Any, event: object) -> None:
        """The loop's observer: the journal may hold a new play of this board's player."""
        self._wake.set()

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            log.error("remote seat: the broker refused %s: %s", self.me, reason)
            return
        client.subscribe(remote_topic(self.club, self.other, self.me), qos=1)
        self._connected_anew = True
        self._wake.set()

    def _message(self, client, userdata, message) -> None:
        if message.topic != remote_topic(self.club, self.other, self.me):
            log.debug("remote seat: a message on %s, which it did not subscribe to", message.topic)
            return   # a broker's mistake (amqtt hands a new subscriber retained messages of other topics)
        self._inbox.put(message.payload)
        self._wake.set()

    # -- the seat's thread ------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=0.2)
            self._wake.clear()
            try:
                if self._connected_anew:
                    self._connected_anew = False
                    self._ask_again(at_once=True)   # what the other sent while this board was away
                elif self.kept.accepted.get(self._stream, 0) < self._seen_ahead:
                    self._ask_again()               # a message was lost on the way: still missing
                while True:
                    try:
                        payload = self._inbox.get_nowait()
                    except queue.Empty:
                        break
                    self._receive(payload)
                if self.client.is_connected() and not self.forfeited:
                    self._agree_dice()
                    if time.monotonic() - self._journal_read_at >= JOURNAL_INTERVAL_S:
                        self._journal_read_at = time.monotonic()
                        self._send_plays()
            except Exception:   # a fault of the network or the disk must not end the thread
                log.exception("remote seat: will try again")

    def _send(self, body: dict) -> None:
        """A message of the match: numbered on from the last (the other takes them whole and in order),
        kept with everything the seat did before it (a secret committed to, a play sent) before it
        leaves, so that it is sent again, the same, after a restart or a loss."""
        kept = self.kept
        seq = kept.seq + 1
        envelope = self.signer.seal(f"remote/{self.other}", seq, {**body, "taken": kept.accepted.get(self._stream, 0)})
        payload = json.dumps(envelope, separators=(",", ":"))
        kept.seq = seq
        kept.outbox.append((seq, payload))
        kept.save()
        self._publish(payload)

    def _send_control(self, body: dict) -> None:
        """A word about the match's messages (which were taken, which come again): not itself kept."""
        self._control_seq = number_after(self._control_seq)
        envelope = self.signer.seal(f"resume/{self.other}", self._control_seq, body)
        self._publish(json.dumps(envelope, separators=(",", ":")))

    def _publish(self, payload: str) -> None:
        info = self.client.publish(remote_topic(self.club, self.me, self.other), payload, qos=1)
        try:
            info.wait_for_publish(timeout=SEND_TIMEOUT_S)
        except (RuntimeError, ValueError) as error:   # not connected: the other asks for it again
            log.info("remote seat: not sent now (%s); sent again when %s asks", error, self.other)

    @property
    def _stream(self) -> str:
        return f"remote/{self.me}"

    def _ask_again(self, at_once: bool = False) -> None:
        """Ask the other board to send again what it sent after the last message taken here (at most
        once per ASK_AGAIN_S, unless this board has just (re)connected)."""
        if not at_once and self.clock() - self._asked_at < ASK_AGAIN_S:
            return
        self._asked_at = self.clock()
        self._send_control({"type": "resume", "taken": self.kept.accepted.get(self._stream, 0), "answer": False})

    def _fault(self, fault: str, message: str) -> RemoteFault:
        log.warning("remote seat: %s", message)
        return RemoteFault(fault, message)

    def _receive(self, payload: bytes) -> None:
        to_post: list[object] = []
        try:
            envelope = json.loads(payload)
            stream = envelope.get("stream") if isinstance(envelope, dict) else None
            in_order = self.kept.accepted.get(self._stream, 0) + 1 if stream == self._stream else None
            try:
                board, stream, seq, body = self.verifier.open(envelope, expect=in_order)
            except AlreadyAccepted:
                if in_order is not None and envelope["seq"] in self.expect_again:
                    self.expect_again.discard(envelope["seq"])   # announced: sent again after a restart or a loss
                    return
                raise
            except OutOfOrder as error:
                log.info("remote seat: %s; asking for what came before", error)
                self._seen_ahead = max(self._seen_ahead, envelope["seq"])
                self._ask_again()
                return
            self.kept.accepted[stream] = seq
            if not isinstance(body, dict) or not isinstance(body.get("type"), str):
                raise EnvelopeRefused(f"{board}: a message without a type")
            if isinstance(body.get("taken"), int):
                self.kept.taken_by_other(body["taken"])
            if stream == f"resume/{self.me}":
                self._take_resume(body)
                return
            if stream != self._stream:
                raise EnvelopeRefused(f"{board}: a message for {stream.removeprefix('remote/')}, not for {self.me}")
            self._takers.get(body["type"], self._take_unknown)(body, to_post)
        except AlreadyAccepted as error:
            to_post.append(self._fault("remote_refused", f"refused a replayed message: {error}"))
        except (EnvelopeRefused, DiceExchangeError, ValueError, KeyError, TypeError) as error:
            to_post.append(self._fault("remote_refused", f"refused a message from the broker: {str(error)[:200]}"))
        finally:
            if to_post or self.kept.changed():
                self.kept.save()   # what was taken, before the loop hears of it
            for event in to_post:
                self.post(event)

    def _take_resume(self, body: dict) -> None:
        """The other board says what it has taken (and asks for the rest), or announces what it sends again."""
        if body["type"] == "resending":
            first, last = int(body["first"]), int(body["last"])
            taken = self.kept.accepted.get(self._stream, 0)
            self.expect_again |= set(range(max(first, taken - RESEND_WINDOW), min(last, taken) + 1))
            return
        if body["type"] != "resume":
            raise EnvelopeRefused(f"{self.other}: no word of type {body['type'][:40]!r}")
        if not body.get("answer"):
            self._send_control({"type": "resume", "taken": self.kept.accepted.get(self._stream, 0), "answer": True})
            self._asked_at = self.clock()
        again = [(seq, payload) for seq, payload in self.kept.outbox if seq > int(body["taken"])]
        if again:
            self._send_control({"type": "resending", "first": again[0][0], "last": again[-1][0]})
            log.info("remote seat: sending %s messages %d to %d again", self.other, again[0][0], again[-1][0])
            for seq, payload in again:
                self._publish(payload)

    def _take_unknown(self, body: dict, to_post: list) -> None:
        raise EnvelopeRefused(f"{self.other}: no message of type {body['type'][:40]!r}")

    def _remote_play(self, body: dict) -> RemotePlay:
        return RemotePlay(self.other, str(body["side"]), tuple(body["dice"]), tuple(body["moves"]), body["position"])

    def _take_play(self, body: dict, to_post: list) -> None:
        play = self._remote_play(body)
        self.kept.plays_taken.append({key: body[key] for key in ("side", "dice", "moves", "position")})
        to_post.append(play)

    def _take_commit(self, body: dict, to_post: list) -> None:
        roll, value = int(body["roll"]), str(body["commitment"])
        if self.exchange is not None and roll == self.exchange.roll.roll:
            self.exchange.receive_commitment(self.other, value)
        elif roll == self.next_roll + (self.exchange is not None) and roll not in self.kept.commitments:
            # The other board began this roll first (it finished the one before sooner): it begins here too.
            self.kept.commitments[roll] = value
        else:
            raise DiceExchangeError(f"{self.other} committed to roll {roll}; the roll under way is {self.next_roll}")

    def _take_reveal(self, body: dict, to_post: list) -> None:
        roll = int(body["roll"])
        if self.exchange is None or roll != self.exchange.roll.roll:
            raise DiceExchangeError(f"{self.other} revealed roll {roll}, which is not under way")
        secret = bytes.fromhex(str(body["secret"]))
        if self.other not in self.exchange.commitments and self.me not in self.exchange.secrets:
            # Its commitment was lost (sent before this board listened); it revealed after this board
            # committed and before this board revealed, so its secret could not depend on this one's.
            self.exchange.receive_commitment(self.other, commitment(self.exchange.roll, self.other, secret))
        self.exchange.receive_reveal(self.other, secret)

    def _take_warning(self, body: dict, to_post: list) -> None:
        to_post.append(self._fault("remote_late", f"{self.other} warns: {str(body['message'])[:200]}"))

    def _take_forfeit(self, body: dict, to_post: list) -> None:
        self._forfeit(self.club.seat, f"{self.other}: {str(body['reason'])[:200]}", to_post)

    def _forfeit(self, loser: Color, reason: str, to_post: list) -> None:
        self.kept.forfeit = {"loser": loser.value, "reason": reason}
        to_post.append(RemoteForfeit(loser, reason))

    def _agree_dice(self) -> None:
        """Begin the next roll when the dice run short or the other board began it; reveal once the
        other's commitment is here; take the dice once its secret is; warn, then forfeit, a board late
        with its secret. The secret is kept with the commitment that binds it, before that is sent:
        after a restart the same secret is revealed, never a new one drawn."""
        kept = self.kept
        while True:
            if kept.exchange is None and (self.dice.left() < 2 or self.next_roll in kept.commitments):
                kept.exchange = RollExchange(RollId(self.match, self.next_roll), self.me, self.other,
                                             self.draw_secret(SECRET_BYTES))
                self.revealed_at, self.warned = None, False
                if self.next_roll in kept.commitments:
                    kept.exchange.receive_commitment(self.other, kept.commitments.pop(self.next_roll))
                self._send({"type": "commit", "roll": self.next_roll, "commitment": kept.exchange.my_commitment})
            exchange = kept.exchange
            if exchange is None:
                return
            if self.other in exchange.commitments and self.me not in exchange.secrets:
                self._send({"type": "reveal", "roll": exchange.roll.roll, "secret": exchange.my_reveal().hex()})
                self.revealed_at = self.clock()
            if exchange.waiting_for is None:
                dice = exchange.dice()
                kept.dice.extend(dice)
                kept.rolls_agreed += 1
                kept.exchange = None
                kept.save()   # agreed before the loop can roll them
                self.dice.add(dice)
                log.debug("remote seat: roll %d agreed with %s: %s", exchange.roll.roll, self.other, dice)
                continue
            if self.revealed_at is not None:
                self._check_late(self.clock() - self.revealed_at)
            return

    def _check_late(self, late_s: float) -> None:
        roll = self.exchange.roll.roll
        if late_s >= 2 * self.reveal_timeout_s:
            reason = f"{self.other} did not reveal its dice secret for roll {roll} within {2 * self.reveal_timeout_s:g} s"
            to_post: list[object] = []
            self._forfeit(self.club.seat.opponent, reason, to_post)
            self._send({"type": "forfeit", "reason": reason})
            for event in to_post:
                self.post(event)
        elif late_s >= self.reveal_timeout_s and not self.warned:
            message = (f"{self.other} has not revealed its dice secret for roll {roll} after {self.reveal_timeout_s:g} s; "
                       f"it forfeits the match after {2 * self.reveal_timeout_s:g} s")
            self.warned = True
            self.post(self._fault("remote_late", message))
            self._send({"type": "warning", "roll": roll, "message": message})

    def _journal_end(self) -> int:
        if not self.journal_path.exists():
            return 0
        with JournalReader.open(self.journal_path) as journal:
            last = journal.tail(1)
        return last[-1].seq if last else 0

    def _send_plays(self) -> None:
        """This board's player's plays, from the journal, in order, each kept as sent with the message."""
        with JournalReader.open(self.journal_path) as journal:
            records = journal.records_after(self.kept.sent_through, 100)
        for record in records:
            if record.kind == Kind.MATCH_STARTED and record.seq > self.kept.began_after + 1:
                self._match_began(record.seq)
            self.kept.sent_through = record.seq
            if record.kind == Kind.PLAY and record.data["side"] == self.club.seat.value:
                self._send({"type": "play", **{key: record.data[key] for key in ("side", "dice", "moves", "position")}})


def dice_rolled(records: list) -> int:
    """How many dice the loop took for the rolls these journal records hold: two for each opening roll
    and each roll, one for a starter's first roll that keeps its opening die (keep_own_die)."""
    rolled, kept_die = 0, False
    for record in records:
        if record.kind == Kind.GAME_STARTED:
            kept_die = False
        elif record.kind == Kind.OPENING_ROLL:
            rolled += 2
            kept_die = record.data.get("kept_die") is not None and record.data.get("starter") is not None
        elif record.kind == Kind.ROLL:
            rolled += 1 if kept_die else 2
            kept_die = False
    return rolled


def kept_path(journal_path: Path) -> Path:
    """Where a remote seat keeps what it takes up after a restart: beside the journal."""
    return journal_path.with_name(journal_path.name + "-remote.json")


class SeatKeeping:
    """What a remote seat needs after a restart, kept beside the journal as one JSON file, written
    whole, flushed to the disk and renamed over the last (so a power cut leaves the last whole one):
    the messages it numbered and sent (until the other says it took them), the last number taken from
    the other's streams, the plays of the other taken and the dice agreed since the match began, the
    roll under way with this board's secret, and where in the journal its own plays have been sent to.
    The journal says the rest (which dice were rolled, which of the other's plays were made here)."""

    def __init__(self, path: Path):
        self.path = path
        self.match = ""
        self.began_after = 0                     # the journal's last record before this match (or the seat) began
        self.sent_through = 0                    # the journal's records looked through for this board's plays
        self.seq = 0                             # the last number this board gave a message of the match
        self.outbox: list[tuple[int, str]] = []  # (seq, envelope) sent and not yet taken by the other
        self.taken_by_peer = 0
        self.accepted: dict[str, int] = {}       # stream -> the last number taken from the other
        self.plays_taken: list[dict] = []        # the other's plays taken since `began_after`
        self.rolls_agreed = 0
        self.dice: list[int] = []                # the dice agreed since `began_after`, in order
        self.commitments: dict[int, str] = {}    # the other's commitments to rolls this board has not begun
        self.exchange: RollExchange | None = None
        self.forfeit: dict | None = None
        self._saved = ""

    def load(self, match: str) -> bool:
        """The kept state of `match`; False where none is kept (a new remote match)."""
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return False
        except (OSError, ValueError) as error:
            raise RemoteSeatUnreadable(f"{self.path}: cannot be read ({error}); move it aside to begin a new remote match") from None
        if data.get("match") != match:
            return False   # kept for another pair of boards
        try:
            self.match, self.began_after, self.sent_through = match, int(data["began_after"]), int(data["sent_through"])
            self.seq, self.taken_by_peer = int(data["seq"]), int(data["taken_by_peer"])
            self.outbox = [(int(seq), str(payload)) for seq, payload in data["outbox"]]
            self.accepted = {str(stream): int(seq) for stream, seq in data["accepted"].items()}
            self.plays_taken = list(data["plays_taken"])
            self.rolls_agreed, self.dice = int(data["rolls_agreed"]), [int(die) for die in data["dice"]]
            self.commitments = {int(roll): str(value) for roll, value in data["commitments"].items()}
            exchange = data["exchange"]
            if exchange is not None:
                self.exchange = RollExchange(RollId(match, int(exchange["roll"])), exchange["me"], exchange["other"],
                                             bytes.fromhex(exchange["secret"]), dict(exchange["commitments"]),
                                             {board: bytes.fromhex(secret) for board, secret in exchange["secrets"].items()})
            self.forfeit = data["forfeit"]
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RemoteSeatUnreadable(f"{self.path}: cannot be read ({error!r}); move it aside to begin a new remote match") from None
        self._saved = self._text()
        return True

    def taken_by_other(self, seq: int) -> None:
        """The other board took this board's messages up to `seq`: they are not sent again."""
        if seq > self.taken_by_peer:
            self.taken_by_peer = seq
            self.outbox = [(number, payload) for number, payload in self.outbox if number > seq]

    def changed(self) -> bool:
        return self._text() != self._saved

    def _text(self) -> str:
        exchange = self.exchange
        return json.dumps({
            "match": self.match, "began_after": self.began_after, "sent_through": self.sent_through, "seq": self.seq,
            "taken_by_peer": self.taken_by_peer, "outbox": self.outbox, "accepted": self.accepted,
            "plays_taken": self.plays_taken, "rolls_agreed": self.rolls_agreed, "dice": self.dice,
            "commitments": self.commitments,
            "exchange": None if exchange is None else {
                "roll": exchange.roll.roll, "me": exchange.me, "other": exchange.other, "secret": exchange.secret.hex(),
                "commitments": exchange.commitments,
                "secrets": {board: secret.hex() for board, secret in exchange.secrets.items()}},
            "forfeit": self.forfeit}, separators=(",", ":"))

    def save(self) -> None:
        text = self._text()
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)   # the rename itself survives a power cut
        finally:
            os.close(folder)
        self._saved = text


class RemoteSeatUnreadable(ClubUnavailable):
    """The remote seat's kept state cannot be read: one line naming the file (the match cannot go on)."""
