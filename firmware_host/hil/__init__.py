"""The hardware-in-the-loop rig: scenarios of physical and fault actions run against the whole
application (docs/hil.md)."""
