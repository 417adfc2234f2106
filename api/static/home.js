// Home: import a recorded file through POST /matches/import, as a script would, and say what
// happened in plain words: the matches imported (their write keys kept in this browser, as for a
// match created here), the ones already here, and every problem of the file by line and column.
import { get, keepToken, problemDetails, problemText, upload } from "./api.js";
import { $, el } from "./dom.js";

const ARCHIVE = "application/x-ndjson";
const TEXT = "text/plain; charset=utf-8";
const NAMED = 20;  // matches named by title and players; a bigger backup lists the rest by id


const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** The archive by its extension; the text notation by its own; otherwise the archive when the
 * first non-blank characters open a JSON object (`{"`): a text file may start with a `{comment}`. */
export function contentType(name, text) {
  const ext = (name.split(".").pop() || "").toLowerCase();
  if (ext === "jsonl" || ext === "ndjson") return ARCHIVE;
  if (ext === "tnt") return TEXT;
  return /^\s*\{\s*"/.test(text) ? ARCHIVE : TEXT;
}

async function importFile(file) {
  const busy = $("import-busy");
  busy.textContent = `Importing ${file.name}…`;
  const text = await file.text();
  const result = await upload("/matches/import", text, contentType(file.name, text));
  busy.textContent = "";
  await report(file.name, result);
  if (result.body && result.body.imported && result.body.imported.length) await refreshList();
}

/** Names of the matches (title or game, players) for the report's links. */
async function names(entries) {
  const games = await get("/games");
  const gameName = Object.fromEntries((games.body?.games || []).map((g) => [g.game, g.name]));
  const named = {};
  await Promise.all(entries.slice(0, NAMED).map(async (e) => {
    const m = await get(`/matches/${e.id}`);
    if (m.ok) {
      const game = gameName[m.body.game] || m.body.game;
      named[e.id] = { title: m.body.title || game, game: m.body.title ? game : null, players: (m.body.players || []).join(", ") };
    }
  }));
  return named;
}

function matchItem(entry, named, ...details) {
  const who = named[entry.id];
  const link = el("a", { href: `/m/${entry.id}/score` }, who ? el("strong", { text: who.title }) : `match ${entry.id}`);
  return el("li", {}, link, who && who.game ? el("span", { class: "game", text: who.game }) : null,
    who ? el("span", { class: "players", text: who.players }) : null,
    ...details.map((d) => el("span", { class: "meta", text: d })));
}

const lines = (e) => e.lines ? (e.lines[0] === e.lines[1] ? `line ${e.lines[0]}` : `lines ${e.lines[0]}–${e.lines[1]}`) : "";

async function report(fileName, result) {
  const box = $("import-report");
  const body = $("import-body");
  const title = $("import-title");
  box.hidden = false;
  const answer = result.body || {};
  if (result.offline || !Array.isArray(answer.errors)) {
    title.textContent = `Nothing imported from ${fileName}`;
    const why = result.offline ? { message: "The server cannot be reached. Try again when the connection is back.", code: "" } : problemText(answer);
    body.replaceChildren(el("div", { class: "refusal", role: "alert" }, why.message, result.offline ? null : problemDetails(answer)));
    title.focus();
    return;
  }
  const imported = answer.imported || [], unchanged = answer.unchanged || [], errors = answer.errors || [];
  for (const m of imported) if (m.token) keepToken(m.id, m.token);
  const named = await names([...imported, ...unchanged]);
  title.textContent = imported.length ? `Imported from ${fileName}` : `Nothing imported from ${fileName}`;
  const parts = [];
  if (imported.length) parts.push(`${plural(imported.length, "match", "matches")} imported`);
  if (unchanged.length) parts.push(`${plural(unchanged.length, "match was", "matches were")} already here`);
  if (errors.length) parts.push(`${plural(errors.length, "problem", "problems")} in the file`);
  const nodes = [el("p", { class: "summary", text: (parts.join(", ") || "The file holds no match") + "." })];
  if (imported.length) {
    nodes.push(el("h3", { text: "Imported" }),
      el("p", { class: "note", text: "This browser keeps their write keys: open one to go on scoring it." }),
      el("ul", { class: "imported" }, ...imported.map((m) => {
        const own = errors.filter((e) => e.match === m.id).map((e) => e.line);
        const kept = own.length ? `The entries before line ${Math.min(...own)} were recorded; from there on nothing was, so the match stays open.` : null;
        return matchItem(m, named, `${lines(m)} of the file · ${plural(m.version, "entry", "entries")} recorded`, kept);
      })));
  }
  if (unchanged.length) {
    nodes.push(el("h3", { text: "Already here" }),
      el("p", { class: "note", text: "These matches are stored already, entry for entry: nothing new was added." }),
      el("ul", { class: "unchanged" }, ...unchanged.map((m) => matchItem(m, named, `${lines(m)} of the file · already present, unchanged`))));
  }
  if (errors.length) {
    const several = imported.length + unchanged.length > 1;
    nodes.push(el("h3", { text: "Problems in the file" }),
      el("ul", { class: "problems" }, ...errors.map((e) => {
        const where = e.column ? `Line ${e.line}, column ${e.column}` : `Line ${e.line}`;
        const inMatch = several && e.match && named[e.match] ? ` (${named[e.match].title})` : "";
        return el("li", {}, el("strong", { class: "where", text: `${where}${inMatch}: ` }), e.message, problemDetails(e));
      })));
  }
  body.replaceChildren(...nodes);
  title.focus();
}

/** The server writes each match's last change in UTC; a player reads it in this device's own time
 * (the UTC time stays in the tooltip). */
function localTimes(root) {
  const two = (n) => String(n).padStart(2, "0");
  for (const node of root.querySelectorAll("time[datetime]")) {
    const utc = node.getAttribute("datetime");
    const at = new Date(utc);
    if (Number.isNaN(at.getTime())) continue;
    node.textContent = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
    node.title = `${utc.slice(0, 16).replace("T", " ")} UTC`;
  }
}

/** Bring the list of matches up to date (the same page, read again). */
async function refreshList() {
  try {
    const response = await fetch(location.pathname + location.search, { headers: { "Accept": "text/html" } });
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("match-list");
    if (fresh) { localTimes(fresh); $("match-list").replaceWith(fresh); }
  } catch (error) { /* the report's links still lead to the matches */ }
}

$("import-close").addEventListener("click", () => { $("import-report").hidden = true; $("import-file").focus(); });

localTimes($("match-list"));

const input = $("import-file");
input.addEventListener("change", async () => {
  const file = input.files[0];
  if (!file) return;
  await importFile(file);
  input.value = "";  // the same file may be chosen again
});
