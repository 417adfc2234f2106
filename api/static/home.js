// Home: import a recorded file through POST /matches/import, as a script would, and say what
// happened in plain words: the matches imported (their write keys kept in this browser, as for a
// match created here), the ones already here, and every problem of the file by line and column.
import { get, keepToken, problemDetails, problemText, upload } from "./api.js";
import { $, el } from "./dom.js";
import { lang, t, tn } from "./say.js";

const ARCHIVE = "application/x-ndjson";
const TEXT = "text/plain; charset=utf-8";
const NAMED = 20;  // matches named by title and players; a bigger backup lists the rest by id


/** The archive by its extension; the text notation by its own; otherwise the archive when the
 * first non-blank characters open a JSON object (`{"`): a text file may start with a `{comment}`. */
export function contentType(name, text) {
  const ext = (name.split(".").pop() || "").toLowerCase();
  if (ext === "jsonl" || ext === "ndjson") return ARCHIVE;
  if (ext === "tnt") return TEXT;
  // (the regular expression in brackets: Babel's extractor reads a "/" after "return" as a division)
  return (/^\s*\{\s*"/).test(text) ? ARCHIVE : TEXT;
}

async function importFile(file) {
  const busy = $("import-busy");
  busy.textContent = t("Importing %(file)s…", { file: file.name });
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
  const link = el("a", { href: `/m/${entry.id}/score` }, who ? el("strong", { text: who.title }) : t("match %(id)s", { id: entry.id }));
  return el("li", {}, link, who && who.game ? el("span", { class: "game", text: who.game }) : null,
    who ? el("span", { class: "players", text: who.players }) : null,
    ...details.map((d) => el("span", { class: "meta", text: d })));
}

/** Where a match is in the file: "line 3 of the file", "lines 3–9 of the file". */
const lines = (e) => !e.lines ? null : e.lines[0] === e.lines[1]
  ? t("line %(line)s of the file", { line: e.lines[0] })
  : t("lines %(first)s–%(last)s of the file", { first: e.lines[0], last: e.lines[1] });
/** Facts side by side, as the list of matches writes them. */
const dotted = (...facts) => facts.filter(Boolean).join(" · ");

async function report(fileName, result) {
  const box = $("import-report");
  const body = $("import-body");
  const title = $("import-title");
  box.hidden = false;
  const answer = result.body || {};
  if (result.offline || !Array.isArray(answer.errors)) {
    title.textContent = t("Nothing imported from %(file)s", { file: fileName });
    const why = result.offline ? { message: t("The server cannot be reached. Try again when the connection is back."), code: "" } : problemText(answer);
    body.replaceChildren(el("div", { class: "refusal", role: "alert" }, why.message, result.offline ? null : problemDetails(answer)));
    title.focus();
    return;
  }
  const imported = answer.imported || [], unchanged = answer.unchanged || [], errors = answer.errors || [];
  for (const m of imported) if (m.token) keepToken(m.id, m.token);
  const named = await names([...imported, ...unchanged]);
  title.textContent = imported.length ? t("Imported from %(file)s", { file: fileName }) : t("Nothing imported from %(file)s", { file: fileName });
  const parts = [];
  if (imported.length) parts.push(tn("%(n)s match imported", "%(n)s matches imported", imported.length));
  if (unchanged.length) parts.push(tn("%(n)s match was already here", "%(n)s matches were already here", unchanged.length));
  if (errors.length) parts.push(tn("%(n)s problem in the file", "%(n)s problems in the file", errors.length));
  // each part is a clause of its own, side by side
  const nodes = [el("p", { class: "summary", text: parts.length ? `${parts.join(", ")}.` : t("The file holds no match.") })];
  if (imported.length) {
    nodes.push(el("h3", { text: t("Imported") }),
      el("p", { class: "note", text: t("This browser keeps their write keys: open one to go on scoring it.") }),
      el("ul", { class: "imported" }, ...imported.map((m) => {
        const own = errors.filter((e) => e.match === m.id).map((e) => e.line);
        const kept = own.length ? t("The entries before line %(line)s were recorded; from there on nothing was, so the match stays open.", { line: Math.min(...own) }) : null;
        return matchItem(m, named, dotted(lines(m), tn("%(n)s entry recorded", "%(n)s entries recorded", m.version)), kept);
      })));
  }
  if (unchanged.length) {
    nodes.push(el("h3", { text: t("Already here") }),
      el("p", { class: "note", text: t("These matches are stored already, entry for entry: nothing new was added.") }),
      el("ul", { class: "unchanged" }, ...unchanged.map((m) => matchItem(m, named, dotted(lines(m), t("already present, unchanged"))))));
  }
  if (errors.length) {
    const several = imported.length + unchanged.length > 1;
    nodes.push(el("h3", { text: t("Problems in the file") }),
      el("ul", { class: "problems" }, ...errors.map((e) => {
        const where = e.column ? t("Line %(line)s, column %(column)s", { line: e.line, column: e.column }) : t("Line %(line)s", { line: e.line });
        const inMatch = several && e.match && named[e.match] ? ` (${named[e.match].title})` : "";
        return el("li", {}, el("strong", { class: "where", text: `${where}${inMatch}: ` }), e.message, problemDetails(e));
      })));
  }
  body.replaceChildren(...nodes);
  title.focus();
}

/** The server writes each match's last change in UTC; a player reads it in this device's own time
 * (the UTC time stays in the tooltip), and the match's day, as the reader's language writes dates
 * (English keeps the figures the server writes: 2026-11-28 21:05). */
function localTimes(root) {
  const two = (n) => String(n).padStart(2, "0");
  const moment = lang === "en" ? null : new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  const day = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeZone: "UTC" });
  for (const node of root.querySelectorAll("time[datetime]")) {
    const given = node.getAttribute("datetime");
    if (node.classList.contains("day")) {  // a calendar date, the same day everywhere
      const date = new Date(`${given}T00:00:00Z`);
      if (lang !== "en" && /^\d{4}-\d{2}-\d{2}$/.test(given) && !Number.isNaN(date.getTime())) node.textContent = day.format(date);
      continue;
    }
    const at = new Date(given);
    if (Number.isNaN(at.getTime())) continue;
    node.textContent = moment ? moment.format(at)
      : `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
    node.title = `${given.slice(0, 16).replace("T", " ")} UTC`;
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
