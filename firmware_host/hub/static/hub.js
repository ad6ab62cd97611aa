// tavli-board club hub: the café screen, the club's history, the ladder and the tournaments, filled from
// the hub's JSON API with the companion's page kit (kit.js: $, element, post, getJSON, cardRow, say, ...).
"use strict";

const DIE_FACES = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
const TOURNAMENTS_EVERY_MS = 3000;
const SLOWEST_MS = 15000;              // a hub that does not answer is asked again less and less often

// Ask `fetchAndShow` now and again every `everyMs`, backing off while the hub does not answer (the
// tournaments, history and ladder pages; the café screen has its event stream).
function poll(fetchAndShow, everyMs) {
  let waitMs = everyMs;
  async function again() {
    try {
      await fetchAndShow();
      $("#link-state").textContent = "live";
      waitMs = everyMs;
    } catch (error) {
      $("#link-state").textContent = "the hub is not answering: asking again";
      waitMs = Math.min(waitMs * 2, SLOWEST_MS);
    }
    setTimeout(again, waitMs);
  }
  again();
}

function playerName(table, color) {
  const name = table.players && table.players[color];
  return name ? `${name} (${color})` : color;
}

// What is happening at a table, in words, from its state (the controller's) and its turn.
function doing(table) {
  const mover = table.turn ? playerName(table, table.turn) : "";
  const words = {
    resuming: "resuming the match", setup: "setting up the board", opening_roll: "opening roll",
    awaiting_roll: `${mover} to roll`, moving: `${mover} to move`, blockade: "blockade: the game ends drawn",
    correcting: "an illegal board being put right", referee: "referee mode",
    game_over: "game over", link_lost: "the board's sensors are not answering",
    sensor_fault: "a sensor fault", button_stuck: "the dice button is stuck",
  };
  if (table.state === "match_over") return table.winner ? `match over: ${playerName(table, table.winner)} wins` : "match over";
  return words[table.state] || (table.state || "").replace(/_/g, " ");
}

function tableCard(table) {
  const card = element("article", null, {class: "table" + (table.online ? "" : " offline"), "data-board": table.board});
  const title = element("h2", table.board);
  title.append(element("span", table.online ? "online" : "offline", {class: "presence"}));
  card.append(title);
  if (!table.state) {
    card.append(element("p", "no view from this board yet", {class: "muted"}));
    return card;
  }
  const game = [table.variant, table.match ? `match ${table.match}` : null, table.game ? `game ${table.game}` : null];
  card.append(element("p", game.filter(Boolean).join(" \u00b7 "), {class: "game"}));
  const score = element("p", null, {class: "score"});
  for (const color of ["white", "black"]) {
    const side = element("span", null, {class: `side ${color}` + (table.turn === color ? " to-play" : "")});
    side.append(element("span", playerName(table, color), {class: "name"}));
    side.append(element("strong", table.score ? String(table.score[color]) : "0", {class: "points"}));
    score.append(side);
  }
  if (table.target) score.append(element("small", `to ${table.target}`, {class: "target"}));
  card.append(score);
  const now = element("p", doing(table), {class: "doing"});
  if (table.dice && table.dice.length) {
    now.append(element("span", table.dice.map((die) => DIE_FACES[die] || die).join(""),
                       {class: "dice", "aria-label": `dice ${table.dice.join("-")}`, title: table.dice.join("-")}));
  }
  card.append(now);
  if (table.version) {
    card.append(element("img", null, {class: "drawing", alt: `${table.board}'s board`,
                                      src: `/tables/${encodeURIComponent(table.board)}.svg?v=${table.version}`}));
  }
  return card;
}

// The café screen follows the hub's event stream: every table at first, then each one that changes.
function setUpTables() {
  const shown = {};      // board -> the JSON its card was made from
  const source = new EventSource("/events");
  source.addEventListener("tables", (event) => {
    $("#link-state").textContent = "live";
    const box = $("#tables");
    if (!box.querySelector("article")) box.textContent = "";
    for (const table of JSON.parse(event.data).tables) {
      const key = JSON.stringify(table);
      if (shown[table.board] === key) continue;
      shown[table.board] = key;
      const card = tableCard(table);
      const old = box.querySelector(`article[data-board="${CSS.escape(table.board)}"]`);
      if (old) old.replaceWith(card); else box.append(card);
    }
  });
  // The browser connects again by itself (after the hub's `retry`); until then the screen says so.
  source.addEventListener("error", () => { $("#link-state").textContent = "the hub is not answering: connecting again"; });
}

function resultText(match) {
  if (!match.ended) return "under way";
  const ended = match.ended;
  if (!ended.winner) return ended.reason || "ended";
  const name = match[ended.winner] ? `${match[ended.winner]} (${ended.winner})` : ended.winner;
  const score = ended.score ? ` ${ended.score.white}\u2013${ended.score.black}` : "";
  return `${name} won${score}`;
}

function setUpHistory() {
  poll(async () => {
    const data = await getJSON("/api/matches");
    const table = $("#history");
    const body = table.querySelector("tbody");
    body.textContent = "";
    for (const match of data.matches) {
      const games = match.games.map((game) => game.variant).join(", ");
      body.append(cardRow(table, [match.board, String(match.match), match.started_at ? localTime(new Date(match.started_at)) : "",
                                  match.white || "\u2014", match.black || "\u2014", games, resultText(match)]));
    }
  }, TOURNAMENTS_EVERY_MS * 5);
}

const FAMILIES = {hitting: "Hitting games (portes, tavla)", pinning: "Pinning games (plakoto, tapa, neverfinishing)",
                  running: "Running games (fevga, moultezim, gulbara, narde)"};

function setUpLadder() {
  poll(async () => {
    const data = await getJSON("/api/ladder");
    const box = $("#ladder");
    box.textContent = "";
    for (const [family, players] of Object.entries(data.ladder)) {
      box.append(element("h3", FAMILIES[family] || family));
      if (!players.length) { box.append(element("p", "no rated game yet", {class: "muted"})); continue; }
      const table = element("table", null, {class: "cards", "data-family": family});
      const head = element("tr");
      for (const name of ["Place", "Player", "Rating", "Games"]) head.append(element("th", name));
      table.append(element("thead"), element("tbody"));
      table.querySelector("thead").append(head);
      players.forEach((entry, index) => table.querySelector("tbody").append(
        cardRow(table, [String(index + 1), entry.player, entry.rating.toFixed(2), String(entry.experience)])));
      box.append(table);
    }
  }, TOURNAMENTS_EVERY_MS * 5);
}

// -- tournaments ----------------------------------------------------------------------------------

function sourceText(pairing) {
  const source = pairing.source;
  if (source === "bye") return "bye";
  if (!source) return "";
  const where = source.board ? `${source.board}, match ${source.match}` : "";
  return [where, source.corrected ? "corrected by the director" : ""].filter(Boolean).join("; ");
}

function tournamentSection(tournament) {
  const section = element("section", null, {class: "tournament", "data-tournament": tournament.id});
  const kind = tournament.kind === "swiss" ? `Swiss, ${tournament.rounds_planned} rounds` : "knock-out";
  section.append(element("h2", `${tournament.name} (${kind})`));
  if (tournament.champion) section.append(element("p", `Won by ${tournament.champion}`, {class: "champion"}));
  const columns = element("div", null, {class: "tournament-columns"});
  const rounds = element("div");
  for (const round of tournament.rounds) {
    rounds.append(element("h3", `Round ${round.number}`));
    const table = element("table", null, {class: "cards pairings", "data-round": round.number});
    const head = element("tr");
    for (const name of ["Pairing", "Winner", "From"]) head.append(element("th", name));
    table.append(element("thead"), element("tbody"));
    table.querySelector("thead").append(head);
    for (const pairing of round.pairings) {
      const players = pairing.second ? `${pairing.first} \u2013 ${pairing.second}` : pairing.first;
      table.querySelector("tbody").append(cardRow(table, [players, pairing.winner || "to play", sourceText(pairing)]));
    }
    rounds.append(table);
  }
  const standings = element("div");
  standings.append(element("h3", "Standings"));
  const table = element("table", null, {class: "cards standings"});
  const head = element("tr");
  const swiss = tournament.kind === "swiss";
  for (const name of ["Place", "Player", swiss ? "Wins" : "Status"]) head.append(element("th", name));
  table.append(element("thead"), element("tbody"));
  table.querySelector("thead").append(head);
  tournament.standings.forEach((entry, index) => table.querySelector("tbody").append(
    cardRow(table, [String(index + 1), entry.player, swiss ? String(entry.score) : entry.status])));
  standings.append(table);
  columns.append(rounds, standings);
  section.append(columns);
  return section;
}

// A select's options replaced only when they change (a poll must not undo the director's choice).
function setOptions(select, options) {
  const key = JSON.stringify(options);
  if (select.dataset.options === key) return;
  const chosen = select.value;
  select.dataset.options = key;
  select.textContent = "";
  for (const [value, text] of options) select.append(element("option", text, {value}));
  if (options.some(([value]) => value === chosen)) select.value = chosen;
}

function setUpTournaments() {
  let latest = {tournaments: [], boards: []};
  const chosenTournament = () => latest.tournaments.find((t) => String(t.id) === $("#act-tournament").value);
  const chosenPairing = () => {
    const tournament = chosenTournament();
    if (!tournament || !$("#act-pairing").value) return null;
    const [round, index] = $("#act-pairing").value.split(":").map(Number);
    return {round, pairing: tournament.rounds[round - 1].pairings[index]};
  };
  function fillForms() {
    setOptions($("#act-tournament"), latest.tournaments.map((t) => [String(t.id), t.name]));
    setOptions($("#act-board"), latest.boards.map((board) => [board, board]));
    const tournament = chosenTournament();
    const pairings = [];
    if (tournament) {
      const round = tournament.rounds[tournament.rounds.length - 1];
      round.pairings.forEach((pairing, index) => {
        if (pairing.second) pairings.push([`${round.number}:${index}`, `round ${round.number}: ${pairing.first} \u2013 ${pairing.second}`]);
      });
    }
    setOptions($("#act-pairing"), pairings);
    const chosen = chosenPairing();
    setOptions($("#act-winner"), chosen ? [[chosen.pairing.first, chosen.pairing.first], [chosen.pairing.second, chosen.pairing.second]] : []);
  }
  async function refresh() {
    latest = await getJSON("/api/tournaments");
    const box = $("#tournaments");
    box.textContent = "";
    if (!latest.tournaments.length) box.append(element("p", "No tournament yet.", {class: "muted"}));
    for (const tournament of latest.tournaments) box.append(tournamentSection(tournament));
    fillForms();
    if (!latest.director) {     // the hub would refuse every change: say why before anyone tries
      $("#director-pin").disabled = true;
      say($("#director-message"), "Changes are off: the hub's configuration sets no director's PIN ([web] pin, " +
          "the line `tavli-board web-pin` prints).", false);
    }
  }
  async function act(path, body, done) {
    const answer = await post(path, {...body, pin: $("#director-pin").value});
    say($("#director-message"), answer.ok ? done(answer.data) : answer.data.error, answer.ok);
    if (answer.ok) await refresh();
  }
  $("#act-tournament").addEventListener("change", fillForms);
  $("#act-pairing").addEventListener("change", fillForms);
  $("#create-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const players = $("#create-players").value.split("\n").map((line) => line.trim()).filter(Boolean);
    const kind = $("#create-kind").value;
    act("/api/tournaments", {name: $("#create-name").value, kind, players,
                             rounds: kind === "swiss" ? Number($("#create-rounds").value) : null},
        (data) => `Tournament ${data.id} created: round 1 is paired.`);
  });
  $("#act-seat").addEventListener("click", () => {
    const chosen = chosenPairing();
    if (!chosen) { say($("#director-message"), "Choose a pairing first.", false); return; }
    act(`/api/tournaments/${$("#act-tournament").value}/seat`,
        {board: $("#act-board").value, first: chosen.pairing.first, second: chosen.pairing.second},
        (data) => `${data.white} (white) and ${data.black} (black) seated at ${data.board}, match ${data.match}.`);
  });
  $("#act-correct").addEventListener("click", () => {
    const chosen = chosenPairing();
    if (!chosen) { say($("#director-message"), "Choose a pairing first.", false); return; }
    const winner = $("#act-winner").value;
    const loser = winner === chosen.pairing.first ? chosen.pairing.second : chosen.pairing.first;
    act(`/api/tournaments/${$("#act-tournament").value}/correct`, {round: chosen.round, winner, loser},
        () => `Corrected: ${winner} won against ${loser}.`);
  });
  $("#act-next").addEventListener("click", () => {
    act(`/api/tournaments/${$("#act-tournament").value}/next-round`, {}, () => "The next round is paired.");
  });
  poll(refresh, TOURNAMENTS_EVERY_MS);
}

const HUB_PAGES = {tables: setUpTables, history: setUpHistory, ladder: setUpLadder, tournaments: setUpTournaments};
HUB_PAGES[document.body.dataset.page]();
