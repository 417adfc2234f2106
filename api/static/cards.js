// Cards, drawn in one place: how a card of each deck's text form (VOCABULARY.md §3) looks and reads.
// Which cards a match's deck holds is the engine's (GET /games/{game} ``cards``, games.js ``deck``).
import { lang, t } from "./say.js";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SPANISH_SUITS = { o: "oros", c: "copas", e: "espadas", b: "bastos" };
// what players call the Spanish deck's figures (the cards print 10, 11, 12 beside them)
const SPANISH_FIGURES = { 1: "as", 10: "sota", 11: "caballo", 12: "rey" };
/** The figures' short names printed on a drawn card, in the reader's language (Catalan "cav.", "rei"). */
const spanishFaces = () => ({ 10: t("sota"), 11: t("cab."), 12: t("rey") });

let spokenNames = null;
/** A card's name as the server says it in the reader's language ("dama de picas", "Pik-Dame",
 * "cavall de bastos"): the catalogs' spoken names (engines/cards.py spoken_names), each id written
 * out here so that it is extracted from this script and its translation reaches the page. */
function spoken(code) {
  spokenNames = spokenNames || {
    "AC": t("A♣"), "2C": t("2♣"), "3C": t("3♣"), "4C": t("4♣"), "5C": t("5♣"), "6C": t("6♣"), "7C": t("7♣"), "8C": t("8♣"), "9C": t("9♣"), "10C": t("10♣"), "JC": t("J♣"), "QC": t("Q♣"), "KC": t("K♣"),
    "AD": t("A♦"), "2D": t("2♦"), "3D": t("3♦"), "4D": t("4♦"), "5D": t("5♦"), "6D": t("6♦"), "7D": t("7♦"), "8D": t("8♦"), "9D": t("9♦"), "10D": t("10♦"), "JD": t("J♦"), "QD": t("Q♦"), "KD": t("K♦"),
    "AH": t("A♥"), "2H": t("2♥"), "3H": t("3♥"), "4H": t("4♥"), "5H": t("5♥"), "6H": t("6♥"), "7H": t("7♥"), "8H": t("8♥"), "9H": t("9♥"), "10H": t("10♥"), "JH": t("J♥"), "QH": t("Q♥"), "KH": t("K♥"),
    "AS": t("A♠"), "2S": t("2♠"), "3S": t("3♠"), "4S": t("4♠"), "5S": t("5♠"), "6S": t("6♠"), "7S": t("7♠"), "8S": t("8♠"), "9S": t("9♠"), "10S": t("10♠"), "JS": t("J♠"), "QS": t("Q♠"), "KS": t("K♠"),
    "1o": t("as de oros"), "2o": t("2 de oros"), "3o": t("3 de oros"), "4o": t("4 de oros"), "5o": t("5 de oros"), "6o": t("6 de oros"), "7o": t("7 de oros"), "10o": t("sota de oros"), "11o": t("caballo de oros"), "12o": t("rey de oros"),
    "1c": t("as de copas"), "2c": t("2 de copas"), "3c": t("3 de copas"), "4c": t("4 de copas"), "5c": t("5 de copas"), "6c": t("6 de copas"), "7c": t("7 de copas"), "10c": t("sota de copas"), "11c": t("caballo de copas"), "12c": t("rey de copas"),
    "1e": t("as de espadas"), "2e": t("2 de espadas"), "3e": t("3 de espadas"), "4e": t("4 de espadas"), "5e": t("5 de espadas"), "6e": t("6 de espadas"), "7e": t("7 de espadas"), "10e": t("sota de espadas"), "11e": t("caballo de espadas"), "12e": t("rey de espadas"),
    "1b": t("as de bastos"), "2b": t("2 de bastos"), "3b": t("3 de bastos"), "4b": t("4 de bastos"), "5b": t("5 de bastos"), "6b": t("6 de bastos"), "7b": t("7 de bastos"), "10b": t("sota de bastos"), "11b": t("caballo de bastos"), "12b": t("rey de bastos"),
  };
  return spokenNames[code];
}

/** How a card reads to a screen reader. */
export function cardName(code) {
  if (code === "??" || code == null) return t("unseen card");
  const said = lang === "en" ? null : spoken(code);
  if (said) return said;
  const french = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(code);
  if (french) return `${french[1]} of ${{ C: "clubs", D: "diamonds", H: "hearts", S: "spades" }[french[2]]}`;
  const spanish = /^(\d+)([ocbe])$/.exec(code);
  if (spanish) return `${SPANISH_FIGURES[spanish[1]] || spanish[1]} de ${SPANISH_SUITS[spanish[2]]}`;
  return t("card %(code)s", { code });
}

/** The face of a card as text: rank and suit sign; a Spanish card in words, in the reader's language. */
export function cardFace(code) {
  if (code === "??" || code == null) return "??";
  const french = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(code);
  if (french) return french[1] + SUITS[french[2]];
  const spanish = /^(\d+)([ocbe])$/.exec(code);
  if (spanish) {  // in running text; a card drawn shows its suit
    const said = lang === "en" ? null : spoken(code);
    return said || `${SPANISH_FIGURES[spanish[1]] || spanish[1]} de ${SPANISH_SUITS[spanish[2]]}`;
  }
  return code;
}

const SVG = "http://www.w3.org/2000/svg";
/** The Spanish suits drawn, not lettered: a gold coin, a cup, a sword, a club (12×16, currentColor). */
const SUIT_SHAPES = {
  o: [["circle", { cx: 6, cy: 8, r: 5.5, fill: "currentColor" }], ["circle", { cx: 6, cy: 8, r: 2.5, fill: "none", stroke: "#fffbe8", "stroke-width": 1.2 }]],
  c: [["path", { d: "M1 2h10c0 4-2 6-4 6.5V12h2.5v2h-7v-2H5V8.5C3 8 1 6 1 2z", fill: "currentColor" }]],
  e: [["path", { d: "M6 0.5l1.3 2V10h-2.6V2.5z", fill: "currentColor" }], ["rect", { x: 1.5, y: 10, width: 9, height: 1.6, fill: "currentColor" }],
    ["rect", { x: 5.2, y: 11.6, width: 1.6, height: 3.9, fill: "currentColor" }]],
  b: [["path", { d: "M3.2 2.6C3.2.4 8.8.4 8.8 2.6L7.1 14.6c-.2 1.2-2 1.2-2.2 0z", fill: "currentColor" }],
    ["circle", { cx: 3.3, cy: 6, r: 1.2, fill: "currentColor" }], ["circle", { cx: 8.4, cy: 8.6, r: 1.1, fill: "currentColor" }]],
};

function suitIcon(letter) {
  const svg = document.createElementNS(SVG, "svg");
  for (const [k, v] of Object.entries({ viewBox: "0 0 12 16", width: 15, height: 20, class: "suit", "aria-hidden": "true", focusable: "false" })) svg.setAttribute(k, v);
  for (const [tag, attrs] of SUIT_SHAPES[letter]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) shape.setAttribute(k, v);
    svg.append(shape);
  }
  return svg;
}

function decorate(el, code) {
  el.classList.add("card");
  if (code === "??" || code == null) el.classList.add("unknown");
  else if (/[DH]$/.test(code)) el.classList.add("red");
  else if (/^\d+[ocbe]$/.test(code)) el.classList.add("spanish", SPANISH_SUITS[code.slice(-1)]);
  el.textContent = cardFace(code);
  const spanish = /^(\d+)([ocbe])$/.exec(code || "");
  if (spanish) el.replaceChildren(spanishFaces()[spanish[1]] || spanish[1], suitIcon(spanish[2]));
  el.dataset.card = code ?? "??";
}

/** Draw ``code`` on an existing card element (a deal's place whose card changes). */
export function paintCard(el, code) {
  el.className = "";
  decorate(el, code);
}

/** A card to look at. */
export function cardEl(code) {
  const el = document.createElement("span");
  decorate(el, code);
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(code));
  return el;
}

/** A card to press (in a picker or a chosen list). */
export function cardButton(code, label) {
  const el = document.createElement("button");
  el.type = "button";
  decorate(el, code);
  el.setAttribute("aria-label", label || cardName(code));
  return el;
}

/** A row of cards. */
export function cardsEl(codes) {
  const row = document.createElement("span");
  row.className = "cards";
  for (const code of codes) row.append(cardEl(code));
  return row;
}

/** Count the cards a state shows anywhere (lists of card codes), to grey them in a picker. */
export function placedCounts(value, known, counts = new Map()) {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === "string" && known.has(item)) counts.set(item, (counts.get(item) || 0) + 1);
      else placedCounts(item, known, counts);
    }
  } else if (value && typeof value === "object") {
    for (const item of Object.values(value)) placedCounts(item, known, counts);
  }
  return counts;
}
