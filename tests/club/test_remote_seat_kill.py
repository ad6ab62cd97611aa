"""A real kill: `tavli-board run` (simulated hardware) plays table-1 of a remote match on a real
Mosquitto; the test plays table-2. The service is killed (SIGKILL: nothing of it runs on) after it
committed to its secret for the first roll and before it could reveal it, and started again: it
reveals the secret it committed to, not a new one, and a message it took before the kill and gets
again after it is refused as a replay."""
import subprocess
import sys

from club_kit import wait_until
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from remote_kit import CLUB, Opponent

from firmware_host.club.dice import RollExchange, RollId, commitment
from firmware_host.club.envelope import public_key_text
from firmware_host.journal import JournalReader, Kind
from firmware_host.service.club import board_key

MATCH = f"{CLUB}/table-1+table-2"


def start_service(config_file, tmp_path) -> subprocess.Popen:
    with open(tmp_path / "service.out", "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "firmware_host", "run", "--config", str(config_file)],
                                stdout=out, stderr=subprocess.STDOUT)


def remote_faults(journal) -> list[str]:
    if not journal.exists():
        return []
    with JournalReader.open(journal) as reader:
        return [event.data["message"] for event in reader.tail(1000)
                if event.kind == Kind.FAULT and event.data["fault"].startswith("remote")]


def test_a_service_killed_between_its_commitment_and_its_reveal_reveals_the_secret_it_committed_to(tmp_path, broker):
    table_2_key = Ed25519PrivateKey.generate()
    table_1_key = board_key(tmp_path / "key")   # the service's key, made here to check its messages
    journal = tmp_path / "journal.sqlite3"
    config_file = tmp_path / "config.toml"
    config_file.write_text(f'hardware = "simulated"\n[journal]\npath = "{journal}"\n'
                           f'[logging]\nfile = "{tmp_path / "log"}"\nraw_frames_dir = "{tmp_path / "raw"}"\n'
                           f'[club]\nbroker = "127.0.0.1"\nport = {broker.port}\nclub = "{CLUB}"\nboard = "table-1"\n'
                           f'key_file = "{tmp_path / "key"}"\nopponent = "table-2"\n'
                           f'opponent_key = "{public_key_text(table_2_key)}"\nseat = "white"\n')
    opponent = Opponent(broker.port, table_2_key, table_1_key.public_key())
    service = start_service(config_file, tmp_path)
    try:
        # The service's dice run short at once: it commits to roll 1, and waits for table-2's commitment.
        [committed] = wait_until(lambda: [body for body in opponent.received if body["type"] == "commit"],
                                 "table-1's commitment to roll 1")
        warning = opponent.send({"type": "warning", "roll": 1, "message": "genuine, once"})
        wait_until(lambda: any("genuine, once" in message for message in remote_faults(journal)), "the warning journaled")
        service.kill()   # SIGKILL: between its commitment and its reveal
        service.wait(timeout=10)
        opponent.received.clear()
        service = start_service(config_file, tmp_path)

        # Back on the broker, it asks table-2 for what it sent after the last message taken (the warning).
        # (A board that forgot its commitment would commit to roll 1 again instead.)
        wait_until(lambda: [body for body in opponent.received if body["type"] in ("resume", "commit")], "table-1 back")
        exchange = RollExchange(RollId(MATCH, 1), "table-2", "table-1", bytes(range(32)))
        opponent.send({"type": "commit", "roll": 1, "commitment": exchange.my_commitment})
        [revealed] = wait_until(lambda: [body for body in opponent.received if body["type"] == "reveal"],
                                "table-1's reveal after the restart", timeout_s=30)
        assert revealed["roll"] == committed["roll"] == 1
        assert commitment(RollId(MATCH, 1), "table-1", bytes.fromhex(revealed["secret"])) == committed["commitment"]
        assert not [body for body in opponent.received if body["type"] == "commit" and body["roll"] == 1]
        assert {"type": "resume", "taken": 1, "answer": False} in opponent.received

        opponent.publish(warning)   # taken before the kill: a replay now
        said = wait_until(lambda: (faults := remote_faults(journal)) and "replayed" in faults[-1] and faults,
                          "the replay refused")
        assert sum("genuine, once" in message for message in said) == 1
    finally:
        service.kill()
        service.wait(timeout=10)
        opponent.close()
