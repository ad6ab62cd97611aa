"""Nothing in the simulated service grows with the games played (issue 11): whole games in virtual
time, the players pressing the button for every roll and play, and the button pin's history stays
bounded (gpiozero's stock mock pin keeps every change: +6,300 records an hour of busy play)."""
from firmware_host.hil.soak import Figures, SoakMatch, SoakPlayers, match_rules_for, soak_config
from firmware_host.hw.gpio import PIN_HISTORY


def test_the_buttons_history_stays_bounded_over_whole_games(tmp_path):
    match = SoakMatch(soak_config(), match_rules_for(0, ("portes",)), 5, 0.0, Figures(), tmp_path)
    try:
        SoakPlayers(match, 5).play_games(2)
        button = match.rig.pins.pin(match.config.pins.button.pin)
        assert len(match.commits) > PIN_HISTORY   # each play committed by a press: the bound was reached
        assert len(button.states) <= PIN_HISTORY
    finally:
        match.close()
