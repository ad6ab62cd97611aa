// tavli-board companion: fills each page from the live snapshots (server-sent events) and the JSON API.
// No framework and no build step: plain DOM calls, served from the package.
"use strict";

// The helpers ($, element, csrfToken, send, post, getJSON, localTime, cardRow, say) are kit.js's.

// -- the live snapshots ---------------------------------------------------------------------------

const listeners = [];
let latest = null;

function listen(callback) {
  listeners.push(callback);
  if (latest) callback(latest.snapshot, latest.svg);
}

const SERVICE_GONE = "not live: the referee service is not reachable (the board shown is the last it sent)";

function connect() {
  const source = new EventSource("/events");
  source.addEventListener("snapshot", (event) => {
    latest = JSON.parse(event.data);
    $("#link-state").textContent = latest.live ? "live" : SERVICE_GONE;
    for (const callback of listeners) callback(latest.snapshot, latest.svg);
  });
  source.addEventListener("link", () => { $("#link-state").textContent = SERVICE_GONE; });
  source.onerror = () => { $("#link-state").textContent = "reconnecting\u2026"; };
  // A page left for another closes its stream at once (a browser keeps few connections per server).
  window.addEventListener("pagehide", () => source.close());
}

// -- Live -----------------------------------------------------------------------------------------

function showLive(snapshot, svg) {
  $("#board").innerHTML = svg;
  $("#board").dataset.seq = snapshot.seq;
  $("#status").textContent = snapshot.status;
  const seats = snapshot.seats || {};
  $("#seats").replaceChildren(...["white", "black"].map((side) =>
    element("span", `${side[0].toUpperCase()}${side.slice(1)}: ${seats[side] === "bot" ? "the bot" : "a person"}`,
            {class: `seat ${seats[side] || "person"}`, "data-side": side})));
  const verdict = snapshot.verdict;
  $("#headline").textContent = verdict ? verdict.headline : "";
  for (const [id, items] of [["#why", verdict ? verdict.why : []], ["#steps", verdict ? verdict.steps : []]]) {
    const list = $(id);
    list.replaceChildren(...items.map((text) => element("li", text)));
  }
  $("#verdict").className = "verdict " + (verdict ? verdict.kind : "none");
  const last = snapshot.last_play;
  $("#last-play").textContent = last ? `last play: ${last.side} ${last.text}` : "";
  const inReferee = snapshot.state === "referee";
  $("#referee-enter").hidden = inReferee;
  $("#referee-next").hidden = !inReferee;
  $("#referee-leave").hidden = !inReferee;
}

function setUpLive() {
  listen(showLive);
  for (const button of document.querySelectorAll(".actions button")) {
    button.addEventListener("click", async () => {
      const answer = await post("/api/referee", {action: button.dataset.action});
      say($("#action-message"), answer.ok ? "" : answer.data.error, answer.ok);
    });
  }
}

// -- Match ----------------------------------------------------------------------------------------

async function showMatch() {
  const data = await getJSON("/api/match");
  const games = $("#games");
  games.replaceChildren();
  if (data.message) games.append(element("p", data.message, {class: "muted"}));
  for (const game of data.games) {
    const result = game.result ? ` \u2014 ${game.result.winner || "nobody"} wins ${game.result.points} (${game.result.reason})` : "";
    games.append(element("h3", `Game ${game.number}: ${game.variant}${result}`));
    const list = element("ol", null, {class: "plays"});
    list.replaceChildren(...game.plays.map((play) => element("li", `${play.side} ${play.text}`)));
    games.append(list);
  }
  const dice = data.dice;
  const stats = $("#dice-stats");
  stats.replaceChildren(element("p", `${dice.rolls} rolls, ${dice.doubles} doubles` +
    (dice.p_value === null ? "" : `; chi-square p = ${dice.p_value} (${dice.fair ? "consistent with fair dice" : "unlikely from fair dice"})`)));
  const table = element("table");
  table.append(element("tr"));
  table.firstChild.append(element("th", "face"), element("th", "seen"), element("th", "expected"));
  for (const face of dice.faces) {
    const row = element("tr");
    row.append(element("td", face.face), element("td", face.seen), element("td", face.expected));
    table.append(row);
  }
  stats.append(table);
}

function setUpMatch() {
  let shown = null;
  listen((snapshot) => {
    const score = snapshot.match.score;
    $("#match-score").textContent = `${snapshot.match.sequence.join(", ")} to ${snapshot.match.target}: ` +
      `white ${score.white} \u2013 black ${score.black}`;
    const key = JSON.stringify([snapshot.match.id, snapshot.match.games.length, snapshot.last_play]);
    if (key !== shown) { shown = key; showMatch(); }
  });
}

// -- History --------------------------------------------------------------------------------------

async function setUpHistory() {
  const data = await getJSON("/api/history");
  const body = $("#history tbody");
  if (data.message) $("#history-message").textContent = data.message;
  for (const match of data.matches) {
    const links = element("td"), both = element("span");   // one cell's content, kept on one line of a card
    both.append(element("a", "JSON", {href: `/history/${match.match}.json`, download: ""}), " \u00b7 ",
                element("a", "gnubg .mat", {href: `/history/${match.match}.mat`, download: ""}));
    links.append(both);
    const status = match.winner ? `${match.status} by ${match.winner}` : match.status;
    body.append(cardRow($("#history"), [match.match, localTime(new Date(match.started_at)), match.sequence.join(", "),
      `${match.score.white}\u2013${match.score.black} (to ${match.target})`, status, links]));
  }
}

// -- Settings -------------------------------------------------------------------------------------

function input(name, value, setting) {
  let field;
  if (setting.kind === "bool") {
    field = element("input", null, {type: "checkbox"});
    field.checked = value;
  } else if (setting.choices) {
    field = element("select");
    for (const choice of setting.choices) field.append(element("option", choice, {value: choice}));
    field.value = value;
  } else {
    field = element("input", null, {type: typeof value === "number" ? "number" : "text", step: "any"});
    field.value = Array.isArray(value) ? value.join(",") : value;
  }
  field.name = name;
  field.dataset.original = field.type === "checkbox" ? String(field.checked) : field.value;
  return field;
}

function valueOf(field) {
  if (field.type === "checkbox") return field.checked;
  if (field.type === "number" && field.value.trim() !== "" && !Number.isNaN(Number(field.value))) return Number(field.value);
  return field.value;
}

function changed(field) {
  return (field.type === "checkbox" ? String(field.checked) : field.value) !== field.dataset.original;
}

async function setUpSettings() {
  const form = await getJSON("/api/settings");
  $("#config-file").textContent = form.file;
  const general = $("#general");
  for (const setting of form.settings) {
    const label = element("label", null, {class: "setting"});
    label.append(element("span", setting.label, {class: "label", title: setting.key}),
                 input(setting.key, setting.value, setting), element("small", setting.explanation));
    general.append(label);
  }
  const rules = $("#house-rules");
  for (const game of form.house_rules) {
    const box = element("details");
    box.append(element("summary", game.game));
    for (const rule of game.rules) {
      const label = element("label", null, {class: "setting"});
      const shown = Array.isArray(rule.default) ? rule.default.join(",") : rule.default;
      label.append(element("span", rule.label, {class: "label", title: rule.name}),
                   input(`house_rules.${game.game}.${rule.name}`, rule.value, rule),
                   element("small", `${rule.explanation} (default: ${shown})`));
      box.append(label);
    }
    rules.append(box);
  }
  // A new match is offered as the configured one, then as the match being played, until the person
  // changes it.
  const configured = Object.fromEntries(form.settings.map((setting) => [setting.key, setting.value]));
  $("#new-match-sequence").value = configured["match.sequence"];
  $("#new-match-target").value = configured["match.target"];
  listen((snapshot) => {
    for (const [id, value] of [["#new-match-sequence", snapshot.match.sequence.join(",")],
                               ["#new-match-target", snapshot.match.target]]) {
      if (!$(id).dataset.touched) $(id).value = value;
    }
  });
  for (const id of ["#new-match-sequence", "#new-match-target"]) {
    $(id).addEventListener("input", () => { $(id).dataset.touched = "yes"; });
  }
  if (!form.pin_set) say($("#settings-message"), "No PIN is set in the configuration: settings are read-only here.", false);
  $("#settings-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const settings = {};
    for (const field of document.querySelectorAll("#settings-form [name]")) {
      if (field.name === "pin" || !changed(field)) continue;
      const parts = field.name.split(".");
      let table = settings;
      for (const part of parts.slice(0, -1)) table = table[part] = table[part] || {};
      table[parts[parts.length - 1]] = valueOf(field);
    }
    const answer = await post("/api/settings", {pin: $("#settings-pin").value, settings});
    if (!answer.ok) { say($("#settings-message"), answer.data.error, false); return; }
    for (const field of document.querySelectorAll("#settings-form [name]")) {
      field.dataset.original = field.type === "checkbox" ? String(field.checked) : field.value;
    }
    const data = answer.data;
    let text = data.applied ? `Saved and applied${data.changed.length ? ": " + data.changed.join(", ") : ""}.` : `Saved. ${data.message || ""}`;
    if (data.restart && data.restart.length) text += ` ${data.restarting ? "The referee restarts for" : "Applied at the next start"}: ${data.restart.join(", ")}.`;
    say($("#settings-message"), text, true);
  });
  $("#new-match-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const target = Number($("#new-match-target").value);
    const answer = await post("/api/new-match", {pin: $("#new-match-pin").value,
      match: {sequence: $("#new-match-sequence").value, target: Number.isNaN(target) ? $("#new-match-target").value : target}});
    say($("#new-match-message"), answer.ok ? `A new match of ${answer.data.sequence.join(", ")} to ${answer.data.target}.` : answer.data.error, answer.ok);
  });
}

// -- Status ---------------------------------------------------------------------------------------

async function showStatus() {
  const data = await getJSON("/api/status");
  const facts = $("#status-facts");
  const link = data.link || {};
  const hello = link.hello;
  const rows = [
    ["Version", data.version],
    ["Referee service", data.service ? "running" : "not reachable"],
    ["Match", data.status || "\u2014"],
    ["Sensor link", link.up ? "up" : "down"],
    ["Sensor MCU", hello ? `firmware ${hello.firmware}, board ${hello.board_id}, ${hello.channels} channels at ${hello.scan_hz} Hz` : "no hello yet"],
    ["MCU self-test", link.selftest ? (link.selftest.passed ? "passed" : "failed: " + link.selftest.failures.map((f) => f.join(" ")).join("; ")) : "not run since the service started"],
    ["Frames dropped", link.frames_dropped === undefined ? "\u2014" : link.frames_dropped],
    ["Journal", `${data.journal.path}: ${(data.journal.bytes / 1024).toFixed(1)} KiB`],
    ["Configuration", data.config],
    ["Browsers watching", data.browsers],
  ];
  facts.replaceChildren();
  for (const [name, value] of rows) facts.append(element("dt", name), element("dd", value));
  const phoneUrls = data.phone_urls || [];
  $("#phone").hidden = phoneUrls.length === 0;
  if (phoneUrls.length && !$("#phone-qr").getAttribute("src")) {
    $("#phone-qr").setAttribute("src", "/phone-qr.svg");
    $("#phone-url").textContent = phoneUrls.join(" or ");
  }
  const body = $("#faults tbody");
  const log = data.faults ? data.faults.log : [];
  body.replaceChildren(...log.slice().reverse().map((fault) => {
    const what = Object.entries(fault).filter(([key]) => key !== "at" && key !== "event").map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
    return cardRow($("#faults"), [localTime(new Date(fault.at * 1000)), `${fault.event} ${what.join(", ")}`]);
  }));
}

function setUpStatus() {
  $("#self-test-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await post("/api/self-test", {pin: $("#self-test-pin").value});
    say($("#self-test-message"), answer.ok ? "Asked: the result shows above when the MCU answers." : answer.data.error, answer.ok);
  });
  $("#bug-report-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const response = await send("/bug-report", {pin: $("#bug-report-pin").value});
    if (!response.ok) {
      let error = response.statusText;
      try { error = (await response.json()).error; } catch (ignored) { /* the status text says it */ }
      say($("#bug-report-message"), error, false);
      return;
    }
    const name = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
    const link = element("a", null, {href: URL.createObjectURL(await response.blob()),
                                      download: name ? name[1] : "tavli-board-bug-report.tar.gz"});
    document.body.append(link);
    link.click();
    link.remove();
    say($("#bug-report-message"), "Downloaded.", true);
  });
  let shown = null;
  listen((snapshot) => {
    const key = JSON.stringify([snapshot.link, snapshot.faults, snapshot.status]);
    if (key !== shown) { shown = key; showStatus(); }
  });
}

const PAGES = {live: setUpLive, match: setUpMatch, history: setUpHistory, settings: setUpSettings, status: setUpStatus};
connect();
PAGES[document.body.dataset.page]();
