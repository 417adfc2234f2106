// What each game asks the scorer: the fields of each move (what legal-moves leaves open),
// the score-sheet form of a hand (the shortest entry the API accepts) and the deal's layout.
// Names and shapes are VOCABULARY.md's; nothing here decides a rule — the API does.
import { cardFace } from "./cards.js";

const VERBS = {
  draw: "draws", discard: "discards", replace: "replaces", peek: "peeks (7/8)", spy: "spies (9/10)", swap: "swaps (11/12)",
  call_cabo: "calls CABO", take_discard: "takes the discard", initial_peek: "looks at two cards", showdown: "Showdown: cards shown",
  lead: "leads", beat: "beats", tira: "leads a tira (four of a suit, out of turn)", play: "plays", keep: "keeps a card", take: "takes a card", stand: "stands",
  meld: "melds", lay_off: "lays off", rebuy: "re-buys", reveal: "Reveal cards", note: "Note",
  buy_chips: "buys chips", leave: "leaves the game", time_up: "Time is up: the match ends",
};

/** The button text of a legal move. */
export function moveLabel(move, seatName) {
  const verb = VERBS[move.type] || move.type.replaceAll("_", " ");
  const d = move.data;
  if (move.type === "buy_chips" && d.seat == null) return "A player buys chips";
  // concrete templates (several "replaces" with different slots) must read differently
  const details = [];
  if (d.slots) details.push(`slot${d.slots.length > 1 ? "s" : ""} ${d.slots.join(" + ")}${d.cards ? ` showing ${d.cards.map(cardFace).join(" ")}` : ""}`);
  else if (d.cards && move.type !== "showdown") details.push(d.cards.map(cardFace).join(" "));
  if (d.card && move.type !== "draw") details.push(cardFace(d.card));
  const tail = details.length ? ` (${details.join(", ")})` : "";
  // El Roby's two draws read differently: from the stock, or the discard (the card everyone sees)
  if (move.type === "draw" && d.from) return `${seatName(d.seat)} ${d.from === "stock" ? "draws from the stock" : `takes the discard${d.card ? ` (${cardFace(d.card)})` : ""}`}`;
  return (d.seat != null ? `${seatName(d.seat)} ${verb}` : verb) + tail;
}

// kind: card | cards | slot | slots | pos | seat | seats | bool | choice | int | rows
export const FIELDS = {
  cabo: {
    initial_peek: [{ name: "slots", kind: "slots", label: "Slots looked at" }, { name: "cards", kind: "cards", label: "Cards seen", optional: true, max: 2 }],
    take_discard: [{ name: "slots", kind: "slots", label: "Slots replaced" }, { name: "cards", kind: "cards", label: "Cards shown from them", max: 4 }],
    draw: [{ name: "card", kind: "card", label: "Card drawn", optional: true }],
    replace: [{ name: "slots", kind: "slots", label: "Slots replaced" }, { name: "cards", kind: "cards", label: "Cards shown from them", max: 4 },
      { name: "drawn", kind: "card", label: "The drawn card", optional: true }],
    discard: [{ name: "card", kind: "card", label: "Card discarded" }],
    peek: [{ name: "card", kind: "card", label: "Card played", only: ["7", "8"] }, { name: "slot", kind: "slot", label: "Own slot looked at" },
      { name: "value", kind: "card", label: "Value seen", optional: true }],
    spy: [{ name: "card", kind: "card", label: "Card played", only: ["9", "10"] }, { name: "target", kind: "pos", label: "Card looked at", other: true },
      { name: "value", kind: "card", label: "Value seen", optional: true }],
    swap: [{ name: "card", kind: "card", label: "Card played", only: ["11", "12"] }, { name: "first", kind: "pos", label: "Own card", own: true },
      { name: "second", kind: "pos", label: "Exchanged with", other: true }],
    showdown: [{ name: "layouts", kind: "rows", label: "Rows shown", max: 8 }],
  },
  "la-cabra": {
    lead: [{ name: "cards", kind: "cards", label: "Cards led", max: 4 }],
    beat: [{ name: "cards", kind: "cards", label: "Cards played", max: 4 }],
    discard: [{ name: "cards", kind: "cards", label: "Cards discarded face down", max: 4, unknown: true }],
    tira: [{ name: "cards", kind: "cards", label: "The four cards", max: 4 }, { name: "rivals", kind: "seats", label: "Also claiming", optional: true }],
  },
  "cau-robat": {
    play: [{ name: "card", kind: "card", label: "Card played" }, { name: "call", kind: "bool", label: "Called (Cau, Recau …)", optional: true },
      { name: "captures", kind: "captures", label: "Cards taken", optional: true }],
  },
  kabu: {
    keep: [{ name: "card", kind: "card", label: "Card kept", unknown: true }],
    buy_chips: [{ name: "seat", kind: "seat", label: "Who buys" }, { name: "from", kind: "seat", label: "Buys from", other: true },
      { name: "chips", kind: "int", label: "Chips", min: 1 }],
    showdown: [{ name: "hands", kind: "rows", label: "Cards shown", max: 4 }],
  },
  "el-roby": {
    draw: [{ name: "from", kind: "choice", label: "From", values: ["stock", "discard"] }, { name: "card", kind: "card", label: "Card drawn", optional: true }],
    meld: [{ name: "id", kind: "int", label: "Meld number" }, { name: "cards", kind: "cards", label: "Cards", max: 13 }],
    lay_off: [{ name: "meld", kind: "int", label: "On meld number" }, { name: "cards", kind: "cards", label: "Cards", max: 13 }],
    discard: [{ name: "card", kind: "card", label: "Card discarded" }, { name: "forced", kind: "bool", label: "Forced (every card fits)", optional: true }],
    showdown: [{ name: "hands", kind: "rows", label: "Cards left", max: 13 }],
  },
};

/** Score-sheet forms: fields(ctx, onchange, initial?) -> [{node, value}], build(values, ctx) -> hand_result data. */
export const SHEET = {
  "la-cabra": {
    // The sheet holds each team's card points (tricks only when a team has 0), or the loss points alone.
    fields(c, onchange, initial = {}) {
      const names = c.standings.map((s) => s.names.join(" + "));
      const mode = c.segmented("The sheet holds", [["cardPoints", "card points"], ["lossPoints", "loss points only"]],
        { initial: [initial.lossPoints ? "lossPoints" : "cardPoints"], onchange: () => { toggle(); onchange(); } });
      const other = c.el("p", { class: "note" });
      const points = c.numberField(`Card points of ${names[0]}`, { min: 0, max: 120, idName: `${c.prefix}card-points-0`,
        initial: initial.cardPoints ? String(initial.cardPoints[0]) : "", onchange: () => { show(); onchange(); } });
      const show = () => { const v = points.value(); other.textContent = v == null ? "" : `${names[1]}: ${120 - v} card points`; };
      show();
      const trickOptions = Array.from({ length: 10 }, (_, n) => [n, String(n)]);
      const tricks = (i) => c.segmented(`Tricks of ${names[i]} (if written)`, trickOptions,
        { initial: initial.tricks ? [initial.tricks[i]] : [], onchange, clearable: true });
      const t0 = tricks(0), t1 = tricks(1);
      const last = c.segmented("Last trick won by (if written)", c.seatOptions(),
        { initial: initial.lastTrick != null ? [initial.lastTrick] : [], onchange, clearable: true });
      const cardBlock = c.el("div", {}, points.node, other, t0.node, t1.node,
        c.el("p", { class: "note", text: "Tricks are needed only when a team took no card points (blank tricks or none)." }), last.node);
      const lossOptions = [0, 2, 4, 6].map((n) => [n, String(n)]);
      const loss = (i) => c.segmented(`Loss points of ${names[i]}`, lossOptions, { initial: initial.lossPoints ? [initial.lossPoints[i]] : [], onchange });
      const l0 = loss(0), l1 = loss(1);
      const lossBlock = c.el("div", {}, l0.node, l1.node,
        c.el("p", { class: "note", text: "The deal's own 2, 4 or 6 for the losers (0 and 0 for 60–60); a doubling after eggs is the engine's." }));
      const toggle = () => { const loose = mode.value() === "lossPoints"; cardBlock.hidden = loose; lossBlock.hidden = !loose; };
      toggle();
      return [{ node: c.el("div", {}, mode.node, cardBlock, lossBlock), value: () => ({
        mode: mode.value(), points: points.value(), tricks: [t0.value(), t1.value()], last: last.value(), loss: [l0.value(), l1.value()] }) }];
    },
    build([v]) {
      if (v.mode === "lossPoints") {
        if (v.loss.some((n) => n == null)) throw new Error("Pick both teams' loss points first.");
        return { lossPoints: v.loss };
      }
      if (v.points == null) throw new Error("Write the card points first.");
      const data = { cardPoints: [v.points, 120 - v.points] };
      if (v.tricks[0] != null || v.tricks[1] != null) data.tricks = [v.tricks[0] ?? 0, v.tricks[1] ?? 0];
      if (v.last != null) data.lastTrick = v.last;
      return data;
    },
  },
  cabo: {
    // The score sheet holds each player's card total (sums), who called CABO and a kamikaze.
    fields(c, onchange, initial = {}) {
      const sums = c.players.map((n, s) => c.numberField(`${n}'s card total`, { max: 663, idName: `${c.prefix}sum-${s}`, onchange, required: true,
        initial: initial.sums ? String(initial.sums[s]) : "" }));
      const caller = c.segmented("Called CABO", c.seatOptions(), { initial: initial.caller != null ? [initial.caller] : [], onchange });
      const kamikaze = c.segmented("Kamikaze: showed 12 12 13 13 (if any)", c.seatOptions(),
        { initial: initial.kamikaze != null ? [initial.kamikaze] : [], onchange, clearable: true });
      return [...sums, caller, kamikaze];
    },
    build(v, c) {
      const n = c.players.length;
      const data = { sums: v.slice(0, n), caller: v[n] };
      if (v[n + 1] != null) data.kamikaze = v[n + 1];
      return data;
    },
  },
  "cau-robat": {
    fields(c, onchange, initial = {}) {
      const piles = c.players.map((n, s) => c.numberField(`${n}'s pile (cards)`, { max: 40, idName: `${c.prefix}pile-${s}`, required: true, initial: initial.piles ? String(initial.piles[s]) : "", onchange }));
      const table = c.numberField("Cards left on the table (if written)", { max: 10, idName: `${c.prefix}table-left`, initial: initial.table != null ? String(initial.table) : "", onchange });
      return [...piles, table];
    },
    build(v) {
      const table = v[v.length - 1];
      return table == null ? { piles: v.slice(0, -1) } : { piles: v.slice(0, -1), table };
    },
  },
  kabu: {
    fields(c, onchange, initial = {}) {
      return c.players.map((n, s) => c.numberField(`${n}'s value (0–9)`, { max: 9, idName: `${c.prefix}value-${s}`, required: true, initial: initial.values ? String(initial.values[s]) : "", onchange }));
    },
    build(v) { return { values: v }; },
  },
  "el-roby": {
    fields(c, onchange, initial = {}) {
      const out = c.segmented("Made Roby (out of cards)", c.seatOptions(), { initial: initial.out != null ? [initial.out] : [], onchange });
      // players already out of the game have no points to write
      const left = c.players.map((n, s) => c.standings[s].status === "out" ? { node: c.el("p", { class: "note", text: `${n} is out of the game.` }), value: () => null }
        : c.numberField(`${n}: points of the hand`, { max: 999, idName: `${c.prefix}left-${s}`, onchange,
          initial: initial.hands && typeof initial.hands[s] === "number" ? String(initial.hands[s]) : "" }));
      return [out, ...left];
    },
    build([out, ...left], c) {
      return { out, hands: left.map((p, s) => s === out ? 0 : c.standings[s].status === "out" ? null : p) };
    },
  },
};

/** The deal as dealt: per seat and extra face-up cards (VOCABULARY.md §4 hand_started). */
export const DEAL = {
  cabo: () => ({ perSeat: { field: "layouts", count: 4 }, extras: [{ field: "discard", count: 1, single: true, label: "Turned-up discard" }], extraLabel }),
  "la-cabra": () => ({ perSeat: { field: "hands", count: 4 }, extras: [{ field: "trump", count: 1, single: true, label: "Trump card shown" }], extraLabel }),
  "cau-robat": (c) => {
    const deal = c.info.deal[String(c.players.length)];
    return { perSeat: { field: "hands", count: deal.hand }, extras: [{ field: "table", count: deal.table, label: "Table" }], extraLabel };
  },
  kabu: (c) => ({ perSeat: { field: "hands", count: { choose5: 5, choose3: 3 }[c.matchOptions().start] || 2 }, extras: [], extraLabel }),
  "el-roby": () => ({ perSeat: { field: "hands", count: 10 }, extras: [{ field: "discard", count: 1, single: true, label: "Turned-up discard" }], extraLabel }),
};
function extraLabel(field) { return { discard: "turned-up discard", trump: "trump card", table: "table cards", layouts: "cards", hands: "cards" }[field] || field; }
