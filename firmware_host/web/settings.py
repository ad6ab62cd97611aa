"""The settings page's data: what may be changed from a browser, checked by the service's own config
parser and written atomically.

    form = settings_form(config)                  # every editable value, with its explanation and default
    new_config = save_settings(path, changes)     # ConfigError (the parser's message): nothing written

Only these settings can be changed here: the match (preset or games, target), who plays each side
(a person or the bot), every house rule per game, LED brightness and palette, and the sensor and button timings. Everything else of the file
(the hardware, paths, the PIN) is kept as it is. The file is rewritten whole from its parsed TOML
(comments are not kept), through a temporary file, fsync and rename: a power cut leaves the old file
or the new one, never half of one.
"""
from __future__ import annotations

import copy
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping

import tomli_w

from firmware_host.config import SEATS, Config, ConfigError, Problem, parse_config
from firmware_host.hw.boardfile import BoardFileError, read_board_file
from firmware_host.leds.palette import PALETTES
from firmware_host.rules import GAME_OPTIONS, VARIANTS, Color, Rules
from firmware_host.rules.match import PRESETS

# table -> the keys of it a browser may set
EDITABLE: Mapping[str, tuple[str, ...]] = {
    "match": ("sequence", "target", "white", "black"),
    "leds": ("brightness", "palette"),
    "sensors": ("quiet_ms", "grace_ms"),
    "button": ("hold_ms",),
}
# key -> (the label a person reads, the help under it)
EXPLAINED: Mapping[str, tuple[str, str]] = {
    "match.sequence": ("Games", "The games of a match, in turn: a preset (" + ", ".join(PRESETS) + "), one game, "
                       "or games separated by commas."),
    "match.target": ("Points to win", "Points that win the match."),
    "match.white": ("White is played by", "A person, or the bot (the lights show its play one checker move at a "
                    "time for a person to make, and the referee holds the board to it). From White's next roll."),
    "match.black": ("Black is played by", "A person, or the bot. From Black's next roll."),
    "leds.brightness": ("LED brightness", "From 0.01 to 1 (the supply's current cap still applies)."),
    "leds.palette": ("LED colours", "Standard, or colour-blind (told apart with any common colour-vision "
                     "deficiency)."),
    "sensors.quiet_ms": ("Still time before judging (ms)", "How long the board must stand still before it is "
                         "judged."),
    "sensors.grace_ms": ("Time before a wrong board is illegal (ms)", "How long a wrong board may stand before it "
                         "is called illegal."),
    "button.hold_ms": ("Hold for referee mode (ms)", "How long a press must last to be a hold, which opens "
                       "referee mode."),
}


def _kind(option) -> dict[str, Any]:
    """How a house rule's value is entered, from its parser's choices or the type of its defaults:
    a choice, a checkbox, dice (a set of die values) or a number."""
    choices = getattr(option.parse, "choices", None)
    if choices:
        return {"kind": "choice", "choices": list(choices)}
    default = next(iter(option.defaults.values()))
    if isinstance(default, bool):
        return {"kind": "bool"}
    return {"kind": "dice" if isinstance(default, frozenset) else "number"}


def settings_form(config: Config) -> dict[str, Any]:
    """Every setting the page shows, with its value now, its explanation and (house rules) default."""
    sequence = config.match_rules.sequence
    preset = next((name for name, games in PRESETS.items() if games == sequence), None)
    values = {
        "match.sequence": preset or ",".join(sequence),
        "match.target": config.match_rules.target,
        **{f"match.{color.value}": "bot" if color in config.bots else "person" for color in (Color.WHITE, Color.BLACK)},
        "leds.brightness": config.leds.brightness,
        "leds.palette": config.leds.palette,
        "sensors.quiet_ms": config.sensing.sensors.quiet_ms,
        "sensors.grace_ms": config.sensing.sensors.grace_ms,
        "button.hold_ms": round(config.pins.button.hold_s * 1000),
    }
    choices = {"leds.palette": list(PALETTES), "match.white": list(SEATS), "match.black": list(SEATS)}
    general = [{"key": key, "value": value, "label": EXPLAINED[key][0], "explanation": EXPLAINED[key][1],
                **({"choices": choices[key]} if key in choices else {})} for key, value in values.items()]
    games = []
    for variant in VARIANTS:
        rules, defaults = config.rules_for(variant).to_json(), Rules.for_variant(variant).to_json()
        games.append({"game": variant, "rules": [
            {"name": name, "label": name.replace("_", " ").capitalize(), "value": rules[name],
             "default": defaults[name], "explanation": option.doc,
             **_kind(option)}
            for name, option in GAME_OPTIONS.items() if option.applies_to(variant)]})
    return {"file": config.source, "settings": general, "house_rules": games, "presets": list(PRESETS),
            "pin_set": config.web.pin is not None}


class SettingsRefused(ValueError):
    """Changes that are not settings of this page, or not of the right shape."""


def merged_document(document: dict[str, Any], changes: Any) -> dict[str, Any]:
    """`document` (the config file, parsed) with `changes` laid over it: {"match": {...}, "leds": {...},
    "house_rules": {game: {rule: value}}}. Raises `SettingsRefused` for anything else."""
    if not isinstance(changes, dict):
        raise SettingsRefused("settings: an object of tables, such as {\"match\": {\"target\": 5}}")
    merged = copy.deepcopy(document)
    for table, values in changes.items():
        if table != "house_rules" and table not in EDITABLE:
            raise SettingsRefused(f"settings.{table}: not settable from the web page; allowed: "
                                  f"{', '.join([*EDITABLE, 'house_rules'])}")
        if not isinstance(values, dict):
            raise SettingsRefused(f"settings.{table}: an object (a TOML table)")
        target = merged.setdefault(table, {})
        if not isinstance(target, dict):
            raise SettingsRefused(f"settings.{table}: the file's {table} is not a table")
        if table == "house_rules":
            for game, rules in values.items():
                if not isinstance(rules, dict):
                    raise SettingsRefused(f"settings.house_rules.{game}: an object of rules")
                game_table = target.setdefault(game, {})
                if not isinstance(game_table, dict):
                    raise SettingsRefused(f"settings.house_rules.{game}: the file's value is not a table")
                game_table.update(rules)
            continue
        for key in values:
            if key not in EDITABLE[table]:
                raise SettingsRefused(f"settings.{table}.{key}: not settable from the web page; allowed: "
                                      f"{', '.join(EDITABLE[table])}")
        target.update(values)
    return merged


def save_settings(path: Path, changes: Any) -> Config:
    """Check `changes` over the config file at `path` with the config parser and, when it accepts
    them, write the file atomically; returns the new configuration. Raises `SettingsRefused` or
    `ConfigError` (with the parser's message); then the file is unchanged."""
    try:
        document = read_board_file(path) if path.exists() else {}
    except BoardFileError as error:
        raise ConfigError([Problem(str(path), "", f"the file cannot be read now: {error}")]) from None
    merged = merged_document(document, changes)
    config = parse_config(merged, str(path), relative_to=path)
    write_atomically(path, tomli_w.dumps(merged))
    return config


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text`: a temporary file beside it, flushed to disk, then renamed over it."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o640
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)   # the rename itself survives a power cut
    finally:
        os.close(directory)
