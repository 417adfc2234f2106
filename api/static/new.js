// New match: pick a game (GET /games), seat the players, options (GET /games/{game}), then POST /matches.
import { call, get, keepToken, problemDetails, problemText } from "./api.js";
import { $, el } from "./dom.js";
import { qrSvg } from "./qr.js";
import { optionWords, valueWords } from "./words.js";
import { number, t, tn } from "./say.js";

const DEFAULT_NAMES = ["Anna", "Ben", "Carl", "Dora", "Eva", "Fran", "Gus", "Hugo", "Ines", "Joan"];
let games = [];
let game = null;      // GET /games/{game}
const metaFields = ["title", "date", "place", "tags"];  // match_started's optional names for the match
let dealer = 0;

/** A sentence with page elements in it: the translated ``text``'s %(name)s placeholders become
 * ``parts[name]`` (a node or a string), so each language keeps its own word order around them. */
function sentence(text, parts) {
  return text.split(/%\((\w+)\)s/).map((piece, i) => (i % 2 ? parts[piece] ?? "" : piece)).filter((piece) => piece !== "");
}

/** How many play a game: "4 players", "2–5 players". */
function playerCount(r) {
  return r.min === r.max ? tn("%(n)s player", "%(n)s players", r.min)
    : t("%(min)s–%(max)s players", { min: number(r.min), max: number(r.max) });
}

const way = (cw) => (cw ? t("clockwise") : t("anticlockwise"));

function range(info) {
  const p = info.players;
  return { min: p.min, max: p.max };
}

async function loadGames() {
  const result = await get("/games");
  $("games-loading").remove();
  games = result.body.games;
  for (const g of games) {
    const r = range(g);
    const input = el("input", { type: "radio", name: "game", value: g.game, id: `game-${g.game}` });
    input.addEventListener("change", () => pickGame(g.game));
    const label = el("label", { class: "game-choice", for: `game-${g.game}` }, input,
      el("strong", { text: g.name }),
      el("span", { class: "note", text: [playerCount(r), g.deck, way(g.direction === "CW"), g.teams ? t("two teams") : null].filter(Boolean).join(" · ") }));
    $("games").append(label);
  }
}

async function pickGame(id) {
  const result = await get(`/games/${id}`);
  game = result.body;
  const r = range(game);
  const count = Math.min(Math.max(r.min, 4), r.max);
  $("players").replaceChildren();
  for (let i = 0; i < count; i++) addPlayer(DEFAULT_NAMES[i]);
  dealer = 0;
  renderOptions();
  for (const id of ["seating", "details", "options"]) $(id).hidden = false;
  $("create").disabled = false;
  refreshSeating();
}

function names() { return [...$("players").querySelectorAll("input[type=text]")].map((i) => i.value.trim()); }

function addPlayer(name) {
  const n = $("players").children.length;
  const input = el("input", { type: "text", id: `player-${n}`, value: name || "", autocomplete: "off", "aria-label": t("Seat %(seat)s: name", { seat: n + 1 }) });
  input.addEventListener("input", refreshSeating);
  const radio = el("input", { type: "radio", name: "dealer", id: `dealer-${n}`, value: String(n) });
  radio.addEventListener("change", () => { dealer = n; refreshSeating(); });
  const li = el("li", {}, el("div", { class: "row" }, input, el("label", { class: "inline", for: `dealer-${n}` }, radio, t("deals first"))));
  $("players").append(li);
}

function refreshSeating() {
  const list = names();
  const r = range(game);
  $("add-player").disabled = list.length >= r.max;
  $("remove-player").disabled = list.length <= r.min;
  if (dealer >= list.length) dealer = 0;
  const radio = $(`dealer-${dealer}`);
  if (radio) radio.checked = true;
  const cw = game.direction === "CW";
  const order = cw ? t("Write the players in the order of play (clockwise), starting with anyone.")
    : t("Write the players in the order of play (anticlockwise), starting with anyone.");
  const partners = game.teams ? t("Partners sit opposite: seats 1 and 3 against seats 2 and 4.") : null;
  $("seating-help").textContent = partners ? `${order} ${partners}` : order;
  const diagram = $("diagram");
  diagram.replaceChildren(el("span", { class: "arrow", text: cw ? "↻" : "↺" }));
  list.forEach((name, i) => {
    const angle = Math.PI / 2 + (cw ? 1 : -1) * (2 * Math.PI * i) / list.length;
    const seat = el("span", { class: "seat" + (i === dealer ? " dealer" : ""), text: `${i + 1}. ${name || "?"}` });
    seat.style.left = `${50 + 42 * Math.cos(angle)}%`;
    seat.style.top = `${50 + 42 * Math.sin(angle)}%`;
    diagram.append(seat);
  });
  if (game.game === "kabu") renderChips();
  const seats = list.map((n, i) => n || t("seat %(seat)s", { seat: i + 1 })).join(" → ");
  const goes = cw ? t("Play goes clockwise: %(seats)s.", { seats }) : t("Play goes anticlockwise: %(seats)s.", { seats });
  const first = list[dealer] ? t("%(player)s deals first.", { player: list[dealer] }) : t("Seat %(seat)s deals first.", { seat: dealer + 1 });
  $("diagram-caption").textContent = `${goes} ${first}`;
}

function renderOptions() {
  const box = $("option-list");
  box.replaceChildren();
  const options = Object.entries(game.options || {});
  if (!options.length) box.append(el("p", { class: "note", text: t("This game has no options.") }));
  // the match's end (Kabú: insolvency or an agreed time; Cau Robat: hand wins, ties): match_started.target
  for (const [name, spec] of Object.entries(targetSpecs())) box.append(optionRow(name, spec, "target"));
  for (const [name, spec] of options) box.append(optionRow(name, spec, "option"));
  renderChips();
}

/** The target fields a player chooses (Kabú's ``end``, Cau Robat's ``wins`` and ``tie``); fixed targets are not asked. */
function targetSpecs() {
  if (game.targetOptions) return game.targetOptions;
  const t = game.target || {};
  return Object.fromEntries(Object.entries(t).filter(([, v]) => v && typeof v === "object" && "default" in v));
}

/** One option: a player's name and sentence; the API's key, values and the engine's wording in "details". */
function optionRow(name, spec, role) {
    const id = `${role === "target" ? "target" : "opt"}-${name}`;
    let control;
    if (spec.type === "boolean") {
      control = el("input", { type: "checkbox", id, [`data-${role}`]: name, "data-kind": "boolean" });
      control.checked = !!spec.default;
    } else if (spec.values) {
      control = el("select", { id, [`data-${role}`]: name, "data-kind": typeof spec.values[0] === "number" ? "number" : "string" });
      for (const v of spec.values) control.append(el("option", { value: String(v), text: v === spec.default ? t("%(value)s (usual)", { value: valueWords(name, v) }) : valueWords(name, v), selected: v === spec.default }));
    } else {
      control = el("input", { type: "number", id, [`data-${role}`]: name, "data-kind": "number", value: String(spec.default ?? ""), min: spec.minimum, max: spec.maximum });
    }
    const words = optionWords(game.game, name);
    const title = words ? words[0] : name;
    const label = spec.type === "boolean"
      ? el("label", { class: "inline", for: id }, control, title)
      : el("label", { for: id }, title, control);
    const byDefault = spec.default == null ? ""
      : spec.type === "boolean" ? (spec.default ? t("Ticked unless you untick it.") : t("Not ticked unless you tick it.")) : t("Usually: %(value)s.", { value: valueWords(name, spec.default) });
    const said = words ? words[1] : /[.!?]$/.test(spec.description) ? spec.description : `${spec.description}.`;
    const engine = (/[.!?]$/.test(spec.description) ? spec.description : `${spec.description}.`).replace(/^./, (c) => c.toUpperCase());
    // the API's key and values as they are written in the record, and the engine's own sentence
    // the key and its values are the record's, the same in every language (data-untranslated)
    const key = el("code", { text: `${role === "target" ? "target." : ""}${name}`, "data-untranslated": "" });
    const values = spec.values ? el("span", { text: spec.values.map(String).join(", "), "data-untranslated": "" }) : null;
    const description = engine.replace(/; null: no limit\.$/, t("; blank: no limit."));
    const inRecord = values ? t("In the record: %(key)s (%(values)s): %(description)s", { description })
      : t("In the record: %(key)s: %(description)s", { description });
    const details = el("details", { class: "option-details" }, el("summary", { text: t("Details") }),
      el("p", { class: "note" }, ...sentence(inRecord, { key, values })));
    return el("div", { class: "option" }, label, el("p", { class: "note" }, `${said}${byDefault ? ` ${byDefault}` : ""} `,
      spec.rule ? el("a", { href: spec.rule, text: t("The rule") }) : ""), details);
}

/** Kabú: each player's chips at the start (match_started.initial.chips); 10 + 15 per player each unless the table says otherwise. */
function renderChips() {
  const box = $("chips");
  const kabu = game && game.game === "kabu";
  box.hidden = !kabu;
  if (!kabu) { box.querySelector("#chip-list").replaceChildren(); return; }
  const list = names();
  const usual = 10 + 15 * list.length;
  const typed = [...box.querySelectorAll("input[data-chips]")].map((i) => (i.dataset.edited ? i.value : null));
  $("chips-help").textContent = t("Each player's chips when the game starts. Usually %(usual)s each with %(n)s players (ten 1s and %(n)s 5s and 10s); change them for a game carried on from paper.",
    { usual: number(usual), n: number(list.length) });
  box.querySelector("#chip-list").replaceChildren(...list.map((n, i) => {
    const input = el("input", { type: "number", id: `chips-${i}`, min: 0, inputmode: "numeric", "data-chips": String(i), value: typed[i] ?? String(usual) });
    if (typed[i] != null) input.dataset.edited = "1";
    input.addEventListener("input", () => { input.dataset.edited = "1"; });
    return el("label", { for: `chips-${i}` }, n ? t("%(player)s: chips", { player: n }) : t("Seat %(seat)s: chips", { seat: i + 1 }), input);
  }));
}

function chipsChosen() {
  if (!game || game.game !== "kabu") return null;
  const usual = 10 + 15 * names().length;
  const chips = [...$("chips").querySelectorAll("input[data-chips]")].map((i) => (i.value.trim() === "" ? usual : Number(i.value)));
  return chips.every((c) => c === usual) ? null : chips;
}

function targetChosen() {
  const out = {};
  for (const control of $("option-list").querySelectorAll("[data-target]")) {
    const name = control.dataset.target;
    const spec = targetSpecs()[name];
    const value = control.dataset.kind === "boolean" ? control.checked : control.dataset.kind === "number"
      ? (control.value.trim() === "" ? spec.default : Number(control.value)) : control.value;
    if (value !== spec.default) out[name] = value;
  }
  if (!Object.keys(out).length) return null;
  // a target given in part takes the other fields' defaults
  for (const [name, spec] of Object.entries(targetSpecs())) if (!(name in out)) out[name] = spec.default;
  return out;
}

function optionsChosen() {
  const out = {};
  for (const control of $("option-list").querySelectorAll("[data-option]")) {
    const name = control.dataset.option;
    const spec = game.options[name];
    let value;
    if (control.dataset.kind === "boolean") value = control.checked;
    else if (control.dataset.kind === "number") {
      // a number left blank is the option's default: for the correction window, no limit (null), never 0
      if (control.value.trim() === "") continue;
      value = Number(control.value);
    }
    else value = control.value;
    if (value !== spec.default) out[name] = value;
  }
  return out;
}

async function create(event) {
  event.preventDefault();
  const body = { game: game.game, players: names(), options: optionsChosen() };
  const target = targetChosen();
  if (target) body.target = target;
  const chips = chipsChosen();
  if (chips) body.initial = { chips };
  for (const f of metaFields) {
    const value = $(f).value.trim();
    if (!value) continue;
    body[f] = f === "tags" ? value.split(",").map((t) => t.trim()).filter(Boolean) : value;
  }
  $("create").disabled = true;
  const result = await call("POST", "/matches", body);
  $("create").disabled = false;
  if (!result.ok) {
    $("create-error").hidden = false;
    if (result.offline) $("create-error").textContent = t("The server cannot be reached; nothing was created.");
    else $("create-error").replaceChildren(problemText(result.body).message, problemDetails(result.body) || "");
    return;
  }
  const { id, token } = result.body;
  keepToken(id, token);
  localStorage.setItem(`tanteo:firstDealer:${id}`, String(dealer));
  // the configured public address (tanteo serve --public-url), else the address this browser used
  const origin = $("created").dataset.publicUrl || location.origin;
  const scoring = `${origin}/m/${id}/score`;
  $("token").textContent = token;
  $("start-scoring").href = `/m/${id}/score`;
  $("handover-qr").replaceChildren(qrSvg(`${scoring}#token=${encodeURIComponent(token)}`,
    t("QR code: open this match for scoring on another phone, with its write key")));
  const local = !$("created").dataset.publicUrl && ["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
  // the address is the same in every language (data-untranslated): a link's path, not words
  const opens = sentence(t("The code opens %(address)s on the other phone."), { address: el("span", { text: scoring, "data-untranslated": "" }) });
  $("handover-where").replaceChildren(...opens, ...(local
    ? [" ", ...sentence(t("That address works only on this machine: whoever runs the server can give it an address other phones reach (%(command)s)."),
      { command: el("code", { class: "nowrap", text: "tanteo serve --public-url" }) })] : []));
  $("new-match").hidden = true;
  $("created").hidden = false;
  $("created-title").focus();
}

$("add-player").addEventListener("click", () => { addPlayer(DEFAULT_NAMES[names().length] || ""); refreshSeating(); });
$("remove-player").addEventListener("click", () => { $("players").lastElementChild.remove(); refreshSeating(); });
$("new-match").addEventListener("submit", create);
loadGames();
