// The scorer's page: move by move, the legal moves as buttons, card pickers, one-tap moves held a few seconds with Undo, reveals.
import { append, call, dryRun, queued, tokenFor } from "../api.js";
import { cardButton, cardName, paintCard } from "../cards.js";
import { FIELDS, SHEET, DEAL, deck, eventWords, moveLabel } from "../games.js";
import { drawTable } from "../table.js";
import { $, el, keepingFocus } from "../dom.js";
import { t, tn } from "../say.js";
import { fieldProblem, moveData } from "../forms.js";
import { closeRequested, countHands, ctx, handInPlay, previewed, renderEntry, requestClose } from "./entry.js";
import { S, clearRefusal, forms, gameId, id, knownCodes, matchOptions, players, seatName, seatOptions, showRefusal } from "./match.js";
import { showQueue } from "./queue.js";
import { refresh, refused } from "./load.js";
import { offerIrregular } from "./irregular.js"; // a refused move recorded as played (issue 31)

// ------------------------------------------------------------------ move by move

export function renderTable() {
  $("table").replaceChildren(...drawTable(gameId, S.view, seatName, (c) => knownCodes().has(c) || c === "??"));
}

export function renderMoves() {
  const section = $("moves");
  section.hidden = !tokenFor(id) || (S.summary.end && S.summary.end.over) || !S.legal.length;
  if (section.hidden) return;
  renderTable();
  const legal = $("legal");
  legal.replaceChildren();
  $("deal-area").replaceChildren();
  $("close-area").replaceChildren();
  $("next-label").textContent = S.view && S.view.turn != null ? t("%(player)s to play. What happens next at the table?", { player: seatName(S.view.turn) }) : t("What happens next at the table?");
  if (SHEET[gameId] && handInPlay() && S.view && S.view.resultOnly === false && !closeRequested) {
    $("close-area").append(el("p", { class: "note" }, t("The table played on faster than you could write?"), " ",
      el("button", { type: "button", class: "button", "data-move-type": "hand_result", onclick: () => { requestClose(); renderEntry(); $("entry-title").focus(); } },
        t("Close this hand from the sheet"))));
  }
  for (const move of S.legal) {
    if (move.type === "hand_result") {
      // in play, the sheet form closes a hand ("Close this hand from the sheet" above); between hands,
      // the table's own result of the hand just played is written here, checked against the moves
      if (SHEET[gameId] && !handInPlay() && S.legal.some((m) => m.type === "hand_started")) {
        legal.append(el("button", { type: "button", class: "button", ...moveAttrs(move), onclick: () => openResult(move) },
          t("What the table wrote for hand %(hand)s", { hand: countHands() })));
      }
      continue;
    }
    if (move.type === "hand_started") {
      if (!DEAL[gameId]) continue;
      const label = move.data.dealer != null ? t("Deal cards: %(player)s deals", { player: seatName(move.data.dealer) }) : t("Deal cards");
      legal.append(el("button", { type: "button", class: "button", ...moveAttrs(move), onclick: () => openDeal(move) }, label));
      continue;
    }
    if (move.type === "reveal") {
      legal.append(el("button", { type: "button", class: "button", ...moveAttrs(move), onclick: () => openReveal() }, t("Reveal cards seen")));
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
export function moveAttrs(move) {
  const seat = move.data && move.data.seat;
  return { "data-move-type": move.type, "data-seat": seat == null ? null : String(seat) };
}

/** El Roby: a re-buy says its price before it is recorded (the dry run's own line: with
 * ``includeRebuyers`` the price depends on who else re-buys). */
export async function openRebuy(move) {
  const form = $("move-form");
  clearRefusal($("move-refusal"));
  const events = [{ type: "rebuy", data: { seat: move.data.seat } }];
  const result = await dryRun(id, events);
  if (!result.ok) { showRefusal($("move-refusal"), result); return; }
  const hand = result.body.hands[result.body.hands.length - 1] || {};
  const lines = (hand.lines || []).filter((l) => l.seat === move.data.seat);  // the re-buy's: the seat's line that pays money
  const line = lines.find((l) => /re-buy/.test(l.reason)) || lines.find((l) => l.money < 0);
  const save = el("button", { type: "button", class: "button primary", text: t("Record the re-buy") });
  save.addEventListener("click", () => post(events, $("move-refusal"), moveLabel(move, seatName)));
  form.replaceChildren(el("h3", { text: moveLabel(move, seatName) }),
    el("p", { class: "rebuy-price", text: line ? line.reason : t("%(player)s re-buys.", { player: seatName(move.data.seat) }) }),
    el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: t("Cancel"), onclick: () => { form.hidden = true; } })));
  form.hidden = false;
  save.focus();
}

export function openDeal(move) {
  const spec = DEAL[gameId](ctx());
  const area = $("deal-area");
  const form = el("form", { class: "move-form", novalidate: true, "aria-label": t("The deal") });
  const slots = [];   // {field, seat|null, node}
  let selected = null;
  const dealerPick = move.data.dealer == null
    ? forms().segmented(t("Who dealt"), seatOptions(), { initial: [Number(localStorage.getItem(`tanteo:firstDealer:${id}`) ?? 0)] }) : null;
  if (dealerPick) form.append(dealerPick.node);
  // La Cabra: who leads is derived from the last trick; after a deal from the sheet that did not say
  // who won it, the API needs it named (VOCABULARY §5.5); in the first deal it may differ (a series from paper)
  const leaderNeeded = gameId === "la-cabra" && move.data.leader == null && countHands() > 0;
  const leaderPick = gameId === "la-cabra" && move.data.leader == null
    ? forms().segmented(leaderNeeded ? t("Leads the first trick (the last deal's sheet did not say)") : t("Leads the first trick (leave it: the player after the dealer)"),
      seatOptions(), { clearable: true }) : null;
  if (leaderPick) leaderPick.node.dataset.field = "leader";
  const makeSlot = (field, seat, index, known) => {
    const slot = { field, seat, index, code: known ? null : "??" };
    const b = cardButton(slot.code ?? "??", "");
    const relabel = () => {
      const card = slot.code == null ? t("not chosen") : cardName(slot.code);
      if (slot.code == null) { b.className = "card"; b.textContent = "…"; } else paintCard(b, slot.code);
      b.setAttribute("aria-label", spec.place(seat == null ? null : seatName(seat), field, index, card));
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
  const picker = el("div", { class: "picker", role: "group", "aria-label": t("Pick the card for the selected place") });
  const drawPicker = () => keepingFocus(picker, redrawPicker);
  const redrawPicker = () => {
    picker.replaceChildren();
    if (!selected) { picker.append(el("p", { class: "note", text: t("Press a place above, then its card here.") })); return; }
    const counts = new Map();
    for (const s of slots) if (s.code && s.code !== "??") counts.set(s.code, (counts.get(s.code) || 0) + 1);
    for (const d of deck(gameId, matchOptions())) {
      const b = cardButton(d.code, t("put %(card)s there", { card: cardName(d.code) }));
      if ((counts.get(d.code) || 0) >= d.copies) b.classList.add("placed");
      b.addEventListener("click", () => { selected.code = d.code; advance(); });
      picker.append(b);
    }
    if (selected.seat != null) {
      const b = cardButton("??", t("put an unseen card there"));
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
  const save = el("button", { type: "button", class: "button primary", text: t("Record the deal") });
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
    if (leaderNeeded && data.leader == null) { showRefusal(refusal, { body: { detail: t("Pick who leads the first trick first.") } }); return; }
    await post([{ type: "hand_started", data }], refusal, t("the deal"));
  });
  form.append(refusal, el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: t("Cancel"), onclick: () => area.replaceChildren() })));
  area.replaceChildren(form);
  form.querySelector("button").focus();
}

/** The fields the scorer fills in for a move of this type (none: the move is recorded in one tap). */
export const moveFields = (type) => (FIELDS[gameId] || {})[type] || [];

export function openMove(move) {
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
  const save = el("button", { type: "button", class: "button primary", text: t("Record") });
  save.addEventListener("click", () => {
    const data = moveData(move.data, controls);
    const short = controls.filter(([f]) => f.kind === "rows").map(([f]) => rowsProblem(data[f.name])).find(Boolean);
    if (short) { showRefusal($("move-refusal"), { body: { detail: short } }); return; }
    post([{ type: move.type, data }], $("move-refusal"), moveLabel(move, seatName));
  });
  form.append(el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: t("Cancel"), onclick: () => { form.hidden = true; } })));
  form.hidden = false;
  form.querySelector("button").focus();
}

/** The table's result of the hand just played (a ``hand_result`` between hands): the sheet's form for
 * the hand, filled in with what the moves give, checked by the API against them before it is kept. */
export function openResult(move) {
  const form = $("move-form");
  clearRefusal($("move-refusal"));
  const hand = countHands();
  const c = ctx("result-");
  const fields = SHEET[gameId].fields(c, () => {}, move.data);
  const save = el("button", { type: "button", class: "button primary", text: t("Record") });
  save.addEventListener("click", () => {
    const problem = fieldProblem(form);
    if (problem) { showRefusal($("move-refusal"), { body: { detail: problem } }); return; }
    let data;
    try { data = SHEET[gameId].build(fields.map((f) => f.value()), c); } catch (error) { showRefusal($("move-refusal"), { body: { detail: error.message } }); return; }
    post([{ type: "hand_result", data }], $("move-refusal"), t("the table's result of hand %(hand)s", { hand }));
  });
  form.replaceChildren(el("h3", { text: t("What the table wrote for hand %(hand)s", { hand }) }),
    el("p", { class: "note", text: t("Filled in from the moves recorded; change what the table's sheet says differently. It is checked against the moves before it is kept.") }),
    ...fields.map((f) => f.node),
    el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: t("Cancel"), onclick: () => { form.hidden = true; } })));
  form.hidden = false;
  form.querySelector("h3").setAttribute("tabindex", "-1");
  form.querySelector("h3").focus();
}

// A move with nothing to ask (stand, take, call CABO, a discard the record already knows, re-buy) is held for a
// few seconds with Undo beside it, then saved; it is not previewed first. At a table the next move comes within
// seconds: a preview would double the taps of every such move to catch the rare slip, which the scorer sees at
// once (the wrong name on the button just pressed). Saving at once and voiding the slip would leave "entered by
// mistake" in the log and the audit for something never played. So the tap shows what will be saved, Undo takes
// it back before anything is written, and "Save now" (or the time running out, or the page being left) writes it.
export const HOLD_SECONDS = 5;
export let held = null;  // {events, label, timer, tick, button}: the one-tap move waiting to be saved
let notSaved = null;     // the line above the moves as a move taken back left it ("Not saved: …")

export function hold(move) {
  const label = moveLabel(move, seatName);
  const box = $("held");
  let left = HOLD_SECONDS;
  const count = el("span", { class: "note", "aria-hidden": "true", text: t("saving in %(seconds)s s", { seconds: left }) });
  const undo = el("button", { type: "button", class: "button primary", text: t("Undo"), onclick: () => takeBack() });
  box.replaceChildren(el("p", {}, el("strong", { text: label }), " ", count),
    el("p", { class: "actions" }, undo, el("button", { type: "button", class: "button", text: t("Save now"), onclick: () => saveHeld() })));
  box.hidden = false;
  if ($("next-label").textContent === notSaved) $("next-label").textContent = t("What happens next at the table?");
  $("legal").hidden = true;  // the next moves follow from this one: they are drawn again once it is saved
  held = { events: [{ type: move.type, data: { ...move.data } }], label,
    timer: setTimeout(saveHeld, HOLD_SECONDS * 1000),
    tick: setInterval(() => { left -= 1; count.textContent = t("saving in %(seconds)s s", { seconds: Math.max(left, 0) }); }, 1000) };
  undo.focus();
}

export function stopHold() {
  if (!held) return null;
  const was = held;
  clearTimeout(was.timer); clearInterval(was.tick);
  held = null;
  $("held").hidden = true; $("held").replaceChildren();
  $("legal").hidden = false;
  return was;
}

/** Undo: nothing was written; the keyboard goes back to the move's button. */
export function takeBack() {
  const was = stopHold();
  if (!was) return;
  $("next-label").textContent = notSaved = t("Not saved: %(move)s. What happens next at the table?", { move: was.label });
  const again = [...$("legal").querySelectorAll("button")].find((b) => b.textContent === was.label);
  (again || $("legal").querySelector("button") || $("moves-title")).focus();
}

export async function saveHeld() {
  const was = stopHold();
  if (was) await post(was.events, $("move-refusal"), was.label);
}
$("held").addEventListener("keydown", (event) => { if (event.key === "Escape") { event.preventDefault(); takeBack(); } });
// a phone put away (or the page left) while a move waits: it is saved, not lost
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") saveHeld(); });

/** One field's control on this page: the shared per-game forms (forms.js), over the table as it stands. */
export function control(f, move, known) {
  return forms().control(f, move, known);
}

/** How many cards a seat holds, as the table shows it (null when the view does not say). */
export function heldCount(seat) {
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
export function rowsProblem(rows) {
  for (const [seat, row] of (rows || []).entries()) {
    const held = heldCount(seat);
    if (held == null || !Array.isArray(row) || row.length === held) continue;
    return tn("%(player)s holds %(n)s card; %(picked)s picked.", "%(player)s holds %(n)s cards; %(picked)s picked.", held, { player: seatName(seat), picked: row.length });
  }
  return null;
}

/** The cards the record still lacks (reveal references), from the state and the audit. */
export function missingRefs() {
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

export function refLabel(ref) {
  if (ref.slot != null) return t("%(player)s, slot %(slot)s", { player: seatName(ref.seat), slot: ref.slot });
  if (ref.seq != null) {
    const e = S.events.find((x) => x.seq === ref.seq);
    const parts = { entry: ref.seq, index: (ref.index ?? 0) + 1, move: e && eventWords(e.type), player: e && e.data.seat != null ? seatName(e.data.seat) : null };
    if (!e) return t("entry %(entry)s, card %(index)s", parts);
    return parts.player != null ? t("%(player)s's %(move)s %(entry)s, card %(index)s", parts) : t("%(move)s %(entry)s, card %(index)s", parts);
  }
  return t("a card of %(player)s", { player: seatName(ref.seat) });
}

export function openReveal() {
  const form = $("move-form");
  clearRefusal($("move-refusal"));
  const refs = missingRefs();
  form.replaceChildren(el("h3", { text: t("Reveal cards seen") }),
    el("p", { class: "note", text: refs.length ? t("Pick the cards you now know; leave the others.") : t("Name a card one player holds.") }));
  const controls = forms();
  const pickers = refs.map((ref) => [ref, controls.cardList(refLabel(ref), { single: true, allowUnknown: false })]);
  let free = null;
  if (!refs.length) {
    free = [controls.segmented(t("Player"), seatOptions()), controls.cardList(t("Card held"), { single: true, allowUnknown: false })];
    form.append(...free.map((f) => f.node));
  }
  for (const [, p] of pickers) form.append(p.node);
  const save = el("button", { type: "button", class: "button primary", text: t("Record") });
  save.addEventListener("click", () => {
    const cards = free ? [{ seat: free[0].value(), card: free[1].value() }]
      : pickers.filter(([, p]) => p.value()).map(([ref, p]) => ({ ...ref, card: p.value() }));
    post([{ type: "reveal", data: { cards } }], $("move-refusal"), t("reveal"));
  });
  form.append(el("p", { class: "actions" }, save, el("button", { type: "button", class: "button", text: t("Cancel"), onclick: () => { form.hidden = true; } })));
  form.hidden = false;
  form.querySelector("button").focus();
}

// One entry on its way at a time: a double tap on Record would send the move twice, and the
// second, stale, would be refused as if another phone had written meanwhile.
export let posting = false;

export async function post(events, refusalBox, label) {
  if (posting) return;
  posting = true;
  try { await postOnce(events, refusalBox, label); } finally { posting = false; }
}

export async function postOnce(events, refusalBox, label) {
  clearRefusal(refusalBox);
  const result = await append(id, events, label, { ifMatch: S.version });
  if (!result.ok && !result.queued) { await refused(refusalBox, result); offerIrregular(events, refusalBox, label); return; }
  $("move-form").hidden = true;
  $("deal-area").replaceChildren();
  // queued: the entry waits for the connection; the form it came from is closed so it is not sent twice
  if (result.queued) { showQueue(); $("queue").focus(); return; }
  await refresh();
  // keep the scorer's place: the next moves, or the sheet once the hand is over
  const next = $("legal").querySelector("button");
  if (next && !$("moves").hidden) next.focus(); else $("sheet-title").focus();
}
