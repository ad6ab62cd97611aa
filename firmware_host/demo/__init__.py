"""The demo: the whole application on the simulated board, played by two scripted players.

An application on top of the event loop, like the service and the HIL rig: `rig` wires the real
hardware layer (on the simulated board and MCU), the journal, the loop and the terminal view;
`players` are the scripted people at the board, also used by the HIL soak and the kill test.
"""
from firmware_host.demo.players import DemoStuck, Players, Table, physical
from firmware_host.demo.rig import Demo, Settings, demo_config, play_scripted_match, run_demo, run_interactive

__all__ = ["Demo", "DemoStuck", "Players", "Settings", "Table", "demo_config", "physical",
           "play_scripted_match", "run_demo", "run_interactive"]
