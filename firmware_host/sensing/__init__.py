"""The sensor link: serial frames from the sensor MCU -> board readings -> stable readings.

Layers, from the wire up (each one usable and tested on its own):

- `protocol`: the frame format of docs/protocol.md: a pure encoder and a pure, resynchronising
  decoder (bytes in, frames and counted errors out).
- `session`: the host's half of the protocol as a pure state machine (hello, sequence gaps,
  acknowledgements and retries, silence), driven by `received(data, now)` and `tick(now)`.
- `channels`, `reading`: the board's channel map (from hardware/board.toml) and `BoardReading`.
- `stabiliser`: raw readings -> `BoardChanging`, `BoardStable`, `BoardSettled`, `SensorFault`.
- `link`: the imperative shell: one reader thread that opens the port, reconnects with backoff,
  and drives a session; `sensor.BoardSensor` wires everything and posts events.
"""
