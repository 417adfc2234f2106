// Cards, drawn in one place: the decks' text forms (VOCABULARY.md §3) and how a card looks.

const FRENCH_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SPANISH_SUITS = { o: "oros", c: "copas", e: "espadas", b: "bastos" };
const SPANISH_RANKS = ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"];

/** Every card of a match's deck, with how many copies exist: [{code, copies}]. */
export function deck(game, options = {}) {
  const french = (ranks, copies = 1) => Object.keys(SUITS).flatMap((s) => ranks.map((r) => ({ code: r + s, copies })));
  switch (game) {
    case "la-cabra": return french(["6", "7", "8", "9", "10", "J", "Q", "K", "A"]);
    case "el-roby": return french(FRENCH_RANKS, 2);
    case "cabo": return Array.from({ length: 14 }, (_, v) => ({ code: String(v), copies: v === 0 || v === 13 ? 2 : 4 }));
    case "cau-robat": return spanish();
    case "kabu":
      if (options.deck === "spanish40") return spanish();
      return french(options.deck === "full52" ? FRENCH_RANKS : FRENCH_RANKS.slice(0, 10));
    default: return [];
  }
}
function spanish() { return Object.keys(SPANISH_SUITS).flatMap((s) => SPANISH_RANKS.map((r) => ({ code: r + s, copies: 1 }))); }

/** How a card reads to a screen reader. */
export function cardName(code) {
  if (code === "??" || code == null) return "unseen card";
  const french = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(code);
  if (french) return `${french[1]} of ${{ C: "clubs", D: "diamonds", H: "hearts", S: "spades" }[french[2]]}`;
  const spanish = /^(\d+)([ocbe])$/.exec(code);
  if (spanish) return `${spanish[1]} of ${SPANISH_SUITS[spanish[2]]}`;
  return `card ${code}`;
}

/** The face of a card as text: rank and suit sign. */
export function cardFace(code) {
  if (code === "??" || code == null) return "??";
  const french = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(code);
  if (french) return french[1] + SUITS[french[2]];
  return code;
}

function decorate(el, code) {
  el.classList.add("card");
  if (code === "??" || code == null) el.classList.add("unknown");
  else if (/[DH]$/.test(code)) el.classList.add("red");
  else if (/^\d+[ocbe]$/.test(code)) el.classList.add("spanish", SPANISH_SUITS[code.slice(-1)]);
  el.textContent = cardFace(code);
  el.dataset.card = code ?? "??";
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
