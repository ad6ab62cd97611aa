"""The HIL rig's simulated hardware: a physical board you can handle from Python, and a simulated
sensor MCU that runs the real firmware logic (hardware/firmware/tavli_mcu) over a pseudo-terminal,
a TCP socket or a real serial device, with fault injection."""
