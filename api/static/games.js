// What each game asks the scorer, as GET /games/{game} serves it (engines/<game>/forms.py): the
// deck a picker offers, the fields of each move (what legal-moves leaves open), the words of its
// button, the score-sheet form of a hand (the shortest entry the API accepts) and the deal's layout.
// Every word a person reads comes from that answer; this module only puts it on the page. Names
// and shapes are VOCABULARY.md's; nothing here decides a rule — the API does.
import { cardFace } from "./cards.js";
import { t } from "./say.js";

const served = {};   // game id -> its GET /games/{game} answer (fetched once per page)
let words = {};      // the words of the game this page records

/** Keep a game's description for this page's forms (a page records one game); returns it. */
export function knowGame(info) {
  served[info.game] = info;
  words = info.forms.words;
  FIELDS[info.game] = info.forms.moves;
  DEAL[info.game] = (c) => dealLayout(info.forms.deal, c);
  return info;
}

/** Fill a served sentence's {names} (the sentence is whole: translated as one, never glued). */
export function say(template, values = {}) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** What a move or an entry of each type is called where the server gives no sentence for it (the
 * history of entries, a move the served words do not name); the type itself stays the record's. */
const EVENT_WORDS = {
  match_started: t("match started"), hand_started: t("hand started"), hand_result: t("hand result"), reveal: t("reveal"),
  score_claimed: t("score claimed"), void: t("void"), amend: t("amend"), note: t("note"), dispute: t("dispute"), ruling: t("ruling"),
  lead: t("lead"), beat: t("beat"), discard: t("discard"), tira: t("tira"), play: t("play"),
  initial_peek: t("initial peek"), take_discard: t("take discard"), draw: t("draw"), replace: t("replace"), peek: t("peek"),
  spy: t("spy"), swap: t("swap"), call_cabo: t("call cabo"), showdown: t("showdown"),
  keep: t("keep"), take: t("take"), stand: t("stand"), buy_chips: t("buy chips"), leave: t("leave"), time_up: t("time is up"),
  meld: t("meld"), lay_off: t("lay off"), rebuy: t("re-buy"),
};
export const eventWords = (type) => EVENT_WORDS[type] || type.replaceAll("_", " ");

/** Every card of a match's deck, with how many copies exist: [{code, copies}] (the engine's deck, served). */
export function deck(game, options = {}) {
  const info = served[game];
  if (!info) return [];
  const by = info.cardsByOption;
  return (by && by.values[options[by.option]]) || info.cards;
}

/** The button text of a legal move (or an entry of the log). */
export function moveLabel(move, seatName) {
  const d = move.data;
  const seat = d.seat != null ? seatName(d.seat) : null;
  const line = (key, values = {}) => say(words[key], { seat, ...values });
  if (move.type === "buy_chips" && d.seat == null && words["buy_chips.anyone"]) return line("buy_chips.anyone");
  // El Roby's two draws read differently: from the stock, or the discard (the card everyone sees)
  if (move.type === "draw" && d.from && words["draw.stock"]) {
    if (d.from === "stock") return line("draw.stock");
    return d.card ? line("draw.discardCard", { card: cardFace(d.card) }) : line("draw.discard");
  }
  // concrete templates (several "replaces" with different slots) must read differently
  const details = [];
  if (d.slots) details.push(line(`${d.slots.length > 1 ? "slots" : "slot"}${d.cards ? "Showing" : ""}`, { slots: d.slots.join(" + "), cards: (d.cards || []).map(cardFace).join(" ") }));
  else if (d.cards && move.type !== "showdown") details.push(d.cards.map(cardFace).join(" "));
  if (d.card && move.type !== "draw") details.push(cardFace(d.card));
  const template = words[move.type];
  // a seat not yet named drops out of the sentence; a type the server has no words for is shown by its code
  const head = template == null ? (seat == null ? eventWords(move.type) : t("%(player)s %(move)s", { player: seat, move: eventWords(move.type) }))
    : seat == null ? template.replace("{seat} ", "") : line(move.type);
  return details.length ? line("withDetails", { move: head, details: details.join(", ") }) : head;
}

/** Each game's move fields ({type: [{name, kind, label, optional, only, max…}]}), filled in by knowGame. */
export const FIELDS = {};

/** Score-sheet forms: fields(ctx, onchange, initial?) -> [{node, value}], build(values, ctx) -> hand_result data.
 * What they say and their bounds are the served ``forms.sheet`` (``w`` below); the forms only arrange them. */
const w = (c) => c.info.forms.sheet;
export const SHEET = {
  "la-cabra": {
    // The sheet holds each team's card points (tricks only when a team has 0), or the loss points alone.
    fields(c, onchange, initial = {}) {
      const names = c.standings.map((s) => s.names.join(" + "));
      const words = w(c);
      const mode = c.segmented(words.mode.label, [["cardPoints", words.mode.cardPoints], ["lossPoints", words.mode.lossPoints]],
        { initial: [initial.lossPoints ? "lossPoints" : "cardPoints"], onchange: () => { toggle(); onchange(); } });
      const other = c.el("p", { class: "note" });
      const points = c.numberField(say(words.cardPoints.label, { team: names[0] }), { min: 0, max: words.cardPoints.max, idName: `${c.prefix}card-points-0`,
        initial: initial.cardPoints ? String(initial.cardPoints[0]) : "", onchange: () => { show(); onchange(); } });
      const show = () => { const v = points.value(); other.textContent = v == null ? "" : say(words.cardPoints.other, { team: names[1], points: words.cardPoints.max - v }); };
      show();
      const trickOptions = Array.from({ length: 10 }, (_, n) => [n, String(n)]);
      const tricks = (i) => c.segmented(say(words.tricks.label, { team: names[i] }), trickOptions,
        { initial: initial.tricks ? [initial.tricks[i]] : [], onchange, clearable: true });
      const t0 = tricks(0), t1 = tricks(1);
      const last = c.segmented(words.lastTrick.label, c.seatOptions(),
        { initial: initial.lastTrick != null ? [initial.lastTrick] : [], onchange, clearable: true });
      const cardBlock = c.el("div", {}, points.node, other, t0.node, t1.node,
        c.el("p", { class: "note", text: words.tricks.note }), last.node);
      const lossOptions = words.lossPoints.values.map((n) => [n, String(n)]);
      const loss = (i) => c.segmented(say(words.lossPoints.label, { team: names[i] }), lossOptions, { initial: initial.lossPoints ? [initial.lossPoints[i]] : [], onchange });
      const l0 = loss(0), l1 = loss(1);
      const lossBlock = c.el("div", {}, l0.node, l1.node,
        c.el("p", { class: "note", text: words.lossPoints.note }));
      const toggle = () => { const loose = mode.value() === "lossPoints"; cardBlock.hidden = loose; lossBlock.hidden = !loose; };
      toggle();
      return [{ node: c.el("div", {}, mode.node, cardBlock, lossBlock), value: () => ({
        mode: mode.value(), points: points.value(), tricks: [t0.value(), t1.value()], last: last.value(), loss: [l0.value(), l1.value()] }) }];
    },
    build([v], c) {
      const words = w(c);
      if (v.mode === "lossPoints") {
        if (v.loss.some((n) => n == null)) throw new Error(words.lossPoints.missing);
        return { lossPoints: v.loss };
      }
      if (v.points == null) throw new Error(words.cardPoints.missing);
      const data = { cardPoints: [v.points, words.cardPoints.max - v.points] };
      if (v.tricks[0] != null || v.tricks[1] != null) data.tricks = [v.tricks[0] ?? 0, v.tricks[1] ?? 0];
      if (v.last != null) data.lastTrick = v.last;
      return data;
    },
  },
  cabo: {
    // The score sheet holds each player's card total (sums), who called CABO and a kamikaze.
    fields(c, onchange, initial = {}) {
      const sums = c.players.map((n, s) => c.numberField(say(w(c).sums.label, { player: n }), { max: w(c).sums.max, idName: `${c.prefix}sum-${s}`, onchange, required: true,
        initial: initial.sums ? String(initial.sums[s]) : "" }));
      const caller = c.segmented(w(c).caller.label, c.seatOptions(), { initial: initial.caller != null ? [initial.caller] : [], onchange });
      const kamikaze = c.segmented(w(c).kamikaze.label, c.seatOptions(),
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
      const piles = c.players.map((n, s) => c.numberField(say(w(c).piles.label, { player: n }), { max: w(c).piles.max, idName: `${c.prefix}pile-${s}`, required: true, initial: initial.piles ? String(initial.piles[s]) : "", onchange }));
      const table = c.numberField(w(c).table.label, { max: w(c).table.max, idName: `${c.prefix}table-left`, initial: initial.table != null ? String(initial.table) : "", onchange });
      return [...piles, table];
    },
    build(v) {
      const table = v[v.length - 1];
      return table == null ? { piles: v.slice(0, -1) } : { piles: v.slice(0, -1), table };
    },
  },
  kabu: {
    fields(c, onchange, initial = {}) {
      return c.players.map((n, s) => c.numberField(say(w(c).values.label, { player: n }), { max: w(c).values.max, idName: `${c.prefix}value-${s}`, required: true, initial: initial.values ? String(initial.values[s]) : "", onchange }));
    },
    build(v) { return { values: v }; },
  },
  "el-roby": {
    fields(c, onchange, initial = {}) {
      const out = c.segmented(w(c).out.label, c.seatOptions(), { initial: initial.out != null ? [initial.out] : [], onchange });
      // players already out of the game have no points to write
      const left = c.players.map((n, s) => c.standings[s].status === "out" ? { node: c.el("p", { class: "note", text: say(w(c).hands.gone, { player: n }) }), value: () => null }
        : c.numberField(say(w(c).hands.label, { player: n }), { max: w(c).hands.max, idName: `${c.prefix}left-${s}`, onchange,
          initial: initial.hands && typeof initial.hands[s] === "number" ? String(initial.hands[s]) : "" }));
      return [out, ...left];
    },
    build([out, ...left], c) {
      return { out, hands: left.map((p, s) => s === out ? 0 : c.standings[s].status === "out" ? null : p) };
    },
  },
};

/** The deal as dealt: per seat and extra face-up cards (VOCABULARY.md §4 hand_started), filled in by knowGame. */
export const DEAL = {};

/** A served deal layout for this match: counts by players or by an option, and the words of its places. */
function dealLayout(deal, c) {
  const count = (n) => (typeof n === "number" ? n
    : n.players ? n.players[String(c.players.length)] : n.values[c.matchOptions()[n.option]] ?? n.default);
  const extras = deal.extras.map((x) => ({ ...x, count: count(x.count) }));
  const nameOf = (field) => (extras.find((x) => x.field === field) || {}).name || words.seatCards;
  return {
    perSeat: { field: deal.perSeat.field, count: count(deal.perSeat.count) },
    extras,
    /** How one place of the deal reads to a screen reader. */
    place: (seat, field, index, card) => (seat == null
      ? say(extras.find((x) => x.field === field).place, { n: index + 1, card })
      : say(words.seatPlace, { seat, n: index + 1, card })),
    /** The refusal when places are left empty. */
    missing: (fields) => say(words.dealMissing, { places: fields.map(nameOf).join(", ") }),
  };
}
