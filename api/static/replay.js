// The replay: step through a match as cards on the table, from a chosen seat's perspective.
// Everything comes from GET /matches/{id}/replay (the frames a script reads); a seat's view of
// a match in play is asked with this browser's write token for the match, and the page shows
// exactly what the API gives. The URL keeps `at`, `seat` and `course`, so a position is shared
// by sending the address; a match in play is followed through GET /matches/{id}/stream.
import { adoptFragmentToken, call, keepToken, tokenFor } from "./api.js";
import { drawTable } from "./table.js";
import { follow } from "./follow.js";
import { $, el, seatNamer } from "./dom.js";
import { number, t } from "./say.js";

const root = $("replay");
const id = root.dataset.match;
const game = root.dataset.game;
const players = JSON.parse(root.dataset.players);
adoptFragmentToken(id);

const params = new URLSearchParams(location.search);
const S = {
  frames: [], index: 0, status: root.dataset.status,
  seat: params.get("seat") || "", course: params.get("course") === "recorded" ? "recorded" : "corrected",
  wanted: Number.parseInt(params.get("at") || "", 10),
};
const seatName = seatNamer(players);
/** Whose view the step is shown from, said whole: "seen by the public", "seen by Anna". */
const seenBy = () => (S.seat === "" ? t("seen by the public") : S.seat === "all" ? t("seen by everyone")
  : t("seen by %(player)s", { player: seatName(Number(S.seat)) }));

// ------------------------------------------------------------------ loading

async function load(notice) {
  const query = new URLSearchParams({ course: S.course });
  if (S.seat !== "") query.set("seat", S.seat);
  const token = S.seat !== "" ? tokenFor(id) : null;
  const answer = await call("GET", `/matches/${id}/replay?${query}`, undefined, { token });
  if (!answer.ok) {
    const why = answer.body && (answer.body.detail || answer.body.title);
    S.asked = S.seat;  // asked again once a key is given
    S.seat = "";
    $("seat").value = "";
    return load(why ? t("Shown as the public sees it: %(why)s.", { why }) : t("Shown as the public sees it."));
  }
  const keep = S.frames.length ? S.frames[S.index].seq : S.wanted;
  S.frames = answer.body.frames;
  S.version = answer.body.version;
  const at = S.frames.findIndex((f) => f.seq === keep);
  S.index = at >= 0 ? at : S.frames.length - 1;
  renderAccess(notice);
  renderJump();
  renderMoves();
  show(S.index, { focusMove: false });
}

/** Say what this view shows, and offer the write key where a seat's view needs it. */
function renderAccess(message) {
  const box = $("access");
  box.replaceChildren();
  if (message) box.append(el("p", { text: message }));
  const inPlay = S.status === "playing";
  if (inPlay && !tokenFor(id) && (S.seat !== "" || message)) {
    const input = el("input", { id: "token-input", autocomplete: "off" });
    box.append(el("p", { text: t("The match is in play: a seat's cards are shown only with the match's write key (the scorer's phone keeps it); without it you see what the public sees.") }),
      el("label", { for: "token-input" }, t("Write key"), input),
      el("button", { type: "button", class: "button", onclick: () => {
        if (!input.value.trim()) return;
        keepToken(id, input.value.trim());
        if (S.asked) { S.seat = S.asked; $("seat").value = S.seat; S.asked = ""; }  // the view refused without the key
        renderAccess();
        load();
      } }, t("Use this key")));
  }
}

// ------------------------------------------------------------------ drawing

function frameLabel(frame) {
  const said = { seq: frame.seq, text: frame.text };
  if (frame.status === "voided") return t("%(seq)s. %(text)s (voided)", said);
  if (frame.status === "amended") return t("%(seq)s. %(text)s (as corrected)", said);
  if (frame.status === "correction") return t("%(seq)s. %(text)s — correction", said);
  return `${frame.seq}. ${frame.text}`;
}

/** A hand (Cabo: a round) on the jump list, with who dealt it. */
function handLabel(hand, dealer) {
  const said = { n: hand, player: dealer == null ? null : seatName(dealer) };
  if (game === "cabo") return dealer == null ? t("Round %(n)s", said) : t("Round %(n)s (%(player)s deals)", said);
  return dealer == null ? t("Hand %(n)s", said) : t("Hand %(n)s (%(player)s deals)", said);
}

/** A trick of a hand on the jump list, with who won it. */
function trickLabel(hand, trick, winner) {
  const said = { n: hand, trick, player: winner == null ? null : seatName(winner) };
  if (game === "cabo") return winner == null ? t("Round %(n)s, trick %(trick)s", said) : t("Round %(n)s, trick %(trick)s: won by %(player)s", said);
  return winner == null ? t("Hand %(n)s, trick %(trick)s", said) : t("Hand %(n)s, trick %(trick)s: won by %(player)s", said);
}

/** Hands and tricks to jump to: a hand starts at its hand_started; a trick ends where its winner is known. */
function landmarks() {
  const out = [];
  let hand = 0;
  let trick = 0;
  S.frames.forEach((frame, index) => {
    if (frame.type === "hand_started" && frame.status !== "voided") {
      hand += 1;
      trick = 0;
      out.push({ index, label: handLabel(hand, frame.data.dealer) });
    } else if ((frame.changed || []).includes("lastTrick") && frame.state.lastTrick) {
      trick += 1;
      const winner = frame.state.lastTrick.winner;
      out.push({ index, label: trickLabel(hand, trick, winner), trick: true });
    }
  });
  return out;
}

function renderJump() {
  const select = $("jump");
  select.replaceChildren(el("option", { value: "", text: t("A hand or a trick…") }));
  for (const mark of landmarks()) select.append(el("option", { value: String(mark.index), text: mark.trick ? `  ${mark.label}` : mark.label }));
}

function renderMoves() {
  const list = $("moves");
  list.replaceChildren();
  const notesFor = notesByTarget();
  S.frames.forEach((frame, index) => {
    const button = el("button", { type: "button", class: `move status-${frame.status}`, "data-seq": frame.seq, onclick: () => show(index) }, frameLabel(frame));
    const item = el("li", { "data-seq": frame.seq }, button);
    for (const note of notesFor.get(frame.seq) || []) item.append(el("span", { class: "note", text: t("Note: %(text)s", { text: note }) }));
    list.append(item);
  });
}

function notesByTarget() {
  const notes = new Map();
  for (const frame of S.frames) {
    if (frame.type === "note" && frame.status !== "voided" && frame.data.target) {
      notes.set(frame.data.target, [...(notes.get(frame.data.target) || []), frame.data.text]);
    }
  }
  return notes;
}

function show(index, { focusMove = true } = {}) {
  if (!S.frames.length) return;
  S.index = Math.max(0, Math.min(index, S.frames.length - 1));
  const frame = S.frames[S.index];
  const slider = $("step");
  slider.max = String(S.frames.length);
  slider.value = String(S.index + 1);
  const at = { n: number(S.index + 1), total: number(S.frames.length), text: frame.text };
  slider.setAttribute("aria-valuetext", t("step %(n)s of %(total)s: %(text)s", at));
  $("position").textContent = t("%(n)s of %(total)s", at);
  $("move").replaceChildren(el("strong", { text: frameLabel(frame) }), el("span", { class: "note", text: ` — ${seenBy()}` }));
  $("move").classList.toggle("irregular", frame.status === "irregular");
  const notes = $("notes");
  notes.replaceChildren(...(notesByTarget().get(frame.seq) || []).map((text) => el("li", { class: "note-at", text: t("Note: %(text)s", { text }) })));
  $("table").replaceChildren(...drawTable(game, frame.state, seatName, () => true));
  $("table").dataset.seq = String(frame.seq);
  for (const button of document.querySelectorAll("#moves button.move")) {
    const current = Number(button.dataset.seq) === frame.seq;
    if (current) button.setAttribute("aria-current", "step"); else button.removeAttribute("aria-current");
    if (current && focusMove) button.scrollIntoView({ block: "nearest" });
    else if (current) { const list = $("moves"); list.scrollTop = button.offsetTop - list.offsetTop - list.clientHeight / 2; }  // the list's own scroll only
  }
  // a button pressed to the end disables itself: the focus moves to the way back instead of the page's top
  const atStart = S.index === 0;
  const atEnd = S.index === S.frames.length - 1;
  const active = document.activeElement;
  if (atEnd && !atStart && (active === $("next") || active === $("last"))) $("prev").focus();
  if (atStart && !atEnd && (active === $("prev") || active === $("first"))) $("next").focus();
  $("first").disabled = $("prev").disabled = atStart;
  $("next").disabled = $("last").disabled = atEnd;
  remember();
}

/** Keep the position in the address, so it can be sent to someone. */
function remember() {
  const query = new URLSearchParams();
  query.set("at", String(S.frames[S.index].seq));
  if (S.seat !== "") query.set("seat", S.seat);
  if (S.course !== "corrected") query.set("course", S.course);
  history.replaceState(null, "", `${location.pathname}?${query}`);
}

// ------------------------------------------------------------------ controls

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(S.index - 1));
$("next").addEventListener("click", () => show(S.index + 1));
$("last").addEventListener("click", () => show(S.frames.length - 1));
$("step").addEventListener("input", (event) => show(Number(event.target.value) - 1, { focusMove: false }));
$("jump").addEventListener("change", (event) => { if (event.target.value !== "") show(Number(event.target.value)); });
$("seat").addEventListener("change", (event) => { S.seat = event.target.value; load(); });
$("course").addEventListener("change", (event) => { S.course = event.target.value; load(); });
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
  if (target instanceof HTMLInputElement) return;  // the slider steps itself; text fields keep their keys
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const moves = { ArrowLeft: S.index - 1, ArrowRight: S.index + 1, Home: 0, End: S.frames.length - 1 };
  if (event.key in moves) { event.preventDefault(); show(moves[event.key]); }
});

// ------------------------------------------------------------------ following a match in play

/** Follow the stream: each appended event brings its frames; a reader at the latest step moves on with it. */
function startFollowing() {
  if (S.status !== "playing" || typeof EventSource === "undefined") return;
  follow(id, S.version, () => catchUp(), { onLive: (on) => { $("live").hidden = !on; } });
}

let catching = null;
async function catchUp() {
  if (catching) { catching.again = true; return; }
  catching = { again: false };
  try {
    do {
      catching.again = false;
      const atEnd = S.index === S.frames.length - 1;
      const last = S.frames.length ? S.frames[S.frames.length - 1].seq : 0;
      const query = new URLSearchParams({ course: S.course, start: String(last + 1) });
      if (S.seat !== "") query.set("seat", S.seat);
      const answer = await call("GET", `/matches/${id}/replay?${query}`, undefined, { token: S.seat !== "" ? tokenFor(id) : null });
      if (!answer.ok) break;
      const fresh = answer.body.frames.filter((f) => f.seq > last);
      if (!fresh.length) continue;
      if (fresh.some((f) => f.type === "void" || f.type === "amend")) { await load(); continue; }  // a correction rewrites earlier steps
      S.frames.push(...fresh);
      renderJump();
      renderMoves();
      show(atEnd ? S.frames.length - 1 : S.index, { focusMove: false });
    } while (catching.again);
  } finally {
    catching = null;
  }
}

$("seat").value = S.seat;
$("course").value = S.course;
load().then(startFollowing);
