// tavli-board's page kit: the DOM and JSON helpers the companion's pages (app.js) and the club hub's
// pages (firmware_host/hub/static/hub.js) share. Loaded before either.
"use strict";

const $ = (selector) => document.querySelector(selector);

function element(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  return node;
}

function csrfToken() {
  const cookie = document.cookie.split("; ").find((part) => part.startsWith("tavli_csrf="));
  return cookie ? cookie.slice("tavli_csrf=".length) : "";
}

// A JSON POST with the page's CSRF token; resolves to the response.
function send(path, body) {
  return fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRF-Token": csrfToken()},
    body: JSON.stringify(body),
  });
}

// A JSON POST answered in JSON; resolves to {ok, status, data}; the server's message is data.error when not ok.
async function post(path, body) {
  const response = await send(path, body);
  let data = {};
  try { data = await response.json(); } catch (error) { data = {error: response.statusText}; }
  return {ok: response.ok, status: response.status, data};
}

async function getJSON(path) {
  const response = await fetch(path, {credentials: "same-origin"});
  return response.json();
}

// A time as the person's own clock and language write it ("27 Nov 2026, 22:35").
function localTime(date) {
  return date.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "short"});
}

// A table row whose cells carry their column's name (shown beside each value on a phone).
function cardRow(table, cells) {
  const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  const row = element("tr");
  cells.forEach((cell, index) => {
    const td = cell instanceof Node ? cell : element("td", cell);
    td.dataset.label = names[index];
    row.append(td);
  });
  return row;
}

function say(target, text, good) {
  target.textContent = text;
  target.className = "message " + (good ? "good" : "bad");
}
