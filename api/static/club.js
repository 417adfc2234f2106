// The club page for its organiser: with the club's key (this browser's, or one handed over in
// #key=…) the roster is read again with the hidden players (GET /clubs/{id} with the key), and the
// forms post roster, night and season events to POST /clubs/{id}/events. A refusal is shown in
// the API's own words beside the form; a change done reloads the page the server draws.
import { problemDetails, problemText } from "./api.js";
import { adoptFragmentKey, clubCall, keyFor, sayAfterReload, saidBeforeReload } from "./club_key.js";
import { $, el } from "./dom.js";
import { qrSvg } from "./qr.js";
import { t, tn } from "./say.js";

const root = $("club");
const id = root.dataset.club;
adoptFragmentKey(id);

const said = saidBeforeReload();
if (said) $("club-said").textContent = said.text;

function refuse(form, text, problem) {
  const box = form.querySelector(".refusal");
  box.hidden = false;
  box.replaceChildren(text, problem ? problemDetails(problem) || "" : "");
}

/** Post club events from ``form``; on success say ``done`` after the page is drawn again. */
async function post(form, events, done) {
  const box = form.querySelector(".refusal");
  box.hidden = true;
  const buttons = [...form.querySelectorAll("button")];
  buttons.forEach((b) => { b.disabled = true; });
  const result = await clubCall("POST", `/clubs/${id}/events`, { events }, id);
  buttons.forEach((b) => { b.disabled = false; });
  if (result.offline) { refuse(form, t("The server cannot be reached; nothing was recorded.")); return; }
  if (!result.ok) { refuse(form, problemText(result.body).message, result.body); return; }
  sayAfterReload(done, form.id);
  location.reload();
}

const value = (input) => $(input).value.trim();

function rosterItem(p) {
  const link = el("a", { href: `/c/${id}/p/${p.id}`, text: p.name });
  return el("li", { "data-player": p.id, class: p.hidden ? "hidden-player" : null }, link,
    p.nickname ? el("span", { class: "note", text: ` (${p.nickname})` }) : null, " ",
    el("span", { class: "count", text: tn("%(n)s match", "%(n)s matches", p.matches) }),
    p.hidden ? el("span", { class: "badge", text: t("hidden") }) : null);
}

function fillSelects(players) {
  for (const select of document.querySelectorAll("select[data-players]")) {
    const before = select.value;
    select.replaceChildren(...players.map((p) => el("option", { value: p.id, text: p.hidden ? t("%(player)s (hidden)", { player: p.name }) : p.name })));
    if (players.some((p) => p.id === before)) select.value = before;
  }
  if (players.length > 1) $("merge-into").selectedIndex = 1;
}

async function organise() {
  const key = keyFor(id);
  if (!key) return;
  const result = await clubCall("GET", `/clubs/${id}`, undefined, id);
  if (!result.ok) return;
  const players = result.body.players.filter((p) => !p.merged);
  $("organiser").hidden = false;
  const link = `${location.origin}/c/${id}#key=${encodeURIComponent(key)}`;
  $("key-link").href = link;
  $("key-link").textContent = link;
  $("key-qr").replaceChildren(qrSvg(link, t("QR code: this club's page with its organiser's key")));
  $("roster-tools").hidden = false;
  $("night-tools").hidden = false;
  const again = said && said.form && document.getElementById(said.form);
  if (again) {  // the form just used, open again for the next change of its kind
    again.closest("details").open = true;
    again.querySelector("input, select").focus();
  }
  if (players.length) $("roster-list").replaceChildren(...players.map(rosterItem));
  fillSelects(players);
  const byId = Object.fromEntries(players.map((p) => [p.id, p]));
  const pickRename = () => {
    const p = byId[$("rename-who").value];
    if (p) { $("rename-name").value = p.name; $("rename-nickname").value = p.nickname || ""; }
  };
  $("rename-who").addEventListener("change", pickRename);
  pickRename();

  $("add-player").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = value("add-name");
    if (!name) { refuse(event.target, t("Write the player's name.")); return; }
    const nickname = value("add-nickname");
    post(event.target, [{ type: "player_added", data: nickname ? { name, nickname } : { name } }],
      t("%(player)s joins the club.", { player: name }));
  });
  $("rename-player").addEventListener("submit", (event) => {
    event.preventDefault();
    const player = $("rename-who").value;
    const name = value("rename-name");
    if (!player || !name) { refuse(event.target, t("Choose a player and write the new name.")); return; }
    const nickname = value("rename-nickname");
    post(event.target, [{ type: "player_renamed", data: nickname ? { player, name, nickname } : { player, name } }],
      t("Renamed: %(player)s.", { player: name }));
  });
  $("merge-players").addEventListener("submit", (event) => {
    event.preventDefault();
    const player = $("merge-who").value;
    const into = $("merge-into").value;
    if (!player || !into) { refuse(event.target, t("Choose both entries.")); return; }
    post(event.target, [{ type: "players_merged", data: { player, into } }],
      t("%(player)s and %(into)s are now one player.", { player: byId[player].name, into: byId[into].name }));
  });
  $("hide-player").addEventListener("submit", (event) => {
    event.preventDefault();
    const player = $("hide-who").value;
    if (!player) return;
    const hide = (event.submitter && event.submitter.dataset.action) !== "show";
    post(event.target, [{ type: hide ? "player_hidden" : "player_shown", data: { player } }],
      hide ? t("%(player)s is hidden from public lists.", { player: byId[player].name })
        : t("%(player)s is shown in public lists again.", { player: byId[player].name }));
  });
  $("open-night").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = value("night-name");
    const date = value("night-date");
    if (!name || !date) { refuse(event.target, t("Write the night's name and date.")); return; }
    post(event.target, [{ type: "night_opened", data: { name, date } }], t("Night opened: %(night)s.", { night: name }));
  });
  $("declare-season").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = value("season-name");
    const from = value("season-from");
    const to = value("season-to");
    if (!name || !from || !to) { refuse(event.target, t("Write the season's name and its first and last day.")); return; }
    post(event.target, [{ type: "season_declared", data: { name, from, to } }], t("Season declared: %(season)s.", { season: name }));
  });
}

$("night-date").value = new Date().toISOString().slice(0, 10);
organise();
