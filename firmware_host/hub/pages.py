"""The club hub's HTML pages: one frame (the title, the menu, the companion's style and page kit, the
hub's own script and style) and each page's body, which hub.js fills from the hub's JSON API."""
from __future__ import annotations

from html import escape

PATHS = {"tables": "/", "history": "/history", "ladder": "/ladder", "tournaments": "/tournaments"}
TITLES = {"tables": "Tables", "history": "History", "ladder": "Ladder", "tournaments": "Tournaments"}

BODIES = {
    "tables": """
<section>
  <div id="tables" class="tables" aria-live="polite"><p class="muted">Waiting for the club's boards&hellip;</p></div>
</section>""",
    "history": """
<section>
  <h2>Matches at the club</h2>
  <p class="muted">Every match the club's boards journaled, newest first; the match number is the board's own
  (its History page and <code>tavli-board history</code> show the same).</p>
  <table id="history" class="cards"><thead><tr><th>Board</th><th>Match</th><th>Started</th><th>White</th>
  <th>Black</th><th>Games</th><th>Result</th></tr></thead><tbody></tbody></table>
</section>""",
    "ladder": """
<section>
  <h2>The ladder</h2>
  <div id="ladder" class="ladder"></div>
  <h3>How the ratings are worked out</h3>
  <p>The FIBS formula, as backgammon servers use it. Everyone starts at 1500. When two players rated
  r<sub>1</sub> and r<sub>2</sub> finish a game, with D = |r<sub>1</sub> &minus; r<sub>2</sub>|, the underdog wins
  with the chance P<sub>upset</sub> = 1 / (10<sup>D&nbsp;/&nbsp;2000</sup> + 1). The winner gains, and the loser
  loses, 4&nbsp;&times;&nbsp;K&nbsp;&times;&nbsp;P, where P = 1 &minus; P<sub>upset</sub> when the underdog wins
  and P = P<sub>upset</sub> when the favourite does; each player's own K = max(1, 5 &minus; experience / 100), and
  experience counts the games played, so a newcomer's rating moves fastest.</p>
  <p>Each game is rated as a one-point match in its family, whatever it scored: <strong>hitting</strong> (portes,
  tavla), <strong>pinning</strong> (plakoto, tapa, neverfinishing) and <strong>running</strong> (fevga, moultezim,
  gulbara, narde); how a lone checker is taken decides how a game is played. Only the games of matches whose
  players are named (seated) count. The ladder is recomputed from the records every time it is shown.</p>
</section>""",
    "tournaments": """
<section>
  <div id="tournaments"><p class="muted">No tournament yet.</p></div>
  <h2>The director</h2>
  <p class="muted">Anyone can follow a tournament; creating one, seating a pairing at a board, correcting a result
  and pairing the next round need the director's PIN. A board's match result fills its pairing by itself once
  the pairing is seated at that board.</p>
  <label class="pin">Director's PIN <input type="password" id="director-pin" autocomplete="current-password"></label>
  <p id="director-message" class="message" role="status"></p>
  <details id="create" open><summary>New tournament</summary>
  <form id="create-form">
    <label>Name <input id="create-name" required maxlength="80"></label>
    <label>Kind <select id="create-kind"><option value="knockout">knock-out</option>
      <option value="swiss">Swiss</option></select></label>
    <label>Rounds (Swiss) <input id="create-rounds" type="number" min="1" max="32" value="3"></label>
    <label class="players">Players, the best seed first, one a line
      <textarea id="create-players" rows="6"></textarea></label>
    <button type="submit">Create</button>
  </form></details>
  <details id="act" open><summary>A tournament's round</summary>
  <form id="act-form">
    <label>Tournament <select id="act-tournament"></select></label>
    <label>Pairing <select id="act-pairing"></select></label>
    <label>Board <select id="act-board"></select></label>
    <button type="button" id="act-seat">Seat the pairing at the board</button>
    <label>Winner <select id="act-winner"></select></label>
    <button type="button" id="act-correct">Correct the result</button>
    <button type="button" id="act-next">Pair the next round</button>
  </form></details>
</section>""",
}


def render(name: str, *, club: str, version: str) -> str:
    menu = "".join(f'<a href="{path}"{" aria-current=page" if page == name else ""}>{TITLES[page]}</a>'
                   for page, path in PATHS.items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(club)}: {escape(TITLES[name])}</title>
<link rel="stylesheet" href="/static/app.css">
<link rel="stylesheet" href="/hub/hub.css">
<script src="/static/kit.js" defer></script>
<script src="/hub/hub.js" defer></script>
</head><body data-page="{name}" class="hub hub-{name}">
<header><strong>{escape(club)}</strong><nav>{menu}</nav></header>
<main>{BODIES[name]}</main>
<footer class="muted">tavli-board {escape(version)} club hub &middot; <span id="link-state">connecting&hellip;</span></footer>
</body></html>
"""
