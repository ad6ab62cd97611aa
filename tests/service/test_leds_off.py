"""`tavli-board leds-off`, the unit's ExecStopPost, through the real NeoPixel class with its write captured."""
import pytest

from firmware_host.cli import main


@pytest.fixture
def neopixel_wire(monkeypatch):
    import neopixel

    writes = []
    monkeypatch.setattr(neopixel, "neopixel_write", lambda pin, buffer: writes.append(bytes(buffer)))
    return writes


def test_the_strip_is_sent_a_dark_frame(tmp_path, neopixel_wire, capsys):
    config = tmp_path / "config.toml"
    config.write_text('hardware = "real"\n[leds]\ndriver = "neopixel"\npin = "NEOPIXEL"  # the one pin of Blinka\'s OS-agnostic board\n')
    assert main(["leds-off", "--config", str(config)]) == 0
    assert neopixel_wire and all(write == bytes(200 * 3) for write in neopixel_wire)


def test_on_the_simulated_board_there_is_nothing_to_darken(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('hardware = "simulated"\n')
    assert main(["leds-off", "--config", str(config)]) == 0
    assert "no LEDs" in capsys.readouterr().out


def test_a_strip_that_cannot_be_opened_is_reported(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('hardware = "real"\n[leds]\ndriver = "neopixel"\npin = "D99"\n')
    assert main(["leds-off", "--config", str(config)]) == 1
    assert "has no pin 'D99'" in capsys.readouterr().err
