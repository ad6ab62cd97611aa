"""`tavli-board sim-mcu` as its own process, handled through its console, watched by `sensor-watch`."""
import json
import subprocess
import sys
import threading

from firmware_host.cli import main

from sim_rig import TIMEOUT_S


def test_sim_mcu_serves_a_pty_that_sensor_watch_reads(tmp_path, capsys):
    link = tmp_path / "tavli-sensors"
    sim = subprocess.Popen([sys.executable, "-m", "firmware_host", "sim-mcu", "--pty", str(link)],
                           stdin=subprocess.PIPE, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert "serving on" in sim.stderr.readline()

        def handle_the_board():
            sim.stdin.write("lift 13 white\nplace 9\nflip the board\n")
            sim.stdin.flush()

        threading.Timer(0.8, handle_the_board).start()
        assert main(["sensor-watch", "--port", str(link), "--seconds", "2.5", "--self-test"]) == 0
        sim.stdin.write("show\nquit\n")
        sim.stdin.flush()
        out, err = sim.communicate(timeout=TIMEOUT_S)
    finally:
        sim.kill()
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = [event["event"] for event in events]
    assert names[0] == "LinkUp" and events[0]["hello"]["board_id"] == b"SIMBOARD".hex()
    assert {"event": "SelfTestResult", "failures": []} in events
    stable = [event["reading"] for event in events if event["event"] == "BoardStable"]
    assert stable[-1]["white"]["points"] == {"24": 2, "13": 4, "9": 1, "8": 3, "6": 5}
    assert "unknown command 'flip'" in err
    assert json.loads(out.splitlines()[-1])["white"]["points"]["9"] == 1


def test_bad_input_is_a_usage_error(tmp_path, capsys):
    assert main(["sim-mcu", "--tcp", "7070", "--reading", '{"white": {}}']) == 2
    assert "--reading: missing key(s) ['black']" in capsys.readouterr().err
    bad_board = tmp_path / "board.toml"
    bad_board.write_text("[sensors]\nchannels = []\nscan_rate = 5\n")
    assert main(["sensor-watch", "--board", str(bad_board), "--seconds", "1"]) == 2
    assert "unknown key 'scan_rate'" in capsys.readouterr().err
