"""tavli-board: a Raspberry Pi referee for a physical Tavli board."""

__version__ = "0.1.0"
