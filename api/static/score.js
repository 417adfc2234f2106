// The scorer's page: the score sheet, a hand from the sheet (checked with ?dryRun=true before it
// is saved), move by move with card pickers and the legal moves as buttons, undo and
// corrections, and a queue for entries made while the connection is down.
import { adoptFragmentToken, append, call, download, dryRun, flush, get, problemText, queued, tokenFor, keepToken } from "./api.js";
import { cardButton, cardFace, cardName, cardsEl, paintCard, placedCounts } from "./cards.js";
import { FIELDS, SHEET, DEAL, deck, knowGame, moveLabel } from "./games.js";
import { drawTable } from "./table.js";
import { $, el, keepingFocus, seatNamer } from "./dom.js";
import { kit } from "./forms.js";

const root = $("scorer");
const id = root.dataset.match;
const gameId = root.dataset.game;
adoptFragmentToken(id);

const S = { summary: null, audit: null, info: null, legal: [], view: null, events: [], version: 0 };
let previewed = null;   // the events whose dry run last succeeded (JSON), so Save only saves what was shown

const players = () => S.summary.players;
const seatName = seatNamer(players);
const teams = () => S.info.teams;
const columnLabels = () => S.summary.standings.map((s) => s.names ? s.names.join(" + ") : s.name);

// ------------------------------------------------------------------ loading

async function refresh({ keepForms = false } = {}) {
  const token = tokenFor(id);
  // with the key: the private values too — the log, and the moves the record's known cards allow
  // (a Cabo draw recorded as a 3 offers no peek, and its discard is one tap)
  const [summary, audit, disclosed, events] = await Promise.all([
    get(`/matches/${id}`), get(`/matches/${id}/audit`),
    token ? call("GET", `/matches/${id}/legal-moves`, undefined, { token }) : get(`/matches/${id}/legal-moves`),
    call("GET", `/matches/${id}/events?limit=10000`, undefined, { token })]);
  const legal = disclosed.ok || disclosed.offline ? disclosed : await get(`/matches/${id}/legal-moves`);  // a wrong key still reads the public moves
  // A read that did not reach the server (a dropped connection at the table) leaves the sheet as
  // it was shown: drawing from half the answers would break the page.
  if ([summary, audit, legal].some((r) => r.offline)) { showQueue(); return; }
  const log = events.ok ? events : await get(`/matches/${id}/events?limit=10000`);  // a wrong key still reads the public log
  S.summary = summary.body; S.audit = audit.body; S.legal = oneButtonEach(legal.body.moves); S.events = log.body.events;
  S.version = S.summary.version;
  const view = token ? await call("GET", `/matches/${id}/state?seat=all`, undefined, { token }) : await get(`/matches/${id}/state`);
  S.view = (view.ok ? view.body : (await get(`/matches/${id}/state`)).body).state;
  render(keepForms);
}

/** One template per button: the moves the record knows in full come one per card or slot (every lead
 * of a known hand, every swap of a known 12), which would be dozens of buttons; each move type of each
 * seat (each dealer of a deal, each source of a draw) becomes one, keeping the fields all its templates
 * share — the form asks the rest, and the API judges it. */
function oneButtonEach(moves) {
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
function render(keepForms = false) {
  showQueue();  // first: what waits to be sent is said whatever the drawing below meets
  renderAccess();
  renderSheet();
  if (keepForms) renderTable(); else { renderEntry(); renderMoves(); }
  renderHistory();
}

/** Show a refusal in place; after a version conflict, bring the sheet up to date and keep what was typed. */
async function refused(box, result) {
  if (result.status !== 409) { showRefusal(box, result); return; }
  // the API's "reload it and record your events again" is done here already: say what the page did
  showRefusal(box, { ...result, body: { ...result.body, message: undefined,
    detail: "Another phone recorded entries meanwhile: the sheet above is up to date now. Check your entry and save it again." } });
  previewed = null;
  $("save-hand").disabled = true;
  await refresh({ keepForms: true });
}

function renderAccess() {
  const box = $("access");
  box.replaceChildren();
  $("export-note").textContent = tokenFor(id) ? "" : "(without this match's write key, the cards only its scorer saw are left out)";
  if (tokenFor(id)) {
    box.textContent = `${S.summary.status === "over" ? "The match is over." : "You can score this match from this phone."} ${S.version} ${S.version === 1 ? "entry" : "entries"} recorded.`;
    return;
  }
  const input = el("input", { id: "token-input", autocomplete: "off" });
  box.append(el("p", { text: "This phone has no write key for this match, so it can only read the score. Scan the code from the phone that created it, or paste the key:" }),
    el("label", { for: "token-input" }, "Write key", input),
    el("button", { type: "button", class: "button", onclick: () => { if (input.value.trim()) { keepToken(id, input.value.trim()); refresh(); } } }, "Use this key"));
}

// ------------------------------------------------------------------ the score sheet

function handStatus(h) {
  const closed = h.closedFromSheet ? `, closed from the sheet after move ${h.closedFromSheet.afterMove}` : "";
  if (h.status === "scored") return `scored${closed}`;
  if (h.status === "void") return "void";
  if (h.status === "playing") return "in play";
  if (h.status === "incomplete") {
    const missing = (h.missing || []).map((m) => m.seat != null && m.slot != null ? `${seatName(m.seat)} slot ${m.slot}`
      : m.seq != null ? `card ${(m.index ?? 0) + 1} of entry ${m.seq}` : m.seat != null ? `a card of ${seatName(m.seat)}` : JSON.stringify(m));
    return missing.length > 3 ? `incomplete: ${missing.length} cards never shown (${missing.slice(0, 2).join(", ")} …)`
      : `incomplete: missing ${missing.join(", ") || "cards"}`;
  }
  return h.status;
}

function renderSheet() {
  const table = $("sheet");
  const labels = columnLabels();
  const unit = S.summary.standings[0] && "team" in S.summary.standings[0] ? "team" : "seat";
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Hand" }), ...labels.map((l) => el("th", { scope: "col", text: l })), el("th", { scope: "col", text: "Status" })));
  const body = el("tbody");
  for (const h of S.audit.hands) {
    const row = el("tr", { class: `status-${h.status}`, "data-hand": h.hand });
    row.append(el("th", { scope: "row", text: String(h.hand) }));
    labels.forEach((_, i) => {
      const pts = h.points ? h.points[i] : null;
      const tot = h.totals ? h.totals[i] : null;
      const cell = el("td", {}, el("span", { class: "pts", text: pts == null ? "—" : cellWords(pts, "pts") }),
        ...rebuyMark(h, i), tot == null ? null : el("span", { class: "tot", text: cellWords(tot, "tot") }));
      const against = S.audit.claims.filter((c) => c.hand === h.hand && c.agrees === false && c[unit] === i);
      if (against.length) {
        cell.classList.add("disagrees");
        for (const c of against) cell.append(el("span", { class: "flag", text: `sheet: ${c.claimed}${c.field === "totals" ? " total" : ""}` }));
      }
      row.append(cell);
    });
    // the status in a span of its own: the cell also holds the button that opens the sheet's row
    row.append(el("td", { class: "status-cell" }, el("span", { class: "status", text: handStatus(h) }),
      tokenFor(id) && ["scored", "incomplete"].includes(h.status) ? claimButton(h) : null));
    body.append(row);
    if (claimOpen === h.hand && ["scored", "incomplete"].includes(h.status)) body.append(claimRow(h, labels, unit));
  }
  if (!S.audit.hands.length) body.append(el("tr", {}, el("td", { colspan: labels.length + 2, text: "No hand yet." })));
  const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row", text: "Total" }),
    ...S.summary.standings.map((s, i) => el("td", { class: "total", "data-total": i, text: String(s.total) })), el("td")));
  table.replaceChildren(table.querySelector("caption"), head, body, foot);
  const end = S.summary.end;
  $("end").textContent = end.over ? `Match over. Winners: ${(end.winners || []).map((w) => labels[w]).join(", ")}. ${end.reason || ""}` : "";
}

/** A sheet cell's number in words where the bare "12 = 1" would mix two things: Cau Robat's hand
 * column counts the cards in a pile and its total the hands won. */
function cellWords(n, part) {
  if (gameId !== "cau-robat") return part === "tot" ? `= ${n}` : String(n);
  return part === "pts" ? `${n} card${n === 1 ? "" : "s"}` : `${n} hand${n === 1 ? "" : "s"} won`;
}

/** El Roby: a seat that went over 99 in this hand, re-bought (and its price) or out; the total
 * beside it is the re-entry score, not the sum. */
function rebuyMark(h, seat) {
  const r = h.result;
  if (gameId !== "el-roby" || !r || !(r.busted || []).includes(seat)) return [];
  const text = (r.rebuys || []).includes(seat) ? `over 99: re-bought for ${r.price}, back in at ${r.reentry}`
    : S.legal.some((m) => m.type === "rebuy" && m.data.seat === seat) ? "over 99: may re-buy" : "over 99: out";
  return [el("span", { class: "rebuy", "data-rebuy": seat, text })];
}

// ------------------------------------------------------------------ what the table wrote

// The paper sheet's row, typed cell by cell under the computed one (a score_claimed: it never changes
// the game, it feeds the audit). Each cell says at once whether it agrees with the record, before
// anything is saved; a row typed again replaces the hand's earlier claim (an amend), so the audit
// compares the sheet as it now reads, not two versions of it.
let claimOpen = null;  // the hand whose "the table wrote" row is open

const CLAIM_FIELDS = [["points", "hand"], ["totals", "total"]];

function claimButton(h) {
  const written = S.audit.claims.some((c) => c.hand === h.hand);
  return el("button", { type: "button", class: "button claim-open", "aria-expanded": String(claimOpen === h.hand),
    "aria-label": `${written ? "Change" : "Type"} what the table wrote for hand ${h.hand}`,
    text: "Table wrote…",
    onclick: () => { claimOpen = claimOpen === h.hand ? null : h.hand; renderSheet(); focusClaim(h.hand); } });
}

function focusClaim(hand) {
  const first = document.querySelector(`tr.claim-row[data-claim-hand="${hand}"] input`);
  if (first) first.focus(); else { const b = document.querySelector(`tr[data-hand="${hand}"] .claim-open`); if (b) b.focus(); }
}

/** The row of inputs under hand ``h``: in each column the hand's points and the running total the
 * sheet shows, each marked at once as agreeing with the record or not. */
function claimRow(h, labels, unit) {
  const standing = S.audit.claims.filter((c) => c.hand === h.hand);
  const prior = (field, i) => { const c = standing.filter((x) => x.field === field && x[unit] === i).pop(); return c ? String(c.claimed) : ""; };
  const row = el("tr", { class: "claim-row", "data-claim-hand": h.hand });
  row.append(el("th", { scope: "row", class: "claim-head", text: "Sheet" }));
  const inputs = [];
  const negative = gameId === "kabu";  // chips lost are written with a minus: the numeric keypad has none
  labels.forEach((label, i) => {
    const cell = el("td", { class: "claim-cell" });
    for (const [field, word] of CLAIM_FIELDS) {
      if (field === "totals" && !h.totals) continue;
      const input = el("input", { type: "number", step: "1", inputmode: negative ? null : "numeric", class: "claim-input",
        value: prior(field, i), "aria-label": `${label}, hand ${h.hand}: ${field === "points" ? "the hand's points" : "the running total"} on the sheet` });
      const mark = el("span", { class: "claim-mark", "aria-hidden": "true" });
      inputs.push({ field, col: i, label, input, mark, computed: (h[field] || [])[i] ?? null });
      cell.append(el("span", { class: "claim-field" }, el("span", { class: "claim-word", "aria-hidden": "true", text: word }), input, mark));
    }
    row.append(cell);
  });
  const verdict = el("p", { class: "claim-verdict", role: "status", "aria-live": "polite" });
  const refusal = el("div", { class: "refusal", role: "alert", hidden: true });
  const save = el("button", { type: "button", class: "button primary", text: "Save row" });
  const cancel = el("button", { type: "button", class: "button", text: "Cancel" });
  row.append(el("td", { class: "status-cell claim-actions" }, verdict, el("p", { class: "actions" }, save, cancel), refusal));
  const typed = (x) => x.input.value.trim() === "" ? null : Number(x.input.value);
  const compare = () => {
    const differs = [];
    for (const x of inputs) {
      const value = typed(x);
      x.input.classList.toggle("agrees", value != null && x.computed != null && value === x.computed);
      x.input.classList.toggle("differs", value != null && x.computed != null && value !== x.computed);
      x.mark.textContent = value == null || x.computed == null ? "" : value === x.computed ? "✓" : `record ${x.computed}`;
      if (value != null && x.computed != null && value !== x.computed) differs.push(x);
    }
    const any = inputs.some((x) => typed(x) != null);
    if (!any) verdict.textContent = "Type the numbers as the sheet shows them; leave a cell blank if nothing is written.";
    else if (h.status !== "scored") verdict.textContent = "The record cannot score this hand yet: the audit compares it once it can.";
    else if (!differs.length) verdict.textContent = "✓ The sheet agrees with the record.";
    else {
      const d = differs[0];
      verdict.textContent = `Differs: ${d.label}'s ${d.field === "points" ? "points" : "total"} — the sheet says ${typed(d)}, the record ${d.computed}`
        + (differs.length > 1 ? ` (and ${differs.length - 1} more)` : "") + ".";
    }
  };
  row.addEventListener("input", compare);
  const close = () => { claimOpen = null; renderSheet(); focusClaim(h.hand); };
  const send = async () => {
    clearRefusal(refusal);
    if (inputs.some((x) => x.input.value.trim() !== "" && !Number.isInteger(Number(x.input.value)))) {
      showRefusal(refusal, { body: { detail: "Write whole numbers, as on the sheet." } }); return;
    }
    const data = { hand: h.hand };
    for (const [field] of CLAIM_FIELDS) {
      const values = labels.map((_, i) => { const x = inputs.find((y) => y.field === field && y.col === i); return x ? typed(x) : null; });
      if (values.some((v) => v != null)) data[field] = values;
    }
    if (!data.points && !data.totals) { showRefusal(refusal, { body: { detail: "Type at least one number from the sheet." } }); return; }
    const earlier = [...new Set(standing.map((c) => c.claimSeq))].pop();
    const events = earlier == null ? [{ type: "score_claimed", data }]
      : [{ type: "amend", data: { target: earlier, data, reason: "the sheet's row typed again" } }];
    save.disabled = true;
    const result = await append(id, events, `what the table wrote for hand ${h.hand}`, { ifMatch: S.version });
    save.disabled = false;
    if (result.queued) { claimOpen = null; showQueue(); renderSheet(); return; }
    if (!result.ok) { await refused(refusal, result); return; }
    claimOpen = null;
    await refresh({ keepForms: true });
    focusClaim(h.hand);
  };
  save.addEventListener("click", send);
  cancel.addEventListener("click", close);
  row.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { event.preventDefault(); close(); }
    else if (event.key === "Enter" && event.target.tagName === "INPUT") { event.preventDefault(); send(); }
  });
  compare();
  return row;
}

// ------------------------------------------------------------------ shared form controls

/** A group of toggle buttons (large targets); returns {node, value()}. */
function segmented(label, options, { multiple = false, initial = [], onchange, clearable = false } = {}) {
  const chosen = new Set(initial);
  const group = el("div", { class: "seg", role: "group", "aria-label": label });
  const buttons = options.map(([value, text]) => {
    const b = el("button", { type: "button", "aria-pressed": String(chosen.has(value)), "data-value": String(value), text });
    b.addEventListener("click", () => {
      if (multiple) { chosen.has(value) ? chosen.delete(value) : chosen.add(value); }
      else { const was = chosen.has(value); chosen.clear(); if (!was || !clearable) chosen.add(value); }
      for (const other of buttons) other.setAttribute("aria-pressed", String(chosen.has(JSON.parse(other.dataset.json))));
      onchange && onchange();
    });
    b.dataset.json = JSON.stringify(value);
    return b;
  });
  group.append(...buttons);
  const node = el("div", { class: "field-row" }, el("span", { class: "label", text: label }), group);
  return { node, value: () => multiple ? [...chosen] : (chosen.size ? [...chosen][0] : null) };
}

const seatOptions = () => players().map((n, s) => [s, n]);

/** A list of cards chosen with a picker of the match's deck (placed cards greyed). */
function cardList(label, { max = 8, single = false, only = null, allowUnknown = true, initial = [], onchange } = {}) {
  const chosen = [...initial];
  const list = el("div", { class: "cards", "aria-live": "polite" });
  const picker = el("div", { class: "picker", role: "group", "aria-label": `${label}: pick a card` });
  const wrap = el("div", { class: "field-row" }, el("span", { class: "label", text: label }), list, picker);
  const draw = () => keepingFocus(wrap, redraw);
  const redraw = () => {
    list.replaceChildren(...chosen.map((c, i) => {
      const b = cardButton(c, `${label}: ${cardName(c)}, press to remove`);
      b.addEventListener("click", () => { chosen.splice(i, 1); draw(); onchange && onchange(); });
      return b;
    }));
    if (!chosen.length) list.append(el("span", { class: "note", text: "none yet" }));
    const counts = placedCounts(S.view, knownCodes());
    for (const c of chosen) counts.set(c, (counts.get(c) || 0) + 1);
    picker.replaceChildren();
    const codes = deck(gameId, matchOptions()).filter((d) => !only || only.includes(d.code));
    for (const d of codes) {
      const b = cardButton(d.code, `${label}: add ${cardName(d.code)}`);
      if ((counts.get(d.code) || 0) >= d.copies) b.classList.add("placed");
      b.addEventListener("click", () => { if (single) chosen.splice(0); if (chosen.length < max) chosen.push(d.code); draw(); onchange && onchange(); });
      picker.append(b);
    }
    if (allowUnknown) {
      const b = cardButton("??", `${label}: add an unseen card`);
      b.addEventListener("click", () => { if (single) chosen.splice(0); if (chosen.length < max) chosen.push("??"); draw(); onchange && onchange(); });
      picker.append(b);
    }
  };
  draw();
  return { node: wrap, value: () => single ? (chosen[0] ?? null) : [...chosen] };
}

function knownCodes() { return new Set(deck(gameId, matchOptions()).map((d) => d.code)); }
function matchOptions() { const first = S.events[0]; return (first && first.data.options) || {}; }

function numberField(label, { min = 0, max = 999, initial = "", onchange, idName, required = false } = {}) {
  const input = el("input", { type: "number", inputmode: "numeric", min, max, id: idName, value: initial, required });
  input.addEventListener("input", () => onchange && onchange());
  return { node: el("label", { for: idName }, label, input), input, value: () => input.value === "" ? null : Number(input.value) };
}

/** The first number of a sheet form left empty or out of its range, said with the field's own label
 * ("Write Anna's card total first."), and the field focused; null when every shown field is fine.
 * The API would say it too, but by the batch's JSON path ("the 1st entry of sums … entry 2 of what was sent"). */
function fieldProblem(form) {
  for (const input of form.querySelectorAll("input[type=number]")) {
    if (input.closest("[hidden]") || input.validity.valid) continue;
    const label = input.labels.length ? input.labels[0].firstChild.textContent.trim() : "this number";
    input.focus();
    return input.validity.valueMissing ? `Write ${label} first.` : `${label}: write a whole number from ${input.min} to ${input.max}.`;
  }
  return null;
}

function showRefusal(box, result) {
  box.hidden = false;
  box.replaceChildren();
  if (result.offline) { box.textContent = "The server cannot be reached."; return; }
  const { message, code } = problemText(result.body);
  const body = result.body || {};
  const where = [body.index != null && body.index > 0 ? `entry ${body.index + 1} of what was sent` : null,
    body.seq != null ? `concerns entry ${body.seq} of the history` : null].filter(Boolean).join(" · ");
  box.append(el("span", { text: message }), code ? el("span", { class: "code", text: `rule: ${code}${where ? ` · ${where}` : ""}` }) : "");  // "", not null: append() writes null as the text "null"
}
function clearRefusal(box) { box.hidden = true; box.replaceChildren(); }

// ------------------------------------------------------------------ a hand from the sheet

let sheetForm = null;
let closeRequested = false;

function handInPlay() {
  const last = S.audit.hands[S.audit.hands.length - 1];
  return !!last && ["playing", "incomplete"].includes(last.status) && !S.legal.some((m) => m.type === "hand_started");
}

function renderEntry() {
  const section = $("entry");
  const starts = S.legal.filter((m) => m.type === "hand_started");
  const closes = S.legal.some((m) => m.type === "hand_result");
  const spec = SHEET[gameId];
  // A move-by-move hand the scorer stops following may be closed from the sheet
  // (VOCABULARY §4); the form is offered on request and the API judges the facts.
  // Hands saved while offline wait in the queue: the next one is a new hand, its dealer
  // guessed as the seat after the last queued dealer (the API judges when it is sent).
  const waiting = queued(id).filter((q) => q.events.some((e) => e.type === "hand_result"));
  const queuedDealers = waiting.flatMap((q) => q.events).filter((e) => e.type === "hand_started").map((e) => e.data.dealer);
  const followed = handInPlay() && S.view && S.view.resultOnly === false;  // a hand entered move by move
  section.hidden = !tokenFor(id) || !spec || (followed && !closeRequested && !waiting.length)
    || (!starts.length && !closes && !waiting.length && !(closeRequested && handInPlay()));
  if (section.hidden) return;
  const form = $("sheet-form");
  form.replaceChildren();
  const inPlay = !starts.length && !waiting.length;
  $("entry-title").textContent = inPlay ? "Close this hand from the sheet" : `Enter hand ${countHands() + 1 + queuedDealers.length} from the sheet`;
  const onchange = () => { previewed = null; $("save-hand").disabled = true; $("preview").replaceChildren(); };
  let dealer = null;
  if (!inPlay) {
    const offered = waiting.length ? [] : starts.map((m) => m.data.dealer).filter((d) => d != null);
    const choices = offered.length ? offered : players().map((_, s) => s);
    const first = Number(localStorage.getItem(`tanteo:firstDealer:${id}`) ?? 0);
    const guess = queuedDealers.length ? (queuedDealers[queuedDealers.length - 1] + 1) % players().length : null;
    const initial = guess != null ? [guess] : offered.length === 1 ? offered
      : (choices.includes(first) && countHands() === 0 ? [first] : [choices[0]]);
    dealer = segmented("Dealer", choices.map((s) => [s, seatName(s)]), { initial, onchange });
    form.append(dealer.node);
  }
  const fields = spec.fields(ctx(), onchange);
  for (const f of fields) form.append(f.node);
  sheetForm = {
    events() {
      const data = spec.build(fields.map((f) => f.value()), ctx());
      if (inPlay) return [{ type: "hand_result", data }];
      const d = dealer.value();
      const template = starts.find((m) => m.data.dealer === d) || starts[0] || { data: {} };
      const opening = { ...template.data, dealer: d };
      if (gameId === "la-cabra") delete opening.leader;  // a result-only deal needs no leader
      return [{ type: "hand_started", data: opening }, { type: "hand_result", data }];
    },
  };
  onchange();
}

function ctx(prefix = "") { return { prefix, players: players(), teams: teams(), info: S.info, standings: S.summary.standings, el, segmented, numberField, seatOptions, cardList, matchOptions }; }
function countHands() { return S.audit.hands.filter((h) => h.status !== "void").length; }

function describePreview(result) {
  const labels = columnLabels();
  const box = el("div", { class: "box" });
  for (const h of result.hands) {
    box.append(el("p", {}, el("strong", { text: `Hand ${h.hand}: ` }),
      h.points ? labels.map((l, i) => `${l} ${h.points[i] ?? "—"}`).join(" · ") : handStatus(h)));
    for (const line of h.lines || []) box.append(el("p", { class: "note", text: line.reason }));
  }
  box.append(el("p", {}, el("strong", { text: "Totals: " }), result.standings.map((s, i) => `${labels[i]} ${s.total}`).join(" · ")));
  const next = (result.next || []).filter((m) => m.type === "hand_started").map((m) => m.data.dealer).filter((d) => d != null);
  const winners = (result.end.winners || []).map((w) => labels[w]);
  if (result.end.over) box.append(el("p", { text: `The match would be over: ${winners.length > 1 ? `${winners.slice(0, -1).join(", ")} and ${winners[winners.length - 1]} win` : `${winners[0] || "nobody"} wins`}.` }));
  else if (next.length === 1) box.append(el("p", { text: `Next: ${seatName(next[0])} deals.` }));
  else if (next.length > 1) box.append(el("p", { text: `Next: ${next.map(seatName).join(" or ")} may deal.` }));
  return box;
}

async function checkHand() {
  clearRefusal($("sheet-refusal"));
  const problem = fieldProblem($("sheet-form"));
  if (problem) { showRefusal($("sheet-refusal"), { body: { detail: problem } }); return; }
  let events;
  try { events = sheetForm.events(); } catch (error) { showRefusal($("sheet-refusal"), { body: { detail: error.message } }); return; }
  const result = await dryRun(id, events);
  if (result.offline) {
    previewed = JSON.stringify(events);
    $("preview").replaceChildren(el("p", { class: "note", text: "The server cannot be reached, so the result cannot be checked now. Saving queues the hand; it is checked when it is sent." }));
    $("save-hand").disabled = false;
    return;
  }
  if (!result.ok) { showRefusal($("sheet-refusal"), result); return; }
  previewed = JSON.stringify(events);
  $("preview").replaceChildren(describePreview(result.body));
  $("save-hand").disabled = false;
}

async function saveHand() {
  const events = sheetForm.events();
  if (JSON.stringify(events) !== previewed) { await checkHand(); return; }
  $("save-hand").disabled = true;
  const title = $("entry-title").textContent.replace("Enter ", "").replace("Close this hand", `hand ${countHands()}`);
  const result = await append(id, events, title, { ifMatch: S.version });
  if (result.queued) { previewed = null; closeRequested = false; $("preview").replaceChildren(); showQueue(); renderEntry(); return; }
  if (!result.ok) { await refused($("sheet-refusal"), result); return; }
  previewed = null;
  closeRequested = false;
  $("preview").replaceChildren();
  await refresh();
  $("sheet-title").focus();
}

// ------------------------------------------------------------------ move by move

function renderTable() {
  $("table").replaceChildren(...drawTable(gameId, S.view, seatName, (c) => knownCodes().has(c) || c === "??"));
}

function renderMoves() {
  const section = $("moves");
  section.hidden = !tokenFor(id) || (S.summary.end && S.summary.end.over) || !S.legal.length;
  if (section.hidden) return;
  renderTable();
  const legal = $("legal");
  legal.replaceChildren();
  $("deal-area").replaceChildren();
  $("close-area").replaceChildren();
  const turnInfo = S.view && S.view.turn != null ? `${seatName(S.view.turn)} to play. ` : "";
  $("next-label").textContent = `${turnInfo}What happens next at the table?`;
  if (SHEET[gameId] && handInPlay() && S.view && S.view.resultOnly === false && !closeRequested) {
    $("close-area").append(el("p", { class: "note" }, "The table played on faster than you could write? ",
      el("button", { type: "button", class: "button", "data-move-type": "hand_result", onclick: () => { closeRequested = true; renderEntry(); $("entry-title").focus(); } },
        "Close this hand from the sheet")));
  }
  for (const move of S.legal) {
    if (move.type === "hand_result") continue;  // the sheet form closes a hand
    if (move.type === "hand_started") {
      if (!DEAL[gameId]) continue;
      const label = move.data.dealer != null ? `Deal cards: ${seatName(move.data.dealer)} deals` : "Deal cards";
      legal.append(el("button", { type: "button", class: "button", ...moveAttrs(move), onclick: () => openDeal(move) }, label));
      continue;
    }
    if (move.type === "reveal") {
      legal.append(el("button", { type: "button", class: "button", ...moveAttrs(move), onclick: () => openReveal() }, "Reveal cards seen"));
      continue;
    }
    if (move.type === "rebuy") {
      legal.append(el("button", { type: "button", class: "button", ...moveAttrs(move), onclick: () => openRebuy(move) }, moveLabel(move, seatName)));
      continue;
    }
    legal.append(el("button", { type: "button", class: "button", ...moveAttrs(move), onclick: () => openMove(move) }, moveLabel(move, seatName)));
  }
}

/** What a move's button is for, to find it by (a test walks the legal moves and looks for each). */
function moveAttrs(move) {
  const seat = move.data && move.data.seat;
  return { "data-move-type": move.type, "data-seat": seat == null ? null : String(seat) };
}

/** El Roby: a re-buy says its price before it is recorded (the dry run's own line: with
 * ``includeRebuyers`` the price depends on who else re-buys). */
async function openRebuy(move) {
  const form = $("move-form");
  clearRefusal($("move-refusal"));
  const events = [{ type: "rebuy", data: { seat: move.data.seat } }];
  const result = await dryRun(id, events);
  if (!result.ok) { showRefusal($("move-refusal"), result); return; }
  const hand = result.body.hands[result.body.hands.length - 1] || {};
  const line = (hand.lines || []).find((l) => l.seat === move.data.seat && /re-buy/.test(l.reason));
  const save = el("button", { type: "button", class: "button primary", text: "Record the re-buy" });
  save.addEventListener("click", () => post(events, $("move-refusal"), moveLabel(move, seatName)));
  form.replaceChildren(el("h3", { text: moveLabel(move, seatName) }),
    el("p", { class: "rebuy-price", text: line ? line.reason : `${seatName(move.data.seat)} re-buys.` }),
    el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: "Cancel", onclick: () => { form.hidden = true; } })));
  form.hidden = false;
  save.focus();
}

function openDeal(move) {
  const spec = DEAL[gameId](ctx());
  const area = $("deal-area");
  const form = el("form", { class: "move-form", novalidate: true, "aria-label": "The deal" });
  const slots = [];   // {field, seat|null, node}
  let selected = null;
  const dealerPick = move.data.dealer == null
    ? segmented("Who dealt", seatOptions(), { initial: [Number(localStorage.getItem(`tanteo:firstDealer:${id}`) ?? 0)] }) : null;
  if (dealerPick) form.append(dealerPick.node);
  // La Cabra: who leads is derived from the last trick; after a deal from the sheet that did not say
  // who won it, the API needs it named (VOCABULARY §5.5); in the first deal it may differ (a series from paper)
  const leaderNeeded = gameId === "la-cabra" && move.data.leader == null && countHands() > 0;
  const leaderPick = gameId === "la-cabra" && move.data.leader == null
    ? segmented(leaderNeeded ? "Leads the first trick (the last deal's sheet did not say)" : "Leads the first trick (leave it: the player after the dealer)",
      seatOptions(), { clearable: true }) : null;
  if (leaderPick) leaderPick.node.dataset.field = "leader";
  const makeSlot = (field, seat, index, known) => {
    const slot = { field, seat, index, code: known ? null : "??" };
    const b = cardButton(slot.code ?? "??", "");
    const relabel = () => {
      const t = slot.code == null ? "not chosen" : cardName(slot.code);
      if (slot.code == null) { b.className = "card"; b.textContent = "…"; } else paintCard(b, slot.code);
      b.setAttribute("aria-label", spec.place(seat == null ? null : seatName(seat), field, index, t));
      b.setAttribute("aria-pressed", String(selected === slot));
    };
    slot.relabel = relabel;
    b.addEventListener("click", () => { selected = slot; slots.forEach((s) => s.relabel()); drawPicker(); });
    slot.node = b;
    slots.push(slot);
    relabel();
    return b;
  };
  for (let s = 0; s < players().length; s++) {
    const n = spec.perSeat.count;
    const row = el("div", { class: "seatrow" }, el("span", { class: "name", text: seatName(s) }));
    const cards = el("span", { class: "cards" });
    for (let i = 0; i < n; i++) cards.append(makeSlot(spec.perSeat.field, s, i, false));
    row.append(cards);
    form.append(row);
  }
  for (const extra of spec.extras) {
    const cards = el("span", { class: "cards" });
    for (let i = 0; i < extra.count; i++) cards.append(makeSlot(extra.field, null, i, true));
    form.append(el("div", { class: "seatrow" }, el("span", { class: "name", text: extra.label }), cards));
  }
  if (leaderPick) form.append(leaderPick.node);  // after the cards: the places come first to the keyboard
  const picker = el("div", { class: "picker", role: "group", "aria-label": "Pick the card for the selected place" });
  const drawPicker = () => keepingFocus(picker, redrawPicker);
  const redrawPicker = () => {
    picker.replaceChildren();
    if (!selected) { picker.append(el("p", { class: "note", text: "Press a place above, then its card here." })); return; }
    const counts = new Map();
    for (const s of slots) if (s.code && s.code !== "??") counts.set(s.code, (counts.get(s.code) || 0) + 1);
    for (const d of deck(gameId, matchOptions())) {
      const b = cardButton(d.code, `put ${cardName(d.code)} there`);
      if ((counts.get(d.code) || 0) >= d.copies) b.classList.add("placed");
      b.addEventListener("click", () => { selected.code = d.code; advance(); });
      picker.append(b);
    }
    if (selected.seat != null) {
      const b = cardButton("??", "put an unseen card there");
      b.addEventListener("click", () => { selected.code = "??"; advance(); });
      picker.append(b);
    }
  };
  const advance = () => {
    const filled = selected;
    const fromPicker = picker.contains(document.activeElement);
    const next = slots.indexOf(selected) + 1;
    selected = slots.find((s, i) => i >= next && s.code == null) || null;
    slots.forEach((s) => s.relabel());
    drawPicker();
    if (fromPicker && !selected) filled.node.focus();  // no place left to fill: back on the place just filled
  };
  selected = slots.find((s) => s.code == null) || null;
  slots.forEach((s) => s.relabel());
  drawPicker();
  form.append(picker);
  const refusal = el("div", { class: "refusal", role: "alert", hidden: true });
  const save = el("button", { type: "button", class: "button primary", text: "Record the deal" });
  save.addEventListener("click", async () => {
    const data = { ...move.data };
    if (dealerPick) data.dealer = dealerPick.value();
    const missing = slots.filter((s) => s.code == null);
    if (missing.length) { showRefusal(refusal, { body: { detail: spec.missing(missing.map((s) => s.field)) } }); return; }
    data[spec.perSeat.field] = players().map((_, seat) => slots.filter((s) => s.seat === seat).map((s) => s.code));
    for (const extra of spec.extras) {
      const codesOf = slots.filter((s) => s.field === extra.field && s.seat == null).map((s) => s.code);
      data[extra.field] = extra.single ? codesOf[0] : codesOf;
    }
    if (gameId === "la-cabra" && data.leader != null && countHands() > 0) delete data.leader;
    if (leaderPick && leaderPick.value() != null) data.leader = leaderPick.value();
    if (leaderNeeded && data.leader == null) { showRefusal(refusal, { body: { detail: "Pick who leads the first trick first." } }); return; }
    await post([{ type: "hand_started", data }], refusal, "the deal");
  });
  form.append(refusal, el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: "Cancel", onclick: () => area.replaceChildren() })));
  area.replaceChildren(form);
  form.querySelector("button").focus();
}

/** The fields the scorer fills in for a move of this type (none: the move is recorded in one tap). */
const moveFields = (type) => (FIELDS[gameId] || {})[type] || [];

function openMove(move) {
  const fields = moveFields(move.type);
  const hasUnknown = (v) => v === "??" || (Array.isArray(v) && v.some(hasUnknown));
  const missing = fields.filter((f) => move.data[f.name] === undefined || hasUnknown(move.data[f.name]));
  const form = $("move-form");
  clearRefusal($("move-refusal"));
  if (!missing.length) { form.hidden = true; hold(move); return; }
  form.replaceChildren(el("h3", { text: moveLabel(move, seatName) }));
  // a template's half-known value (cards with "??") is asked afresh; only known rows are filled in
  const controls = missing.map((f) => [f, control(f, move, f.kind === "rows" ? move.data[f.name] : undefined)]);
  for (const [, c] of controls) form.append(c.node);
  const save = el("button", { type: "button", class: "button primary", text: "Record" });
  save.addEventListener("click", () => {
    const data = moveData(move.data, controls);
    const short = controls.filter(([f]) => f.kind === "rows").map(([f]) => rowsProblem(data[f.name])).find(Boolean);
    if (short) { showRefusal($("move-refusal"), { body: { detail: short } }); return; }
    post([{ type: move.type, data }], $("move-refusal"), moveLabel(move, seatName));
  });
  form.append(el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: "Cancel", onclick: () => { form.hidden = true; } })));
  form.hidden = false;
  form.querySelector("button").focus();
}

// A move with nothing to ask (stand, take, call CABO, a discard the record already knows, re-buy) is
// held for a few seconds with Undo beside it, then saved; it is not previewed first. At a table the
// next move comes within seconds: a preview would double the taps of every such move to catch the
// rare slip, which the scorer sees at once (the wrong name on the button just pressed). Saving at once
// and voiding the slip would leave "entered by mistake" in the log and the audit for something never
// played. So the tap shows what will be saved, Undo takes it back before anything is written, and
// "Save now" (or the time running out, or the page being left) writes it.
const HOLD_SECONDS = 5;
let held = null;  // {events, label, timer, tick, button}: the one-tap move waiting to be saved

function hold(move) {
  const label = moveLabel(move, seatName);
  const box = $("held");
  let left = HOLD_SECONDS;
  const count = el("span", { class: "note", "aria-hidden": "true", text: `saving in ${left} s` });
  const undo = el("button", { type: "button", class: "button primary", text: "Undo", onclick: () => takeBack() });
  box.replaceChildren(el("p", {}, el("strong", { text: label }), " ", count),
    el("p", { class: "actions" }, undo, el("button", { type: "button", class: "button", text: "Save now", onclick: () => saveHeld() })));
  box.hidden = false;
  $("next-label").textContent = $("next-label").textContent.replace(/^Not saved: .*?\. /, "");
  $("legal").hidden = true;  // the next moves follow from this one: they are drawn again once it is saved
  held = { events: [{ type: move.type, data: { ...move.data } }], label,
    timer: setTimeout(saveHeld, HOLD_SECONDS * 1000),
    tick: setInterval(() => { left -= 1; count.textContent = `saving in ${Math.max(left, 0)} s`; }, 1000) };
  undo.focus();
}

function stopHold() {
  if (!held) return null;
  const was = held;
  clearTimeout(was.timer); clearInterval(was.tick);
  held = null;
  $("held").hidden = true; $("held").replaceChildren();
  $("legal").hidden = false;
  return was;
}

/** Undo: nothing was written; the keyboard goes back to the move's button. */
function takeBack() {
  const was = stopHold();
  if (!was) return;
  $("next-label").textContent = `Not saved: ${was.label}. What happens next at the table?`;
  const again = [...$("legal").querySelectorAll("button")].find((b) => b.textContent === was.label);
  (again || $("legal").querySelector("button") || $("moves-title")).focus();
}

async function saveHeld() {
  const was = stopHold();
  if (was) await post(was.events, $("move-refusal"), was.label);
}
$("held").addEventListener("keydown", (event) => { if (event.key === "Escape") { event.preventDefault(); takeBack(); } });
// a phone put away (or the page left) while a move waits: it is saved, not lost
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") saveHeld(); });

/** One field's control on this page: the shared per-game forms (forms.js), over the table as it stands. */
function control(f, move, known) {
  return kit({ players: players(), game: gameId, options: matchOptions(), view: S.view }).control(f, move, known);
}

/** How many cards a seat holds, as the table shows it (null when the view does not say). */
function heldCount(seat) {
  for (const key of ["seats", "rows", "hands"]) {
    const entry = ((S.view || {})[key] || []).find((e) => e && e.seat === seat);
    if (!entry || entry.inHand === false || entry.in === false) continue;
    if (typeof entry.cards === "number") return entry.cards;
    if (Array.isArray(entry.cards)) return entry.cards.length;
    if (Array.isArray(entry.hand)) return entry.hand.length;
    if (typeof entry.size === "number") return entry.size;
  }
  return null;
}

/** A showdown row with more or fewer cards than the seat holds, said with the player's name ("P4 holds
 * 2 cards; 1 picked.") — the API would say "the 4th entry of hands must hold 2 to 4 entries". */
function rowsProblem(rows) {
  for (const [seat, row] of (rows || []).entries()) {
    const held = heldCount(seat);
    if (held == null || !Array.isArray(row) || row.length === held) continue;
    return `${seatName(seat)} holds ${held} card${held === 1 ? "" : "s"}; ${row.length} picked.`;
  }
  return null;
}

/** A move's data from its form: the fields the form asked, over what the template (or the entry) holds;
 * an optional field left empty is left out. */
function moveData(base, controls) {
  const data = { ...base };
  for (const [f, c] of controls) {
    const value = c.value();
    const empty = value == null || (Array.isArray(value) && value.length === 0) || (f.kind === "pos" && value.slot == null);
    if (empty && f.optional) { delete data[f.name]; continue; }
    data[f.name] = value;
  }
  return data;
}

/** The cards the record still lacks (reveal references), from the state and the audit. */
function missingRefs() {
  const seen = new Map();
  const walk = (value) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if (k === "missing" && Array.isArray(v)) for (const ref of v) seen.set(JSON.stringify(ref), ref);
        else walk(v);
      }
    }
  };
  walk(S.view);
  for (const h of S.audit.hands) if (h.missing) for (const ref of h.missing) seen.set(JSON.stringify(ref), ref);
  return [...seen.values()];
}

function refLabel(ref) {
  if (ref.slot != null) return `${seatName(ref.seat)}, slot ${ref.slot}`;
  if (ref.seq != null) {
    const e = S.events.find((x) => x.seq === ref.seq);
    const who = e && e.data.seat != null ? `${seatName(e.data.seat)}'s ` : "";
    return `${who}${e ? e.type.replaceAll("_", " ") : "entry"} ${ref.seq}, card ${(ref.index ?? 0) + 1}`;
  }
  return `a card of ${seatName(ref.seat)}`;
}

function openReveal() {
  const form = $("move-form");
  clearRefusal($("move-refusal"));
  const refs = missingRefs();
  form.replaceChildren(el("h3", { text: "Reveal cards seen" }),
    el("p", { class: "note", text: refs.length ? "Pick the cards you now know; leave the others." : "Name a card one player holds." }));
  const pickers = refs.map((ref) => [ref, cardList(refLabel(ref), { single: true, allowUnknown: false })]);
  let free = null;
  if (!refs.length) {
    free = [segmented("Player", seatOptions()), cardList("Card held", { single: true, allowUnknown: false })];
    form.append(...free.map((f) => f.node));
  }
  for (const [, p] of pickers) form.append(p.node);
  const save = el("button", { type: "button", class: "button primary", text: "Record" });
  save.addEventListener("click", () => {
    const cards = free ? [{ seat: free[0].value(), card: free[1].value() }]
      : pickers.filter(([, p]) => p.value()).map(([ref, p]) => ({ ...ref, card: p.value() }));
    post([{ type: "reveal", data: { cards } }], $("move-refusal"), "reveal");
  });
  form.append(el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: "Cancel", onclick: () => { form.hidden = true; } })));
  form.hidden = false;
  form.querySelector("button").focus();
}

// One entry on its way at a time: a double tap on Record would send the move twice, and the
// second, stale, would be refused as if another phone had written meanwhile.
let posting = false;

async function post(events, refusalBox, label) {
  if (posting) return;
  posting = true;
  try { await postOnce(events, refusalBox, label); } finally { posting = false; }
}

async function postOnce(events, refusalBox, label) {
  clearRefusal(refusalBox);
  const result = await append(id, events, label, { ifMatch: S.version });
  if (!result.ok && !result.queued) { await refused(refusalBox, result); return; }
  $("move-form").hidden = true;
  $("deal-area").replaceChildren();
  // queued: the entry waits for the connection; the form it came from is closed so it is not sent twice
  if (result.queued) { showQueue(); $("queue").focus(); return; }
  await refresh();
  // keep the scorer's place: the next moves, or the sheet once the hand is over
  const next = $("legal").querySelector("button");
  if (next && !$("moves").hidden) next.focus(); else $("sheet-title").focus();
}

// ------------------------------------------------------------------ history, undo, corrections

const REASONS = ["entered by mistake", "wrong player", "wrong cards or numbers", "belongs to another hand"];

function voidedSeqs() {
  return new Set(S.audit.corrections.filter((c) => c.type === "void" && c.inForce).map((c) => c.target));
}

/** The words of a field of an entry, as a sheet would print it ("card points", not "cardPoints"). */
const FIELD_NAMES = { cardPoints: "card points", lossPoints: "loss points" };

/** A value as a sheet prints it: two numbers as "72–48", a list of cards "9H KH", a hand per seat "9H KH / ?? ??". */
function spell(value) {
  if (typeof value === "string" && knownCodes().has(value)) return cardFace(value);  // A♦ as the pickers show it, not AD
  if (!Array.isArray(value)) return value === null ? "unseen" : String(value);
  if (value.some(Array.isArray)) return value.map((part) => (Array.isArray(part) ? part.map(spell).join(" ") || "none" : spell(part))).join(" / ");
  if (value.length === 2 && value.every((x) => typeof x === "number")) return value.join("–");
  return value.map(spell).join(value.every((x) => typeof x === "number") ? ", " : " ");
}

function describeEvent(e) {
  const d = e.data || {};
  const who = d.seat != null ? `${seatName(d.seat)}: ` : "";
  const bits = [];
  if (e.type === "match_started") return `match started: ${(d.players || []).join(", ")}`;
  if (e.type === "score_claimed") return `the table wrote${d.hand != null ? ` for hand ${d.hand}` : ""}: ${claimWords(d)}`;
  if (e.type === "void") return `void of entry ${d.target} (${d.reason})`;
  if (e.type === "amend") {
    // what the entry now says, so the history shows the correction and not only that there was one
    const was = S.events.find((x) => x.seq === d.target);
    return `correction of entry ${d.target} (${d.reason}): ${was ? describeEvent({ type: was.type, data: d.data }) : ""}`;
  }
  for (const k of ["dealer", "leader", "trump", "from", "chips", "card", "slots", "cards", "cardPoints", "tricks", "lossPoints", "piles", "table", "values", "out", "hands", "layouts", "sums", "caller", "target", "reason", "text", "points", "totals"]) {
    // a Cabo replace names the cards shown from the slots (thrown away when they match), not the card drawn
    const name = k === "cards" && ["replace", "take_discard"].includes(e.type) ? "cards shown" : FIELD_NAMES[k] || k;
    if (k === "slots" && Array.isArray(d.slots)) { bits.push(`slot${d.slots.length > 1 ? "s" : ""} ${d.slots.join(" + ")}`); continue; }
    if (Array.isArray(d[k]) && d[k].flat(2).length && d[k].flat(2).every((c) => c === "??" || c === null)) { bits.push(`${name} unseen`); continue; }
    if (d[k] && typeof d[k] === "object" && !Array.isArray(d[k])) { bits.push(`${name} ${d[k].private ? "hidden" : JSON.stringify(d[k]).replaceAll('"', "")}`); continue; }
    if (d[k] !== undefined && d[k] !== null) bits.push(`${name} ${["dealer", "leader", "caller", "out"].includes(k) || (k === "from" && e.type === "buy_chips") ? seatName(d[k]) : spell(d[k])}`);
  }
  return `${who}${({ rebuy: "re-buy", time_up: "time is up" })[e.type] || e.type.replaceAll("_", " ")}${bits.length ? " — " + bits.join(", ") : ""}`;
}

/** A sheet's row in words: "Anna 15 (total 15), Ben total 5" — blank cells left out. */
function claimWords(d) {
  const labels = columnLabels();
  const cells = labels.map((l, i) => {
    const p = (d.points || [])[i], t = (d.totals || [])[i];
    if (p == null && t == null) return null;
    return `${l} ${p != null ? p : ""}${p != null && t != null ? ` (total ${t})` : t != null ? `total ${t}` : ""}`;
  }).filter(Boolean);
  return cells.join(", ") || "no number";
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren();
  const voided = voidedSeqs();
  const writable = !!tokenFor(id);
  for (const e of [...S.events].reverse()) {
    const item = el("li", { value: e.seq, "data-seq": e.seq }, el("span", { class: voided.has(e.seq) ? "void" : "", text: describeEvent(e) }));
    if (writable && e.seq > 1 && !voided.has(e.seq)) {
      item.append(el("button", { type: "button", class: "button", "aria-label": `Void entry ${e.seq}`, text: "Void…", onclick: () => openCorrection(e, "void") }));
      if ((e.type === "hand_result" && SHEET[gameId]) || moveFields(e.type).length) item.append(el("button", { type: "button", class: "button", "aria-label": `Correct entry ${e.seq}`, text: "Correct…", onclick: () => openCorrection(e, "amend") }));
    }
    list.append(item);
  }
  $("undo").disabled = !writable || !lastUndoable();
}

function lastUndoable() {
  const voided = voidedSeqs();
  return [...S.events].reverse().find((e) => e.seq > 1 && !voided.has(e.seq));
}

function openCorrection(target, kind) {
  const box = $("correction");
  box.hidden = false;
  const reason = el("select", { id: "correction-reason" }, ...REASONS.map((r) => el("option", { value: r, text: r })));
  const consequences = el("div", { class: "preview", role: "status", "aria-live": "polite" });
  const refusal = el("div", { class: "refusal", role: "alert", hidden: true });
  const confirm = el("button", { type: "button", class: "button primary", text: kind === "void" ? "Void it" : "Save the correction", disabled: true });
  let fields = null;
  const header = el("h3", { text: `${kind === "void" ? "Void" : "Correct"} entry ${target.seq}: ${describeEvent(target)}` });
  const extra = el("div");
  const onchange = () => { confirm.disabled = true; consequences.replaceChildren(); };
  // a hand from the sheet is corrected with the sheet's form, a move with the fields of its own form
  const asMove = kind === "amend" && target.type !== "hand_result";
  if (asMove) {
    fields = moveFields(target.type).map((f) => [f, control(f, target, target.data[f.name])]);
    extra.append(...fields.map(([, c]) => c.node));
    extra.addEventListener("click", onchange);
    extra.addEventListener("input", onchange);
  } else if (kind === "amend") {
    fields = SHEET[gameId].fields(ctx("fix-"), onchange, target.data);
    extra.append(...fields.map((f) => f.node));
  }
  const amended = () => asMove ? moveData(target.data, fields) : SHEET[gameId].build(fields.map((f) => f.value()), ctx());
  const events = () => [kind === "void"
    ? { type: "void", data: { target: target.seq, reason: reason.value } }
    : { type: "amend", data: { target: target.seq, reason: reason.value, data: amended() } }];
  const check = async () => {
    clearRefusal(refusal);
    const problem = fieldProblem(extra);
    if (problem) { showRefusal(refusal, { body: { detail: problem } }); return; }
    const result = await dryRun(id, events());
    if (!result.ok) { showRefusal(refusal, result); return; }
    consequences.replaceChildren(el("p", { text: "If you save this:" }), describePreview(result.body));
    confirm.disabled = false;
  };
  confirm.addEventListener("click", async () => {
    confirm.disabled = true;  // sent once: "Show what changes" enables it again
    const result = await append(id, events(), `${kind} of entry ${target.seq}`, { ifMatch: S.version });
    if (result.queued) { showQueue(); box.hidden = true; return; }
    if (!result.ok) { await refused(refusal, result); return; }
    box.hidden = true;
    await refresh();
  });
  box.replaceChildren(header, extra, el("label", { for: "correction-reason" }, "Why", reason),
    el("p", { class: "actions" }, el("button", { type: "button", class: "button", text: "Show what changes", onclick: check }), confirm,
      el("button", { type: "button", class: "button", text: "Cancel", onclick: () => { box.hidden = true; } })),
    consequences, refusal);
  reason.addEventListener("change", onchange);
  header.setAttribute("tabindex", "-1");
  header.focus();
  check();
}

// ------------------------------------------------------------------ offline queue

function showQueue() {
  const items = queued(id);
  const box = $("queue");
  box.hidden = !items.length;
  box.replaceChildren();
  if (!items.length) return;
  box.append(el("p", { text: `${items.length} ${items.length === 1 ? "entry is" : "entries are"} waiting for the connection and will be sent once it is back:` }),
    el("ul", {}, ...items.map((q) => el("li", { text: q.label || q.events.map((e) => e.type).join(", ") }))));
}

let flushing = false;
async function sendQueued() {
  if (flushing || !queued(id).length) return;
  flushing = true;
  try {
    const { sent, refused } = await flush(id);
    showQueue();  // the sent entries leave the banner at once, before the sheet is read again
    if (refused.length) {
      const box = $("sheet-refusal");
      showRefusal(box, { body: { ...refused[0].problem, detail: `A queued entry (${refused[0].item.label}) was refused: ${problemText(refused[0].problem).message}` } });
    }
    if (sent || refused.length) await refresh(); else showQueue();
  } finally { flushing = false; }
}

// ------------------------------------------------------------------ export

/** With the write key, download through fetch so the key goes in a header, never in a URL;
 * without it the plain link downloads the public export. */
async function exportMatch(event, format) {
  const token = tokenFor(id);
  if (!token) return;
  event.preventDefault();
  const box = $("export-refusal");
  box.hidden = true;
  const result = await download(`/matches/${id}/export?format=${format}`, token, `${id}.${format === "text" ? "tnt" : "jsonl"}`);
  if (!result.ok) {
    const why = result.offline ? { message: "The server cannot be reached, so nothing was exported.", code: "" } : problemText(result.body);
    box.replaceChildren(why.message, why.code ? el("span", { class: "code", text: why.code }) : "");
    box.hidden = false;
  }
}
$("export-text").addEventListener("click", (e) => exportMatch(e, "text"));
$("export-archive").addEventListener("click", (e) => exportMatch(e, "jsonl"));

window.addEventListener("online", sendQueued);
setInterval(sendQueued, 3000);

$("check-hand").addEventListener("click", checkHand);
$("save-hand").addEventListener("click", saveHand);
$("undo").addEventListener("click", () => { const last = lastUndoable(); if (last) openCorrection(last, "void"); });

(async () => {
  S.info = knowGame((await get(`/games/${gameId}`)).body);
  await refresh();
  sendQueued();
})();
