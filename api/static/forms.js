// The controls of the per-game forms (games.js FIELDS and SHEET), one copy for every page: the score
// page records and corrects with them, and the dispute desk corrects an entry with the same fields as
// the score page's "Correct…", never with JSON. They hold no page state: everything they need
// (players, the deck's options, the table at the moment recorded or corrected) comes in ``kit``'s context.
import { cardButton, cardName, placedCounts } from "./cards.js";
import { deck } from "./games.js";
import { el, keepingFocus, seatNamer } from "./dom.js";
import { t } from "./say.js";

/** The form controls for one match: {players, game, options, view, prefix}. ``view`` is the table as
 * the corrected entry found it (slots to choose from, cards already placed); ``prefix`` keeps ids apart
 * when a page holds several forms. */
export function kit({ players, game, options = {}, view = null, prefix = "" }) {
  const seatName = seatNamer(players);
  const seatOptions = () => players.map((n, s) => [s, n]);
  const knownCodes = () => new Set(deck(game, options).map((d) => d.code));
  const matchOptions = () => options;
  let ids = 0;
  const nextId = (name) => `${prefix}${name}-${ids++}`;

  function segmented(label, choices, { multiple = false, initial = [], onchange, clearable = false } = {}) {
    const chosen = new Set(initial);
    const group = el("div", { class: "seg", role: "group", "aria-label": label });
    const buttons = choices.map(([value, text]) => {
      const b = el("button", { type: "button", "aria-pressed": String(chosen.has(value)), "data-value": String(value), text });
      b.dataset.json = JSON.stringify(value);
      b.addEventListener("click", () => {
        if (multiple) { chosen.has(value) ? chosen.delete(value) : chosen.add(value); }
        else { const was = chosen.has(value); chosen.clear(); if (!was || !clearable) chosen.add(value); }
        for (const other of buttons) other.setAttribute("aria-pressed", String(chosen.has(JSON.parse(other.dataset.json))));
        onchange && onchange();
      });
      return b;
    });
    group.append(...buttons);
    const node = el("div", { class: "field-row" }, el("span", { class: "label", text: label }), group);
    return { node, value: () => multiple ? [...chosen] : (chosen.size ? [...chosen][0] : null) };
  }

  function numberField(label, { min = 0, max = 999, initial = "", onchange, idName, required = false } = {}) {
    const inputId = idName ? (idName.startsWith(prefix) ? idName : `${prefix}${idName}`) : nextId("n");  // SHEET forms prefix their own
    const input = el("input", { type: "number", inputmode: "numeric", min, max, id: inputId, value: initial, required });
    input.addEventListener("input", () => onchange && onchange());
    return { node: el("label", { for: inputId }, label, input), input, value: () => input.value === "" ? null : Number(input.value) };
  }

  function cardList(label, { max = 8, single = false, only = null, allowUnknown = true, initial = [], onchange } = {}) {
    const chosen = [...initial];
    const list = el("div", { class: "cards", "aria-live": "polite" });
    const picker = el("div", { class: "picker", role: "group", "aria-label": t("%(field)s: pick a card", { field: label }) });
    const wrap = el("div", { class: "field-row" }, el("span", { class: "label", text: label }), list, picker);
    const draw = () => keepingFocus(wrap, redraw);
    const add = (code) => { if (single) chosen.splice(0); if (chosen.length < max) chosen.push(code); draw(); onchange && onchange(); };
    const redraw = () => {
      list.replaceChildren(...chosen.map((c, i) => {
        const b = cardButton(c, t("%(field)s: %(card)s, press to remove", { field: label, card: cardName(c) }));
        b.addEventListener("click", () => { chosen.splice(i, 1); draw(); onchange && onchange(); });
        return b;
      }));
      if (!chosen.length) list.append(el("span", { class: "note", text: t("none yet") }));
      const counts = placedCounts(view, knownCodes());
      for (const c of chosen) counts.set(c, (counts.get(c) || 0) + 1);
      picker.replaceChildren();
      for (const d of deck(game, options).filter((x) => !only || only.includes(x.code))) {
        const b = cardButton(d.code, t("%(field)s: add %(card)s", { field: label, card: cardName(d.code) }));
        if ((counts.get(d.code) || 0) >= d.copies) b.classList.add("placed");
        b.addEventListener("click", () => add(d.code));
        picker.append(b);
      }
      if (allowUnknown) {
        const b = cardButton("??", t("%(field)s: add an unseen card", { field: label }));
        b.addEventListener("click", () => add("??"));
        picker.append(b);
      }
    };
    draw();
    return { node: wrap, value: () => single ? (chosen[0] ?? null) : [...chosen] };
  }

  /** The control of one field of a move (games.js FIELDS), showing ``known`` (the entry's value) as chosen. */
  function control(f, move, known) {
    const label = f.label;  // whole, as served: an optional field says so itself
    const slotsOf = (seat) => { const row = ((view || {}).rows || [])[seat]; return Array.from({ length: row && Array.isArray(row.cards) ? row.cards.length : 4 }, (_, i) => [i + 1, String(i + 1)]); };
    const isCard = (c) => typeof c === "string";
    const one = (v) => (v === undefined || v === null || (typeof v === "object" && !Array.isArray(v)) ? [] : [v]);
    switch (f.kind) {
      case "card": return cardList(label, { single: true, only: f.only, allowUnknown: !!f.unknown, initial: one(known).filter(isCard) });
      case "cards": return cardList(label, { max: f.max || 8, allowUnknown: !!f.unknown, initial: Array.isArray(known) ? known.filter(isCard) : [] });
      case "slot": return segmented(label, slotsOf(move.data.seat), { initial: one(known) });
      case "slots": return segmented(label, slotsOf(move.data.seat), { multiple: true, initial: Array.isArray(known) ? known : [] });
      case "seat": return segmented(label, seatOptions().filter(([s]) => !f.other || s !== move.data.seat), { clearable: f.optional, initial: one(known) });
      case "seats": return segmented(label, seatOptions(), { multiple: true, initial: Array.isArray(known) ? known : [] });
      case "bool": return segmented(label, [[true, t("yes")], [false, t("no")]], { clearable: f.optional, initial: one(known) });
      case "choice": return segmented(label, f.values.map((v) => [v, choiceWords(v)]), { initial: one(known) });
      case "int": return numberField(label, { idName: `f-${f.name}`, min: f.min ?? 0, initial: known == null ? "" : String(known) });
      case "captures": return captures(label, Array.isArray(known) ? known : []);
      case "pos": {
        const own = f.own ? move.data.seat : null;
        const at = known && typeof known === "object" ? known : {};
        const box = el("div");
        const slotFor = (s) => segmented(own == null && s != null ? t("%(field)s: slot of %(player)s", { field: label, player: seatName(s) }) : t("%(field)s: slot", { field: label }), slotsOf(s ?? 0),
          { initial: s != null && s === at.seat ? one(at.slot) : [] });
        let slot = null;
        const seat = own == null ? segmented(t("%(field)s: player", { field: label }), seatOptions().filter(([s]) => f.other ? s !== move.data.seat : true),
          { onchange: () => { const next = slotFor(seat.value()); slot.node.replaceWith(next.node); slot = next; }, initial: one(at.seat) }) : null;
        slot = slotFor(own ?? (seat ? seat.value() : null));
        if (seat) box.append(seat.node);
        box.append(slot.node);
        return { node: box, value: () => ({ seat: own ?? seat.value(), slot: slot.value() }) };
      }
      case "rows": {
        const start = (s) => Array.isArray(known) && Array.isArray(known[s]) && !known[s].includes("??") ? known[s] : [];
        const lists = players.map((n, s) => cardList(t("%(player)s's cards", { player: n }), { max: f.max || 12, allowUnknown: !!f.unknown, initial: start(s) }));
        return { node: el("div", {}, ...lists.map((l) => l.node)), value: () => lists.map((l) => l.value()) };
      }
      default: return numberField(label, { idName: `f-${f.name}` });
    }
  }

  /** Cau Robat's optional captures: whose pile and the cards taken, as many as the table saw. */
  function captures(label, initial) {
    const rows = [];
    const list = el("div");
    const add = (at = {}) => {
      const pile = segmented(t("Capture %(n)s: whose pile", { n: rows.length + 1 }), seatOptions(), { initial: at.seat != null ? [at.seat] : [] });
      const cards = cardList(t("Capture %(n)s: cards, bottom to top", { n: rows.length + 1 }), { max: 40, allowUnknown: false, initial: at.cards || [] });
      rows.push({ pile, cards });
      list.append(el("div", { class: "capture" }, pile.node, cards.node));
    };
    initial.forEach(add);
    const more = el("button", { type: "button", class: "button", "data-add-capture": "", text: t("Add a capture"), onclick: () => { add(); } });
    const node = el("fieldset", { class: "captures" }, el("legend", { text: label }),
      el("p", { class: "note", text: t("Optional: what the table saw taken, checked against the rules. Leave it empty if nobody wrote it.") }), list, more);
    return { node, value: () => rows.map((r) => ({ seat: r.pile.value(), cards: r.cards.value() })).filter((c) => c.seat != null && c.cards.length) };
  }

  /** The context games.js SHEET forms take (the score page's ctx()). */
  const sheetContext = ({ standings, teams = null, info = null }) => ({ prefix, players, teams, info, standings, el, segmented, numberField, seatOptions, cardList, matchOptions });

  return { segmented, numberField, cardList, control, seatOptions, sheetContext };
}

/** A choice's value in words (El Roby draws from the stock or the discard); the value stays the API's. */
function choiceWords(value) {
  return ({ stock: t("stock"), discard: t("discard") })[value] || String(value);
}

/** A move's data from its form: the fields asked, over what the entry holds; an optional field left empty is left out. */
export function moveData(base, controls) {
  const data = { ...base };
  for (const [f, c] of controls) {
    const value = c.value();
    const empty = value == null || (Array.isArray(value) && value.length === 0) || (f.kind === "pos" && value.slot == null);
    if (empty && f.optional) { delete data[f.name]; continue; }
    data[f.name] = value;
  }
  return data;
}

/** The first number of a form left empty or out of range, said with its label, and focused; null when all are fine. */
export function fieldProblem(form) {
  for (const input of form.querySelectorAll("input[type=number]")) {
    if (input.closest("[hidden]") || input.validity.valid) continue;
    const label = input.labels.length ? input.labels[0].firstChild.textContent.trim() : t("this number");
    input.focus();
    return input.validity.valueMissing ? t("Write %(field)s first.", { field: label })
      : t("%(field)s: write a whole number from %(min)s to %(max)s.", { field: label, min: input.min, max: input.max });
  }
  return null;
}
