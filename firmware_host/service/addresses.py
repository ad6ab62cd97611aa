"""Where a phone at the table finds the companion: the addresses it is served on, and their QR code.

A companion that listens on every address (`0.0.0.0`, `::`) is reached through this machine's own
addresses on the local network (asked of the machine itself with `hostname -I`, which reads the
interfaces and sends nothing) and its mDNS name (`NAME.local`, which phones resolve); one that listens
on a loopback address is reached from this machine only, and has no address to offer a phone.
"""
from __future__ import annotations

import ipaddress
import shutil
import socket
import subprocess

EVERY_ADDRESS = ("0.0.0.0", "::", "")


def lan_urls(host: str, port: int) -> list[str]:
    """The URLs a phone on the local network can open, best first (none for a loopback companion)."""
    if host not in EVERY_ADDRESS:
        try:
            if ipaddress.ip_address(host).is_loopback:
                return []
        except ValueError:   # a host name: that is the address
            pass
        return [_url(host, port)]
    urls = []
    for address in _own_addresses():
        if not address.is_loopback and not address.is_link_local and (address.version == 4 or host == "::"):
            urls.append(_url(str(address), port))
    name = socket.gethostname()
    if name and "." not in name:
        urls.append(_url(f"{name}.local", port))
    return urls


def _own_addresses() -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    hostname = shutil.which("hostname")
    if hostname is None:
        return []
    try:
        words = subprocess.run([hostname, "-I"], capture_output=True, text=True, timeout=5).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return []
    addresses = []
    for word in words:
        try:
            addresses.append(ipaddress.ip_address(word))
        except ValueError:
            continue
    return addresses


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}/" if port == 80 else f"http://{shown}:{port}/"


def qr_text(url: str) -> str | None:
    """The URL as a QR code drawn with block characters for a terminal (None without segno)."""
    try:
        import segno
    except ImportError:
        return None
    import io
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def qr_svg(url: str) -> str | None:
    """The URL as a QR code in SVG, for a page (None without segno)."""
    try:
        import segno
    except ImportError:
        return None
    return segno.make(url, error="m").svg_inline(scale=5, dark="#222", light="#fff")
