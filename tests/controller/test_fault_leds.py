"""Where a sensing fault shows on the LEDs, for every kind of location a fault can name."""
from firmware_host.controller.scenes import fault_leds
from firmware_host.leds.scene import LOCATIONS


def test_a_point_a_tray_half_and_the_whole_board():
    assert fault_leds("point:7") == ("7",)
    assert fault_leds("off:black") == ("off:black",)      # an unreadable channel names its half
    assert fault_leds("bar") == ("bar:white", "bar:black")
    assert fault_leds("reserve:white") == LOCATIONS       # no LED of its own: the whole board
    assert fault_leds(None) == LOCATIONS
