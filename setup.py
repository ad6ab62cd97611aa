"""The compiled parts: the legal-play search's inner loop (firmware_host/rules/_search.c) and the
bot's inputs and its network for a few plays (firmware_host/bot/_encode.c).

Optional: where no C compiler or Python headers are found (build-essential and python3-dev on
Debian and Raspberry Pi OS), the install goes on without them and the rules and the bot run in pure
Python and numpy, which stay the specification (pyproject.toml holds everything else).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("firmware_host.rules._search", ["firmware_host/rules/_search.c"],
                             optional=True),
                   Extension("firmware_host.bot._encode", ["firmware_host/bot/_encode.c"],
                             optional=True)])
