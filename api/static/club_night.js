// A club night: every table followed live (GET /clubs/{id}/nights/{night}/stream, follow.js), each event
// bringing the tables and the standings across them again as the server draws them; and for the
// organiser (the club's key in this browser) a new table: a game, players from the roster in seat
// order, POST /clubs/{id}/matches with the night, then the scorer's link with the match's key.
import { problemDetails, problemText, keepToken, tokenFor } from "./api.js";
import { adoptFragmentKey, clubCall, keyFor } from "./club_key.js";
import { $, el } from "./dom.js";
import { followStream } from "./follow.js";
import { qrSvg } from "./qr.js";
import { t } from "./say.js";

const root = $("night");
const club = root.dataset.club;
const nightId = root.dataset.night;
adoptFragmentKey(club);

// ---- following the tables: one stream for the whole night ----------------------------------
// GET /clubs/{id}/nights/{night}/stream announces every change of any table (and a new table):
// one server thread for a night of any size, where a stream per table ran out of the server's
// stream slots with three tables, a big screen and the scorers' phones.
let busy = null;

async function redraw() {
  const answer = await fetch(location.pathname + location.search, { headers: { Accept: "text/html" } });
  if (!answer.ok) return;
  const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
  for (const name of ["night-live", "table-count"]) {
    const part = fresh.getElementById(name);
    if (part) $(name).replaceWith(part);
  }
  settle();
}

function queueRedraw() {
  if (busy) { busy.again = true; return; }
  busy = { again: false };
  (async () => {
    try { do { busy.again = false; await redraw(); } while (busy.again); } finally { busy = null; }
  })();
}

/** After each drawing: show the scorer's link of the tables whose write key this browser holds. */
function settle() {
  for (const table of document.querySelectorAll(".night-table")) {
    const link = table.querySelector(".scorer-link");
    if (link && tokenFor(table.dataset.match)) link.hidden = false;
  }
}

settle();
if (typeof EventSource !== "undefined") {
  followStream(`/clubs/${club}/nights/${nightId}/stream`, Number(root.dataset.count), queueRedraw,
    { onLive: (on) => { $("live").hidden = !on; } });
}

// ---- a new table, for the organiser ---------------------------------------------------------
let roster = [];

function seatSelect(n) {
  const select = el("select", { id: `seat-${n}`, "aria-label": t("Seat %(seat)s", { seat: n + 1 }) },
    ...roster.map((p) => el("option", { value: p.id, text: p.name })));
  select.selectedIndex = Math.min(n, roster.length - 1);
  return el("li", {}, select);
}

/** Seats for the chosen game: as many as there are, within the game's range; ``usual`` (a game
 * just chosen) seats four where the game allows it, as the new-match page does. */
function refreshSeats(usual = false) {
  const option = $("table-game").selectedOptions[0];
  const min = Number(option.dataset.min);
  const max = Math.min(Number(option.dataset.max), roster.length);
  const seats = $("seats");
  const want = usual ? Math.min(Math.max(min, 4), max) : Math.min(Math.max(min, seats.children.length), max);
  while (seats.children.length < want) seats.append(seatSelect(seats.children.length));
  while (seats.children.length > want) seats.lastElementChild.remove();
  $("add-seat").disabled = seats.children.length >= max;
  $("remove-seat").disabled = seats.children.length <= min;
}

async function startTable(event) {
  event.preventDefault();
  const error = $("table-error");
  error.hidden = true;
  const players = [...$("seats").querySelectorAll("select")].map((s) => s.value);
  if (new Set(players).size !== players.length) {
    error.hidden = false;
    error.textContent = t("Each player can sit at one seat only.");
    return;
  }
  $("start-table").disabled = true;
  $("table-created").hidden = true;  // the last table's link is not this one's
  const body = { match: { game: $("table-game").value, players }, night: nightId };
  const result = await clubCall("POST", `/clubs/${club}/matches`, body, club);
  $("start-table").disabled = false;
  if (!result.ok) {
    error.hidden = false;
    if (result.offline) error.textContent = t("The server cannot be reached; nothing was created.");
    else error.replaceChildren(problemText(result.body).message, problemDetails(result.body) || "");
    return;
  }
  const { id, token } = result.body;
  keepToken(id, token);
  const scoring = `${location.origin}/m/${id}/score#token=${encodeURIComponent(token)}`;
  $("table-score").href = scoring;
  $("table-qr").replaceChildren(qrSvg(scoring, t("QR code: open this table for scoring on another phone, with its write key")));
  $("table-created").hidden = false;
  $("table-created-title").focus();
  queueRedraw();
}

async function organise() {
  if (!keyFor(club) || !$("new-table")) return;
  const result = await clubCall("GET", `/clubs/${club}`, undefined, club);
  if (!result.ok) return;
  roster = result.body.players.filter((p) => !p.hidden && !p.merged);
  $("new-table").hidden = false;
  if (roster.length < 2) {
    $("table-form").replaceChildren(el("p", { class: "note", text: t("Add at least two players to the club's roster first.") }));
    return;
  }
  $("table-game").addEventListener("change", () => refreshSeats(true));
  $("add-seat").addEventListener("click", () => { $("seats").append(seatSelect($("seats").children.length)); refreshSeats(); });
  $("remove-seat").addEventListener("click", () => { $("seats").lastElementChild.remove(); refreshSeats(); });
  $("table-form").addEventListener("submit", startTable);
  refreshSeats(true);
}

organise();
