// The table as cards, per game, from GET /matches/{id}/state (the scorer's view).
// Drawing only: every card goes through cards.js, the one place cards are drawn.
import { cardEl, cardsEl } from "./cards.js";
import { el } from "./dom.js";

/** A hand's cards; a hand the view shows by its size only is drawn face down. */
const held = (h) => h.cards || Array.from({ length: h.size || 0 }, () => "??");
const row = (name, cards, note) => el("div", { class: "seatrow" }, el("span", { class: "name", text: name }), cardsEl(cards),
  note ? el("span", { class: "note", text: ` ${note}` }) : null);
/** A place whose cards the record counts but does not name ("A's pile: 12 cards"). */
const count = (label, n) => el("p", { class: "note", text: `${label}: ${n ?? 0} card${n === 1 ? "" : "s"}` });
const pile = (label, content) => el("span", { class: "pile" }, el("span", { text: label }), content);

const DRAW = {
  cabo(v, seatName) {
    const out = (v.rows || []).map((r) => row(r.name, r.cards, [
      r.seat === v.turn ? "to play" : null, r.seat === v.caller ? "called CABO" : null,
      r.faceUp && r.faceUp.length ? `face up: slot ${r.faceUp.join(", ")}` : null].filter(Boolean).join(" · ")));
    const piles = [];
    if (v.discardPile && v.discardPile.length) piles.push(pile(`Discard (${v.discardPile.length}):`, cardEl(v.discardPile[v.discardPile.length - 1])));
    if (typeof v.drawPile === "number") piles.push(el("span", { class: "pile", text: `Draw pile: ${v.drawPile}` }));
    if (v.drawn) piles.push(pile(`${seatName(v.drawn.seat)} drew:`, cardEl(v.drawn.card ?? "??")));
    return [...out, el("div", {}, ...piles)];
  },
  "la-cabra"(v, seatName) {
    const out = (v.hands || []).map((h) => row(h.name, held(h), h.seat === v.turn ? "to play" : null));
    const piles = [];
    if (v.trump) piles.push(pile("Trump:", cardEl(v.trump)));
    if (typeof v.stock === "number") piles.push(el("span", { class: "pile", text: `Stock: ${v.stock}` }));
    out.push(el("div", {}, ...piles));
    const trick = v.trick && v.trick.plays ? v.trick : null;
    if (trick) out.push(el("p", { class: "note", text: "This trick:" }), ...trick.plays.map((p) => row(`${seatName(p.seat)} ${p.type}s`, p.cards)));
    else if (v.lastTrick) out.push(el("p", { class: "note", text: `Last trick, won by ${seatName(v.lastTrick.winner)}:` }),
      ...v.lastTrick.plays.map((p) => row(`${seatName(p.seat)} ${p.type}s`, p.cards)));
    for (const p of v.piles || []) out.push(el("p", { class: "note", text: `${p.seats.map(seatName).join(" + ")}: ${p.tricks} trick${p.tricks === 1 ? "" : "s"}${p.knownPoints != null ? `, ${p.knownPoints} card points known` : `, ${p.cards} card${p.cards === 1 ? "" : "s"}`}${p.missing && p.missing.length ? `, ${p.missing.length} face-down card${p.missing.length === 1 ? "" : "s"} unseen` : ""}` }));
    return out;
  },
  "cau-robat"(v) {
    // a hand entered from the sheet knows how many cards lie on the table and in each pile, not which
    const out = [Array.isArray(v.table) || v.tableCount == null ? row("Table", v.table || []) : count("Table", v.tableCount)];
    for (const p of v.piles || []) {
      if (!Array.isArray(p.cards)) { out.push(count(`${p.name}'s pile`, p.count)); continue; }
      out.push(row(`${p.name}'s pile (${p.count})`, p.cards.length > 6 ? p.cards.slice(-3) : p.cards, p.cards.length > 6 ? "top three" : null));
    }
    for (const h of v.hands || []) out.push(row(h.name, held(h), h.seat === v.turn ? "to play" : null));
    if (v.chain) out.push(el("p", { class: "note", text: `Open chain of ${v.chain.rank}${v.chain.call ? `: ${v.chain.call}` : ""}` }));
    return out;
  },
  "el-roby"(v, seatName) {
    const out = (v.hands || []).filter((h) => h.in !== false).map((h) => row(h.name, held(h),
      [h.seat === v.turn ? "to play" : null, `${v.scores[h.seat]} points`].filter(Boolean).join(" · ")));
    const piles = [];
    if (v.discardPile && v.discardPile.length) piles.push(pile(`Discard (${v.discardPile.length}):`, cardEl(v.discardPile[v.discardPile.length - 1])));
    if (typeof v.stock === "number") piles.push(el("span", { class: "pile", text: `Stock: ${v.stock}` }));
    out.push(el("div", {}, ...piles));
    for (const m of v.melds || []) out.push(row(`Meld ${m.id} (${seatName(m.owner)}, ${m.kind})`, m.cards));
    return out;
  },
  kabu(v) {
    const out = (v.seats || []).filter((s) => s.inHand).map((s) => row(s.name, s.hand || [],
      [s.seat === v.turn ? "to decide" : null, s.third ? `third card: ${s.third}` : null, s.fourth ? `fourth: ${s.fourth}` : null, `${v.chips[s.seat]} chips`].filter(Boolean).join(" · ")));
    if (v.table && v.table.length) out.unshift(row("Open cards", v.table));
    return out;
  },
};

/** Draw the table; games without a drawing here get their card lists, whatever they are called. */
export function drawTable(game, view, seatName, isCard) {
  if (!view) return [];
  if (DRAW[game]) return DRAW[game](view, seatName);
  const out = [];
  for (const [key, value] of Object.entries(view)) {
    if (Array.isArray(value) && value.length && value.every((c) => typeof c === "string" && isCard(c))) out.push(row(key, value));
  }
  return out;
}
