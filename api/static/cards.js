// Cards, drawn in one place: how a card of each deck's text form (VOCABULARY.md §3) looks and reads.
// Which cards a match's deck holds is the engine's (GET /games/{game} ``cards``, games.js ``deck``).

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SPANISH_SUITS = { o: "oros", c: "copas", e: "espadas", b: "bastos" };
// what players call the Spanish deck's figures (the cards print 10, 11, 12 beside them)
const SPANISH_FIGURES = { 1: "as", 10: "sota", 11: "caballo", 12: "rey" };
const SPANISH_FACES = { 10: "sota", 11: "cab.", 12: "rey" };

/** How a card reads to a screen reader. */
export function cardName(code) {
  if (code === "??" || code == null) return "unseen card";
  const french = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(code);
  if (french) return `${french[1]} of ${{ C: "clubs", D: "diamonds", H: "hearts", S: "spades" }[french[2]]}`;
  const spanish = /^(\d+)([ocbe])$/.exec(code);
  if (spanish) return `${SPANISH_FIGURES[spanish[1]] || spanish[1]} de ${SPANISH_SUITS[spanish[2]]}`;
  return `card ${code}`;
}

/** The face of a card as text: rank and suit sign. */
export function cardFace(code) {
  if (code === "??" || code == null) return "??";
  const french = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(code);
  if (french) return french[1] + SUITS[french[2]];
  const spanish = /^(\d+)([ocbe])$/.exec(code);
  if (spanish) return `${SPANISH_FIGURES[spanish[1]] || spanish[1]} de ${SPANISH_SUITS[spanish[2]]}`;  // in running text; a card drawn shows its suit
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
  if (spanish) el.replaceChildren(SPANISH_FACES[spanish[1]] || spanish[1], suitIcon(spanish[2]));
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
