"""What a bench record says of the machine it ran on: measured when it runs, never typed in (the load
average tells a reader whether other work shared the cores)."""
import os
import platform


def machine_text() -> str:
    one, five, fifteen = os.getloadavg()
    return (f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
            f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} (1 / 5 / 15 min) at the end")
