// The scorer's page: the history of entries, undo and corrections.
import { append, dryRun, tokenFor } from "../api.js";
import { cardFace } from "../cards.js";
import { SHEET, eventWords } from "../games.js";
import { $, el } from "../dom.js";
import { t, tn } from "../say.js";
import { fieldProblem, moveData } from "../forms.js";
import { ctx, describePreview } from "./entry.js";
import { S, clearRefusal, columnLabels, gameId, id, knownCodes, seatName, showRefusal } from "./match.js";
import { control, moveFields } from "./moves.js";
import { showQueue } from "./queue.js";
import { HISTORY_PAGE, earlierEntries, refresh, refused } from "./load.js";

// ------------------------------------------------------------------ history, undo, corrections

// A correction's reason is kept in the record as written here, in English (the same facts in every
// language); the page says it in the reader's language.
export const REASONS = ["entered by mistake", "wrong player", "wrong cards or numbers", "belongs to another hand"];
const REASON_WORDS = {
  "entered by mistake": t("entered by mistake"), "wrong player": t("wrong player"),
  "wrong cards or numbers": t("wrong cards or numbers"), "belongs to another hand": t("belongs to another hand"),
  "the sheet's row typed again": t("the sheet's row typed again"),
};
/** A correction's reason in the reader's language: the page's own reasons translated, a person's words as written. */
export const reasonWords = (reason) => REASON_WORDS[reason] || reason;


export function voidedSeqs() {
  return new Set(S.audit.corrections.filter((c) => c.type === "void" && c.inForce).map((c) => c.target));
}

/** The words of a field of an entry, as a sheet would print it ("card points", not "cardPoints"). */
export const FIELD_NAMES = {
  dealer: t("dealer"), leader: t("leader"), trump: t("trump"), chips: t("chips"), card: t("card"), cards: t("cards"),
  cardPoints: t("card points"), tricks: t("tricks"), lossPoints: t("loss points"), piles: t("piles"), table: t("table"),
  values: t("values"), out: t("out"), hands: t("hands"), layouts: t("layouts"), sums: t("sums"), caller: t("caller"),
  target: t("target"), reason: t("reason"), points: t("points"), totals: t("totals"),  // a note's text: "note: …" above
};

/** A value as a sheet prints it: two numbers as "72–48", a list of cards "9H KH", a hand per seat "9H KH / ?? ??". */
export function spell(value) {
  if (typeof value === "string" && knownCodes().has(value)) return cardFace(value);  // A♦ as the pickers show it, not AD
  if (!Array.isArray(value)) return value === null ? t("unseen") : String(value);
  if (value.some(Array.isArray)) return value.map((part) => (Array.isArray(part) ? part.map(spell).join(" ") || t("none") : spell(part))).join(" / ");
  if (value.length === 2 && value.every((x) => typeof x === "number")) return value.join("–");
  const words = value.map(spell);
  // "as de oros, 3 de copas": a Spanish card takes several words, so a list of them takes commas
  return words.join(value.every((x) => typeof x === "number") || words.some((w) => w.includes(" de ")) ? ", " : " ");
}

export function describeEvent(e) {
  const d = e.data || {};
  const bits = [];
  if (e.type === "match_started") return t("match started: %(players)s", { players: (d.players || []).join(", ") });
  if (e.type === "score_claimed") {
    return d.hand != null ? t("the table wrote for hand %(hand)s: %(claim)s", { hand: d.hand, claim: claimWords(d) })
      : t("the table wrote: %(claim)s", { claim: claimWords(d) });
  }
  if (e.type === "void") return t("entry %(entry)s struck out (%(reason)s)", { entry: d.target, reason: reasonWords(d.reason) });
  if (e.type === "amend") {
    // what the entry now says, so the history shows the correction and not only that there was one
    const was = S.events.find((x) => x.seq === d.target);
    return t("entry %(entry)s corrected (%(reason)s): %(now)s", { entry: d.target, reason: reasonWords(d.reason), now: was ? describeEvent({ type: was.type, data: d.data }) : "" });
  }
  if (e.type === "note") return d.target != null ? t("note on entry %(entry)s: %(text)s", { entry: d.target, text: d.text }) : t("note: %(text)s", { text: d.text });
  if (e.type === "irregular" && d.move) return t("irregular: %(move)s", { move: describeEvent(d.move) });  // issue 31: the move as played
  if (e.type === "dispute") {
    return d.seat != null ? t("dispute about hand %(hand)s (%(player)s): %(reason)s", { hand: d.hand, player: seatName(d.seat), reason: d.reason })
      : t("dispute about hand %(hand)s: %(reason)s", { hand: d.hand, reason: d.reason });
  }
  if (e.type === "ruling") {
    const decision = { upheld: t("upheld"), rejected: t("rejected") }[d.decision] || d.decision;
    return t("ruling on the dispute of entry %(entry)s: %(decision)s, %(reason)s", { entry: d.dispute, decision, reason: d.reason });
  }
  for (const k of ["dealer", "leader", "trump", "from", "chips", "card", "slots", "cards", "cardPoints", "tricks", "lossPoints", "piles", "table", "values", "out", "hands", "layouts", "sums", "caller", "target", "reason", "text", "points", "totals"]) {
    // a Cabo replace names the cards shown from the slots (thrown away when they match), not the card drawn
    const name = k === "cards" && ["replace", "take_discard"].includes(e.type) ? t("cards shown") : FIELD_NAMES[k] || k;
    const value = d[k];
    if (k === "slots" && Array.isArray(value)) { bits.push(tn("slot %(slots)s", "slots %(slots)s", value.length, { slots: value.join(" + ") })); continue; }
    if (Array.isArray(value) && value.flat(2).length && value.flat(2).every((c) => c === "??" || c === null)) { bits.push(t("%(field)s unseen", { field: name })); continue; }
    if (value && typeof value === "object" && !Array.isArray(value)) {
      if (value.private) bits.push(t("%(field)s hidden", { field: name }));
      else if (value.seat != null && value.slot != null && Object.keys(value).length === 2) {  // a place in a row: "Ben slot 2"
        bits.push(t("%(field)s %(value)s", { field: name, value: t("%(player)s slot %(slot)s", { player: seatName(value.seat), slot: value.slot }) }));
      } else bits.push(t("%(field)s %(value)s", { field: name, value: JSON.stringify(value).replaceAll('"', "") }));
      continue;
    }
    if (value === undefined || value === null) continue;
    if (k === "from") {
      if (e.type === "buy_chips") bits.push(t("from %(player)s", { player: seatName(value) }));
      else bits.push(({ stock: t("from stock"), discard: t("from discard") })[value] || t("from %(place)s", { place: spell(value) }));
      continue;
    }
    bits.push(t("%(field)s %(value)s", { field: name, value: ["dealer", "leader", "caller", "out"].includes(k) ? seatName(value) : spell(value) }));
  }
  const move = eventWords(e.type);
  const said = bits.length ? t("%(move)s — %(details)s", { move, details: bits.join(", ") }) : move;
  return d.seat != null ? t("%(player)s: %(move)s", { player: seatName(d.seat), move: said }) : said;
}

/** A sheet's row in words: "Anna 15 (total 15), Ben total 5" — blank cells left out. */
export function claimWords(d) {
  const labels = columnLabels();
  const cells = labels.map((l, i) => {
    const p = (d.points || [])[i], tot = (d.totals || [])[i];
    if (p == null && tot == null) return null;
    if (p != null && tot != null) return t("%(who)s %(points)s (total %(total)s)", { who: l, points: p, total: tot });
    return p != null ? t("%(who)s %(points)s", { who: l, points: p }) : t("%(who)s total %(total)s", { who: l, total: tot });
  }).filter(Boolean);
  return cells.join(", ") || t("no number");
}

export function renderHistory() {
  const list = $("history");
  list.replaceChildren();
  const voided = voidedSeqs();
  const writable = !!tokenFor(id);
  for (const e of [...S.events].reverse()) {
    if (e.seq <= S.from) break;  // the latest entries; older ones the page read for their names come on asking
    const item = el("li", { value: e.seq, "data-seq": e.seq }, el("span", { class: voided.has(e.seq) ? "void" : "", text: describeEvent(e) }));
    if (writable && e.seq > 1 && !voided.has(e.seq)) {
      item.append(el("button", { type: "button", class: "button", "aria-label": t("Void entry %(entry)s", { entry: e.seq }), text: t("Void…"), onclick: () => openCorrection(e, "void") }));
      if ((e.type === "hand_result" && SHEET[gameId]) || moveFields(e.type).length) item.append(el("button", { type: "button", class: "button", "aria-label": t("Correct entry %(entry)s", { entry: e.seq }), text: t("Correct…"), onclick: () => openCorrection(e, "amend") }));
    }
    list.append(item);
  }
  const earlier = $("earlier-entries");
  if (earlier) earlier.parentElement.remove();
  if (S.from > 0) {  // the history lists the latest entries: the earlier ones a page at a time, on asking
    list.after(el("p", { class: "actions" }, el("button", { type: "button", class: "button", id: "earlier-entries",
      text: tn("Show %(n)s earlier entry", "Show %(n)s earlier entries", Math.min(S.from, HISTORY_PAGE)), onclick: earlierEntries })));
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
  const reason = el("select", { id: "correction-reason" }, ...REASONS.map((r) => el("option", { value: r, text: reasonWords(r) })));
  const consequences = el("div", { class: "preview", role: "status", "aria-live": "polite" });
  const refusal = el("div", { class: "refusal", role: "alert", hidden: true });
  const confirm = el("button", { type: "button", class: "button primary", text: kind === "void" ? t("Void it") : t("Save the correction"), disabled: true });
  let fields = null;
  const header = el("h3", { text: kind === "void" ? t("Void entry %(entry)s: %(what)s", { entry: target.seq, what: describeEvent(target) })
    : t("Correct entry %(entry)s: %(what)s", { entry: target.seq, what: describeEvent(target) }) });
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
    consequences.replaceChildren(el("p", { text: t("If you save this:") }), describePreview(result.body));
    confirm.disabled = false;
  };
  confirm.addEventListener("click", async () => {
    confirm.disabled = true;  // sent once: "Show what changes" enables it again
    const label = kind === "void" ? t("void of entry %(entry)s", { entry: target.seq }) : t("amend of entry %(entry)s", { entry: target.seq });
    const result = await append(id, events(), label, { ifMatch: S.version });
    if (result.queued) { showQueue(); box.hidden = true; return; }
    if (!result.ok) { await refused(refusal, result); return; }
    box.hidden = true;
    await refresh();
  });
  box.replaceChildren(header, extra, el("label", { for: "correction-reason" }, t("Why"), reason),
    el("p", { class: "actions" }, el("button", { type: "button", class: "button", text: t("Show what changes"), onclick: check }), confirm,
      el("button", { type: "button", class: "button", text: t("Cancel"), onclick: () => { box.hidden = true; } })),
    consequences, refusal);
  reason.addEventListener("change", onchange);
  header.setAttribute("tabindex", "-1");
  header.focus();
  check();
}
