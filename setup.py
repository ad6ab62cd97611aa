"""The one compiled part: the legal-play search's inner loop (firmware_host/rules/_search.c).

Optional: where no C compiler or Python headers are found (build-essential and python3-dev on
Debian and Raspberry Pi OS), the install goes on without it and the rules run in pure Python,
which stays the specification (pyproject.toml holds everything else).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("firmware_host.rules._search", ["firmware_host/rules/_search.c"],
                             optional=True)])
