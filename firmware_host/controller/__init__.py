"""The controller: the transitions state machine that runs games and matches on the physical board.

`machine` declares the states and transitions as data; `controller.Controller` is the model they
act on (one owner of state, fed one event at a time, no threads, time passed in); `view` is the one
immutable view of the game it gives everything outside (`Controller.view()`); `orientation` maps
the board as wired to the position format's numbering, and `numbering` names a location as a person
is shown it; `scenes` turns the referee's guidance into LED marks. The event loop that feeds it is
`firmware_host.app`.
"""
from firmware_host.controller.controller import Controller, Timings
from firmware_host.controller.machine import STATES
from firmware_host.controller.orientation import Orientation

__all__ = ["STATES", "Controller", "Orientation", "Timings"]
