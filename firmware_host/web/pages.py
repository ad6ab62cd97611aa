"""The companion's HTML pages: one frame (the title, the menu, the script and style from /static) and
each page's own body, which the script fills from the live snapshots and the JSON API."""
from __future__ import annotations

from html import escape

# page name -> its path
PATHS = {"live": "/", "match": "/match", "history": "/history", "settings": "/settings", "status": "/status"}
TITLES = {"live": "Live", "match": "Match", "history": "History", "settings": "Settings", "status": "Status"}

BODIES = {
    "live": """
<section class="live">
  <div id="board" class="board-box" aria-live="polite"><p class="muted">Waiting for the referee&hellip;</p></div>
  <div class="side">
    <p id="status" class="status"></p>
    <p id="seats" class="seats"></p>
    <div id="verdict" class="verdict">
      <h2 id="headline"></h2>
      <ul id="why"></ul>
      <ol id="steps"></ol>
    </div>
    <p id="last-play" class="muted"></p>
    <div class="actions">
      <button id="referee-enter" data-action="enter">Referee mode</button>
      <button id="referee-next" data-action="next">Next page</button>
      <button id="referee-leave" data-action="leave">Leave referee mode</button>
    </div>
    <p id="action-message" class="message" role="status"></p>
  </div>
</section>""",
    "match": """
<section>
  <h2 id="match-title">This match</h2>
  <p id="match-score" class="status"></p>
  <div id="games"></div>
  <h2>Dice</h2>
  <div id="dice-stats"></div>
</section>""",
    "history": """
<section>
  <h2>Past matches</h2>
  <table id="history" class="cards"><thead><tr><th>Match</th><th>Started</th><th>Games</th><th>Score</th>
  <th>Status</th><th>Download</th></tr></thead><tbody></tbody></table>
  <p id="history-message" class="muted"></p>
</section>""",
    "settings": """
<section>
  <h2>Settings</h2>
  <p class="muted">Anyone can look; changing needs the PIN set in the configuration. Saved settings are
  checked by the referee's own configuration parser, written to <span id="config-file"></span> and applied.</p>
  <form id="settings-form">
    <div id="general"></div>
    <h3>House rules</h3>
    <div id="house-rules"></div>
    <label class="pin">PIN <input type="password" id="settings-pin" name="pin" autocomplete="current-password"></label>
    <button type="submit" id="settings-save">Save settings</button>
    <p id="settings-message" class="message" role="status"></p>
  </form>
  <h2>New match</h2>
  <form id="new-match-form">
    <label>Games <input id="new-match-sequence"></label>
    <label>Points to win <input id="new-match-target" type="number" min="1" max="99"></label>
    <label class="pin">PIN <input type="password" id="new-match-pin" autocomplete="current-password"></label>
    <button type="submit">Start a new match</button>
    <p id="new-match-message" class="message" role="status"></p>
  </form>
</section>""",
    "status": """
<section>
  <h2>Status</h2>
  <dl id="status-facts" class="facts"></dl>
  <figure id="phone" class="phone" hidden>
    <img id="phone-qr" alt="QR code of the companion's address" width="180" height="180">
    <figcaption>Open it on a phone at the table: scan, or type <span id="phone-url"></span></figcaption>
  </figure>
  <form id="self-test-form">
    <label class="pin">PIN <input type="password" id="self-test-pin" autocomplete="current-password"></label>
    <button type="submit">Run the sensor MCU's self-test</button>
    <p id="self-test-message" class="message" role="status"></p>
  </form>
  <h3>Faults</h3>
  <table id="faults" class="cards"><thead><tr><th>When</th><th>What</th></tr></thead><tbody></tbody></table>
  <h3>Bug report</h3>
  <form id="bug-report-form">
    <label class="pin">PIN <input type="password" id="bug-report-pin" autocomplete="current-password"></label>
    <button type="submit">Download a bug report</button>
    <p class="muted">The configuration (its PIN removed), the log, the journal's tail and the sensor link's last
    minute, in one .tar.gz to attach to a bug report.</p>
    <p id="bug-report-message" class="message" role="status"></p>
  </form>
</section>""",
}


def render(name: str, *, version: str) -> str:
    menu = "".join(f'<a href="{path}"{" aria-current=page" if page == name else ""}>{TITLES[page]}</a>'
                   for page, path in PATHS.items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tavli-board: {escape(TITLES[name])}</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/kit.js" defer></script>
<script src="/static/app.js" defer></script>
</head><body data-page="{name}">
<header><strong>tavli-board</strong><nav>{menu}</nav></header>
<main>{BODIES[name]}</main>
<footer class="muted">tavli-board {escape(version)} &middot; <span id="link-state">connecting&hellip;</span></footer>
</body></html>
"""
