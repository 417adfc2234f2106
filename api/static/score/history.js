// The scorer's page: the history of entries, undo and corrections.
import { append, dryRun, tokenFor } from "../api.js";
import { cardFace } from "../cards.js";
import { SHEET } from "../games.js";
import { $, el } from "../dom.js";
import { fieldProblem, moveData } from "../forms.js";
import { ctx, describePreview } from "./entry.js";
import { S, clearRefusal, columnLabels, gameId, id, knownCodes, seatName, showRefusal } from "./match.js";
import { control, moveFields } from "./moves.js";
import { showQueue } from "./queue.js";
import { refresh, refused } from "./load.js";

// ------------------------------------------------------------------ history, undo, corrections

export const REASONS = ["entered by mistake", "wrong player", "wrong cards or numbers", "belongs to another hand"];

export function voidedSeqs() {
  return new Set(S.audit.corrections.filter((c) => c.type === "void" && c.inForce).map((c) => c.target));
}

/** The words of a field of an entry, as a sheet would print it ("card points", not "cardPoints"). */
export const FIELD_NAMES = { cardPoints: "card points", lossPoints: "loss points" };

/** A value as a sheet prints it: two numbers as "72–48", a list of cards "9H KH", a hand per seat "9H KH / ?? ??". */
export function spell(value) {
  if (typeof value === "string" && knownCodes().has(value)) return cardFace(value);  // A♦ as the pickers show it, not AD
  if (!Array.isArray(value)) return value === null ? "unseen" : String(value);
  if (value.some(Array.isArray)) return value.map((part) => (Array.isArray(part) ? part.map(spell).join(" ") || "none" : spell(part))).join(" / ");
  if (value.length === 2 && value.every((x) => typeof x === "number")) return value.join("–");
  const words = value.map(spell);
  // "as de oros, 3 de copas": a Spanish card takes several words, so a list of them takes commas
  return words.join(value.every((x) => typeof x === "number") || words.some((w) => w.includes(" de ")) ? ", " : " ");
}

export function describeEvent(e) {
  const d = e.data || {};
  const who = d.seat != null ? `${seatName(d.seat)}: ` : "";
  const bits = [];
  if (e.type === "match_started") return `match started: ${(d.players || []).join(", ")}`;
  if (e.type === "score_claimed") return `the table wrote${d.hand != null ? ` for hand ${d.hand}` : ""}: ${claimWords(d)}`;
  if (e.type === "void") return `entry ${d.target} struck out (${d.reason})`;
  if (e.type === "amend") {
    // what the entry now says, so the history shows the correction and not only that there was one
    const was = S.events.find((x) => x.seq === d.target);
    return `entry ${d.target} corrected (${d.reason}): ${was ? describeEvent({ type: was.type, data: d.data }) : ""}`;
  }
  if (e.type === "note") return `note${d.target != null ? ` on entry ${d.target}` : ""}: ${d.text}`;
  if (e.type === "dispute") return `dispute about hand ${d.hand}${d.seat != null ? ` (${seatName(d.seat)})` : ""}: ${d.reason}`;
  if (e.type === "ruling") return `ruling on the dispute of entry ${d.dispute}: ${d.decision}, ${d.reason}`;
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
export function claimWords(d) {
  const labels = columnLabels();
  const cells = labels.map((l, i) => {
    const p = (d.points || [])[i], t = (d.totals || [])[i];
    if (p == null && t == null) return null;
    return `${l} ${p != null ? p : ""}${p != null && t != null ? ` (total ${t})` : t != null ? `total ${t}` : ""}`;
  }).filter(Boolean);
  return cells.join(", ") || "no number";
}

export function renderHistory() {
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

export function lastUndoable() {
  const voided = voidedSeqs();
  return [...S.events].reverse().find((e) => e.seq > 1 && !voided.has(e.seq));
}

export function openCorrection(target, kind) {
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
