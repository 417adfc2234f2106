// The scorer's page: reading the match (with the write key, the private values too) and drawing
// every part of the page from that one read.
import { keepAwake } from "./awake.js";
import { call, get, tokenFor, keepToken } from "../api.js";
import { $, el } from "../dom.js";
import { t, tn } from "../say.js";
import { forgetPreview, renderEntry } from "./entry.js";
import { renderHistory } from "./history.js";
import { S, forms, id, showRefusal } from "./match.js";
import { renderMoves, renderTable } from "./moves.js";
import { showQueue } from "./queue.js";
import { renderSheet } from "./sheet.js";

// ------------------------------------------------------------------ loading

/** Entries the history shows at first (the latest); "Show earlier entries" brings as many more each time. */
export const HISTORY_PAGE = 50;

/** Read the entries after ``after`` (every one up to the head, a page of the API at a time), with the
 * key when there is one (a wrong key still reads the public log); null when a read fails. */
async function entries(after, token, upto = Infinity) {
  const out = [];
  let from = after;
  while (from < upto) {
    const limit = Number.isFinite(upto) ? Math.min(upto - from, 1000) : 1000;
    const path = `/matches/${id}/events?after=${from}&limit=${limit}`;
    const keyed = token ? await call("GET", path, undefined, { token }) : await get(path);
    const page = keyed.ok || keyed.offline ? keyed : await get(path);
    if (!page.ok) return null;
    out.push(...page.body.events);
    if (page.body.next == null || !page.body.events.length) break;
    from = page.body.next;
  }
  return out;
}

/** The entries the page shows and reads: the first (the match's options), the latest ones the
 * history lists (from ``S.from`` on), and any older entry one of them names (a correction's target,
 * a card still missing), each read once — never the whole log of a long match. */
async function readEntries(version, token) {
  const from = Math.max(0, Math.min(S.from ?? Infinity, version - HISTORY_PAGE));
  const [latest, first] = await Promise.all([entries(from, token), from > 0 ? entries(0, token, 1) : []]);
  if (!latest || !first) return null;
  const known = new Map([...first, ...latest].map((e) => [e.seq, e]));
  const named = new Set();
  for (const e of latest) if (e.type === "amend" && Number.isInteger(e.data.target)) named.add(e.data.target);
  for (const h of S.audit.hands) for (const ref of h.missing || []) if (Number.isInteger(ref.seq)) named.add(ref.seq);
  for (const seq of named) {
    if (known.has(seq) || seq < 1) continue;
    const one = await entries(seq - 1, token, seq);
    if (!one) return null;
    for (const e of one) known.set(e.seq, e);
  }
  S.from = from;
  return [...known.values()].sort((a, b) => a.seq - b.seq);
}

/** Show earlier entries in the history: the page before the earliest shown. */
export async function earlierEntries() {
  const token = tokenFor(id);
  const from = Math.max(0, (S.from ?? 0) - HISTORY_PAGE);
  const more = await entries(from, token, S.from);
  if (!more) return;
  const known = new Map([...S.events, ...more].map((e) => [e.seq, e]));
  S.events = [...known.values()].sort((a, b) => a.seq - b.seq);
  S.from = from;
  renderHistory();
}

export async function refresh({ keepForms = false } = {}) {
  const token = tokenFor(id);
  // with the key: the private values too — the log, and the moves the record's known cards allow
  // (a Cabo draw recorded as a 3 offers no peek, and its discard is one tap)
  const [summary, audit, disclosed] = await Promise.all([
    get(`/matches/${id}`), get(`/matches/${id}/audit`),
    token ? call("GET", `/matches/${id}/legal-moves`, undefined, { token }) : get(`/matches/${id}/legal-moves`)]);
  const legal = disclosed.ok || disclosed.offline ? disclosed : await get(`/matches/${id}/legal-moves`);  // a wrong key still reads the public moves
  // A read that did not reach the server (a dropped connection at the table) leaves the sheet as
  // it was shown: drawing from half the answers would break the page.
  // So does a mix of fresh answers and copies the service worker kept (the server went away
  // between them); copies alone are the match as last known, drawn when the server is away.
  const reads = [summary, audit, legal];
  const mixed = reads.some((r) => r.stale) && !reads.every((r) => r.stale);
  if (reads.some((r) => r.offline) || (mixed && S.summary)) { showQueue(); return; }
  const previous = S.audit;
  S.audit = audit.body;  // the hands' missing cards name the entries to read
  const log = await readEntries(summary.body.version, token);
  const view = token ? await call("GET", `/matches/${id}/state?seat=all`, undefined, { token }) : await get(`/matches/${id}/state`);
  const shown = view.ok ? view : await get(`/matches/${id}/state`);
  if (!log || !shown.ok) { S.audit = previous; showQueue(); return; }  // the server went away between the reads: keep the page as it is
  S.summary = summary.body; S.audit = audit.body; S.legal = oneButtonEach(legal.body.moves); S.events = log;
  S.version = S.summary.version;
  S.view = shown.body.state;
  render(keepForms);
  keepAwake(S.summary.status !== "over");
}

/** One template per button: the moves the record knows in full come one per card or slot (every lead
 * of a known hand, every swap of a known 12), which would be dozens of buttons; each move type of each
 * seat (each dealer of a deal, each source of a draw) becomes one, keeping the fields all its templates
 * share — the form asks the rest, and the API judges it. */
export function oneButtonEach(moves) {
  const groups = new Map();
  for (const move of moves) {
    const d = move.data || {};
    const key = JSON.stringify([move.type, d.seat, d.dealer, d.from]);
    if (!groups.has(key)) groups.set(key, { type: move.type, data: { ...d } });
    else {
      const kept = groups.get(key).data;
      for (const k of Object.keys(kept)) if (JSON.stringify(kept[k]) !== JSON.stringify(d[k])) delete kept[k];
    }
  }
  return [...groups.values()];
}

/** Draw everything; ``keepForms`` leaves the open forms as typed (only the facts around them change). */
export function render(keepForms = false) {
  showQueue();  // first: what waits to be sent is said whatever the drawing below meets
  renderAccess();
  renderSheet();
  if (keepForms) renderTable(); else { renderEntry(); renderMoves(); }
  renderHistory();
}

/** Show a refusal in place; after a version conflict, bring the sheet up to date and keep what was typed. */
export async function refused(box, result) {
  if (result.status !== 409) { showRefusal(box, result); return; }
  // the API's "reload it and record your events again" is done here already: say what the page did
  showRefusal(box, { ...result, body: { ...result.body, message: undefined,
    detail: t("Another phone recorded entries meanwhile: the sheet above is up to date now. Check your entry and save it again.") } });
  forgetPreview();
  $("save-hand").disabled = true;
  await refresh({ keepForms: true });
}

export function renderAccess() {
  const box = $("access");
  box.replaceChildren();
  $("export-note").textContent = tokenFor(id) ? "" : t("(without this match's write key, the cards only its scorer saw are left out)");
  if (tokenFor(id)) {
    box.textContent = S.summary.status === "over"
      ? tn("The match is over. %(n)s entry recorded.", "The match is over. %(n)s entries recorded.", S.version)
      : tn("You can score this match from this phone. %(n)s entry recorded.", "You can score this match from this phone. %(n)s entries recorded.", S.version);
    return;
  }
  const input = el("input", { id: "token-input", autocomplete: "off" });
  box.append(el("p", { text: t("This phone has no write key for this match, so it can only read the score. Scan the code from the phone that created it, or paste the key:") }),
    el("label", { for: "token-input" }, t("Write key"), input),
    el("button", { type: "button", class: "button", onclick: () => { if (input.value.trim()) { keepToken(id, input.value.trim()); refresh(); } } }, t("Use this key")));
}
