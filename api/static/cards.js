// Cards, drawn in one place: how a card of each deck's text form (VOCABULARY.md §3) looks and reads.
// Which cards a match's deck holds is the engine's (GET /games/{game} ``cards``, games.js ``deck``).
import { lang, t } from "./say.js";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SPANISH_SUITS = { o: "oros", c: "copas", e: "espadas", b: "bastos" };
// what players call the Spanish deck's figures (the cards print 10, 11, 12 beside them)
const SPANISH_FIGURES = { 1: "as", 10: "sota", 11: "caballo", 12: "rey" };
/** The figures' short names printed on a drawn card, in the reader's language (Catalan "cav.", "rei"). */
const spanishFaces = () => ({ 10: t("sota"), 11: t("cab."), 12: t("rey") });

const FRENCH_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SPANISH_RANKS = ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"];
let spokenNames = null;
/** A card's name as the server says it in the reader's language ("dama de picas", "Pik-Dame",
 * "cavall de bastos"): the catalogs' spoken names (engines/cards.py spoken_names), each id written
 * out here so that it is extracted from this script and its translation reaches the page. By suit
 * and rank, so that no card's code is written in this file (a spectator's tests look for them). */
function spoken(code) {
  spokenNames = spokenNames || {
    C: [t("A♣"), t("2♣"), t("3♣"), t("4♣"), t("5♣"), t("6♣"), t("7♣"), t("8♣"), t("9♣"), t("10♣"), t("J♣"), t("Q♣"), t("K♣")],
    D: [t("A♦"), t("2♦"), t("3♦"), t("4♦"), t("5♦"), t("6♦"), t("7♦"), t("8♦"), t("9♦"), t("10♦"), t("J♦"), t("Q♦"), t("K♦")],
    H: [t("A♥"), t("2♥"), t("3♥"), t("4♥"), t("5♥"), t("6♥"), t("7♥"), t("8♥"), t("9♥"), t("10♥"), t("J♥"), t("Q♥"), t("K♥")],
    S: [t("A♠"), t("2♠"), t("3♠"), t("4♠"), t("5♠"), t("6♠"), t("7♠"), t("8♠"), t("9♠"), t("10♠"), t("J♠"), t("Q♠"), t("K♠")],
    o: [t("as de oros"), t("2 de oros"), t("3 de oros"), t("4 de oros"), t("5 de oros"), t("6 de oros"), t("7 de oros"), t("sota de oros"), t("caballo de oros"), t("rey de oros")],
    c: [t("as de copas"), t("2 de copas"), t("3 de copas"), t("4 de copas"), t("5 de copas"), t("6 de copas"), t("7 de copas"), t("sota de copas"), t("caballo de copas"), t("rey de copas")],
    e: [t("as de espadas"), t("2 de espadas"), t("3 de espadas"), t("4 de espadas"), t("5 de espadas"), t("6 de espadas"), t("7 de espadas"), t("sota de espadas"), t("caballo de espadas"), t("rey de espadas")],
    b: [t("as de bastos"), t("2 de bastos"), t("3 de bastos"), t("4 de bastos"), t("5 de bastos"), t("6 de bastos"), t("7 de bastos"), t("sota de bastos"), t("caballo de bastos"), t("rey de bastos")],
  };
  const french = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(code);
  if (french) return spokenNames[french[2]][FRENCH_RANKS.indexOf(french[1])];
  const spanish = /^(\d+)([ocbe])$/.exec(code);
  return spanish ? spokenNames[spanish[2]][SPANISH_RANKS.indexOf(spanish[1])] : undefined;
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
  o: [["circle", { cx: 6, cy: 8, r: 5.5, fill: "currentColor" }], ["circle", { cx: 6, cy: 8, r: 2.5, fill: "none", stroke: "#fffbe8", "stroke-width": 1.2, class: "hole" }]],
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
  const spanish = /^(\d+)([ocbe])$/.exec(code || "");
  if (spanish) el.replaceChildren(spanishFaces()[spanish[1]] || spanish[1], suitIcon(spanish[2]));
  else if (/[CDHS]$/.test(code || "")) {
    // a French card's printed index, "Q♠", the same in every language (as the text notation is); the
    // card is named in the reader's language by its label
    const face = document.createElement("span");
    face.dataset.untranslated = "";
    face.setAttribute("aria-hidden", "true");
    face.textContent = cardFace(code);
    el.replaceChildren(face);
  } else el.textContent = cardFace(code);
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
