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
it applied. Limits: both boards begin the remote match together (their roll numbers start at 1),
and a board restarted mid-match does not take the match up again.
"""
from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware_host.club.dice import SECRET_BYTES, DiceExchangeError, RollExchange, RollId, commitment
from firmware_host.club.envelope import AlreadyAccepted, EnvelopeRefused, Signer, Verifier, public_key_from_text
from firmware_host.config import ClubSettings
from firmware_host.controller.remote import RemoteFault, RemoteForfeit, RemotePlay
from firmware_host.hw.dice import DiceSource
from firmware_host.journal import JournalReader, Kind
from firmware_host.service.club import ClubWorker, board_key

log = logging.getLogger(__name__)

REVEAL_TIMEOUT_S = 60.0   # a committed board's secret is this late: warned; twice as late: it forfeits
SEND_TIMEOUT_S = 10.0     # a message the broker has not acknowledged by then is sent again
JOURNAL_INTERVAL_S = 0.2  # the journal read at most this often for new plays (every view wakes the thread)


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
        tests pass a seeded one, so that a test's match is the same every run)."""
        if club.broker is None or club.opponent is None or club.opponent_key is None or club.seat is None:
            raise ValueError("a remote seat needs [club] broker, opponent, opponent_key and seat")
        self.journal_path, self.post = journal_path, post
        self.me, self.other = club.board, club.opponent
        self.signer = Signer(self.me, key or board_key(club.signing_key_path))
        self.verifier = Verifier({self.other: public_key_from_text(club.opponent_key)})
        self.reveal_timeout_s, self.clock, self.draw_secret = reveal_timeout_s, clock, draw_secret
        client = self._open(club, "-remote", client_factory, join_s=SEND_TIMEOUT_S + 5)
        client.on_connect = self._connected
        client.on_message = self._message
        self.dice = AgreedDice(self._wake.set)
        self.match = f"{club.club}/{'+'.join(sorted((self.me, self.other)))}"   # what each roll is bound to
        self.next_roll = 1
        self.exchange: RollExchange | None = None
        self.revealed_at: float | None = None    # when this board revealed and the other's secret became due
        self.warned = False
        self.forfeited = False
        self.commitments: dict[int, str] = {}    # the other's commitments to rolls this board has not begun
        self.sent_through = self._journal_end()  # plays journaled before the seat began are not this match's
        self._seq = 0
        self._journal_read_at = float("-inf")
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()

    # -- any thread ---------------------------------------------------------------------------------

    def observe(self, view: Any, event: object) -> None:
        """The loop's observer: the journal may hold a new play of this board's player."""
        self._wake.set()

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            log.error("remote seat: the broker refused %s: %s", self.me, reason)
            return
        client.subscribe(remote_topic(self.club, self.other, self.me), qos=1)
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

    def _send(self, body: dict) -> bool:
        self._seq = max(self._seq + 1, time.time_ns() // 1_000_000)   # upward across restarts too
        envelope = self.signer.seal(f"remote/{self.other}", self._seq, body)
        info = self.client.publish(remote_topic(self.club, self.me, self.other),
                                   json.dumps(envelope, separators=(",", ":")), qos=1)
        info.wait_for_publish(timeout=SEND_TIMEOUT_S)
        return info.is_published()

    def _fault(self, fault: str, message: str) -> None:
        log.warning("remote seat: %s", message)
        self.post(RemoteFault(fault, message))

    def _receive(self, payload: bytes) -> None:
        try:
            envelope = json.loads(payload)
            board, stream, seq, body = self.verifier.open(envelope)
            if stream != f"remote/{self.me}":
                raise EnvelopeRefused(f"{board}: a message for {stream.removeprefix('remote/')}, not for {self.me}")
            if not isinstance(body, dict) or not isinstance(body.get("type"), str):
                raise EnvelopeRefused(f"{board}: a message without a type")
            getattr(self, f"_take_{body['type']}", self._take_unknown)(body)
        except AlreadyAccepted as error:
            self._fault("remote_refused", f"refused a replayed message: {error}")
        except (EnvelopeRefused, DiceExchangeError, ValueError, KeyError, TypeError) as error:
            self._fault("remote_refused", f"refused a message from the broker: {str(error)[:200]}")

    def _take_unknown(self, body: dict) -> None:
        raise EnvelopeRefused(f"{self.other}: no message of type {body['type'][:40]!r}")

    def _take_play(self, body: dict) -> None:
        self.post(RemotePlay(self.other, str(body["side"]), tuple(body["dice"]), tuple(body["moves"]), body["position"]))

    def _take_commit(self, body: dict) -> None:
        roll, value = int(body["roll"]), str(body["commitment"])
        if self.exchange is not None and roll == self.exchange.roll.roll:
            self.exchange.receive_commitment(self.other, value)
        elif roll == self.next_roll + (self.exchange is not None) and roll not in self.commitments:
            # The other board began this roll first (it finished the one before sooner): it begins here too.
            self.commitments[roll] = value
        else:
            raise DiceExchangeError(f"{self.other} committed to roll {roll}; the roll under way is {self.next_roll}")

    def _take_reveal(self, body: dict) -> None:
        roll = int(body["roll"])
        if self.exchange is None or roll != self.exchange.roll.roll:
            raise DiceExchangeError(f"{self.other} revealed roll {roll}, which is not under way")
        secret = bytes.fromhex(str(body["secret"]))
        if self.other not in self.exchange.commitments and self.revealed_at is None:
            # Its commitment was lost (sent before this board listened); it revealed after this board
            # committed and before this board revealed, so its secret could not depend on this one's.
            self.exchange.receive_commitment(self.other, commitment(self.exchange.roll, self.other, secret))
        self.exchange.receive_reveal(self.other, secret)

    def _take_warning(self, body: dict) -> None:
        self._fault("remote_late", f"{self.other} warns: {str(body['message'])[:200]}")

    def _take_forfeit(self, body: dict) -> None:
        self.forfeited = True
        self.post(RemoteForfeit(self.club.seat, f"{self.other}: {str(body['reason'])[:200]}"))

    def _agree_dice(self) -> None:
        """Begin the next roll when the dice run short or the other board began it; reveal once the
        other's commitment is here; take the dice once its secret is; warn, then forfeit, a board late
        with its secret."""
        while True:
            if self.exchange is None and (self.dice.left() < 2 or self.next_roll in self.commitments):
                self.exchange = RollExchange(RollId(self.match, self.next_roll), self.me, self.other,
                                             self.draw_secret(SECRET_BYTES))
                self.revealed_at, self.warned = None, False
                if not self._send({"type": "commit", "roll": self.next_roll, "commitment": self.exchange.my_commitment}):
                    self.exchange = None
                    return
                if self.next_roll in self.commitments:
                    self.exchange.receive_commitment(self.other, self.commitments.pop(self.next_roll))
            exchange = self.exchange
            if exchange is None:
                return
            if self.other in exchange.commitments and self.revealed_at is None:
                if not self._send({"type": "reveal", "roll": exchange.roll.roll, "secret": exchange.my_reveal().hex()}):
                    return
                self.revealed_at = self.clock()
            if exchange.waiting_for is None:
                self.dice.add(exchange.dice())
                log.debug("remote seat: roll %d agreed with %s: %s", exchange.roll.roll, self.other, exchange.dice())
                self.exchange, self.next_roll = None, self.next_roll + 1
                continue
            if self.revealed_at is not None:
                self._check_late(self.clock() - self.revealed_at)
            return

    def _check_late(self, late_s: float) -> None:
        roll = self.exchange.roll.roll
        if late_s >= 2 * self.reveal_timeout_s:
            reason = f"{self.other} did not reveal its dice secret for roll {roll} within {2 * self.reveal_timeout_s:g} s"
            self.forfeited = True
            self.post(RemoteForfeit(self.club.seat.opponent, reason))
            self._send({"type": "forfeit", "reason": reason})
        elif late_s >= self.reveal_timeout_s and not self.warned:
            message = (f"{self.other} has not revealed its dice secret for roll {roll} after {self.reveal_timeout_s:g} s; "
                       f"it forfeits the match after {2 * self.reveal_timeout_s:g} s")
            self.warned = True
            self._fault("remote_late", message)
            self._send({"type": "warning", "roll": roll, "message": message})

    def _journal_end(self) -> int:
        if not self.journal_path.exists():
            return 0
        with JournalReader.open(self.journal_path) as journal:
            last = journal.tail(1)
        return last[-1].seq if last else 0

    def _send_plays(self) -> None:
        """This board's player's plays, from the journal, in order, each once the broker took it."""
        with JournalReader.open(self.journal_path) as journal:
            records = journal.records_after(self.sent_through, 100)
        for record in records:
            if record.kind == Kind.PLAY and record.data["side"] == self.club.seat.value:
                body = {"type": "play", **{key: record.data[key] for key in ("side", "dice", "moves", "position")}}
                if not self._send(body):
                    return
            self.sent_through = record.seq
