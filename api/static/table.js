// The table as cards, per game, from GET /matches/{id}/state (the scorer's view).
// Drawing only: every card goes through cards.js, the one place cards are drawn.
import { cardEl, cardsEl } from "./cards.js";
import { el } from "./dom.js";
import { t, tn } from "./say.js";

/** A hand's cards; a hand the view shows by its size only is drawn face down. */
const held = (h) => h.cards || Array.from({ length: h.size || 0 }, () => "??");
const row = (name, cards, note) => el("div", { class: "seatrow" }, el("span", { class: "name", text: name }), cardsEl(cards),
  note ? el("span", { class: "note", text: ` ${note}` }) : null);
/** A place whose cards the record counts but does not name ("A's pile: 12 cards"). */
const count = (label, n) => el("p", { class: "note", text: tn("%(place)s: %(n)s card", "%(place)s: %(n)s cards", n ?? 0, { place: label }) });
const pile = (label, content) => el("span", { class: "pile" }, el("span", { text: label }), content);
/** A trick's play: "Anna leads", "Ben beats" (the play's type stays the record's). */
const PLAYS = { lead: (player) => t("%(player)s leads", { player }), beat: (player) => t("%(player)s beats", { player }),
  discard: (player) => t("%(player)s discards", { player }), tira: (player) => t("%(player)s tiras", { player }) };
const played = (player, type) => (PLAYS[type] ? PLAYS[type](player) : `${player} ${type}s`);
/** A Kabú seat's decision on a third or fourth card. */
const DECISIONS = { take: () => t("take"), stand: () => t("stand") };
const decided = (d) => (DECISIONS[d] ? DECISIONS[d]() : d);
const MELDS = { set: () => t("set"), run: () => t("run") };

const DRAW = {
  cabo(v, seatName) {
    const out = (v.rows || []).map((r) => row(r.name, r.cards, [
      r.seat === v.turn ? t("to play") : null, r.seat === v.caller ? t("called CABO") : null,
      r.faceUp && r.faceUp.length ? t("face up: slot %(slots)s", { slots: r.faceUp.join(", ") }) : null].filter(Boolean).join(" · ")));
    const piles = [];
    if (v.discardPile && v.discardPile.length) piles.push(pile(t("Discard (%(n)s):", { n: v.discardPile.length }), cardEl(v.discardPile[v.discardPile.length - 1])));
    if (typeof v.drawPile === "number") piles.push(el("span", { class: "pile", text: t("Draw pile: %(n)s", { n: v.drawPile }) }));
    if (v.drawn) piles.push(pile(t("%(player)s drew:", { player: seatName(v.drawn.seat) }), cardEl(v.drawn.card ?? "??")));
    return [...out, el("div", {}, ...piles)];
  },
  "la-cabra"(v, seatName) {
    const out = (v.hands || []).map((h) => row(h.name, held(h), h.seat === v.turn ? t("to play") : null));
    const piles = [];
    if (v.trump) piles.push(pile(t("Trump:"), cardEl(v.trump)));
    if (typeof v.stock === "number") piles.push(el("span", { class: "pile", text: t("Stock: %(n)s", { n: v.stock }) }));
    out.push(el("div", {}, ...piles));
    const trick = v.trick && v.trick.plays ? v.trick : null;
    if (trick) out.push(el("p", { class: "note", text: t("This trick:") }), ...trick.plays.map((p) => row(played(seatName(p.seat), p.type), p.cards)));
    else if (v.lastTrick) out.push(el("p", { class: "note", text: t("Last trick, won by %(player)s:", { player: seatName(v.lastTrick.winner) }) }),
      ...v.lastTrick.plays.map((p) => row(played(seatName(p.seat), p.type), p.cards)));
    for (const p of v.piles || []) {
      const said = [tn("%(n)s trick", "%(n)s tricks", p.tricks),
        p.knownPoints != null ? t("%(n)s card points known", { n: p.knownPoints }) : tn("%(n)s card", "%(n)s cards", p.cards),
        p.missing && p.missing.length ? tn("%(n)s face-down card unseen", "%(n)s face-down cards unseen", p.missing.length) : null];
      out.push(el("p", { class: "note", text: `${p.seats.map(seatName).join(" + ")}: ${said.filter(Boolean).join(", ")}` }));
    }
    return out;
  },
  "cau-robat"(v) {
    // a hand entered from the sheet knows how many cards lie on the table and in each pile, not which
    const out = [Array.isArray(v.table) || v.tableCount == null ? row(t("Table"), v.table || []) : count(t("Table"), v.tableCount)];
    for (const p of v.piles || []) {
      if (!Array.isArray(p.cards)) { out.push(count(t("%(player)s's pile", { player: p.name }), p.count)); continue; }
      out.push(row(t("%(player)s's pile (%(n)s)", { player: p.name, n: p.count }), p.cards.length > 6 ? p.cards.slice(-3) : p.cards, p.cards.length > 6 ? t("top three") : null));
    }
    for (const h of v.hands || []) out.push(row(h.name, held(h), h.seat === v.turn ? t("to play") : null));
    if (v.chain) {
      out.push(el("p", { class: "note", text: v.chain.call ? t("Open chain of %(rank)s: %(call)s", { rank: v.chain.rank, call: v.chain.call })
        : t("Open chain of %(rank)s", { rank: v.chain.rank }) }));
    }
    return out;
  },
  "el-roby"(v, seatName) {
    const out = (v.hands || []).filter((h) => h.in !== false).map((h) => row(h.name, held(h),
      [h.seat === v.turn ? t("to play") : null, tn("%(n)s point", "%(n)s points", v.scores[h.seat])].filter(Boolean).join(" · ")));
    const piles = [];
    if (v.discardPile && v.discardPile.length) piles.push(pile(t("Discard (%(n)s):", { n: v.discardPile.length }), cardEl(v.discardPile[v.discardPile.length - 1])));
    if (typeof v.stock === "number") piles.push(el("span", { class: "pile", text: t("Stock: %(n)s", { n: v.stock }) }));
    out.push(el("div", {}, ...piles));
    for (const m of v.melds || []) {
      out.push(row(t("Meld %(id)s (%(player)s, %(kind)s)", { id: m.id, player: seatName(m.owner), kind: MELDS[m.kind] ? MELDS[m.kind]() : m.kind }), m.cards));
    }
    return out;
  },
  kabu(v) {
    const out = (v.seats || []).filter((s) => s.inHand).map((s) => row(s.name, s.hand || [],
      [s.seat === v.turn ? t("to decide") : null, s.third ? t("third card: %(decision)s", { decision: decided(s.third) }) : null,
        s.fourth ? t("fourth: %(decision)s", { decision: decided(s.fourth) }) : null, tn("%(n)s chip", "%(n)s chips", v.chips[s.seat])].filter(Boolean).join(" · ")));
    if (v.table && v.table.length) out.unshift(row(t("Open cards"), v.table));
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
