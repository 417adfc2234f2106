// A player's own page (issue 31): the seat key the scorer handed over (#key=…, kept in this
// browser's localStorage and cleared from the address bar), a key pair of this phone's own
// (WebCrypto ECDSA P-256, the private half not extractable, kept in IndexedDB), each scored hand
// explained in the reader's language, and for each hand this seat has not confirmed: Confirm (the
// hand's result signed over its canonical JSON, docs/VOCABULARY.md §4 confirm) or Contest (a
// dispute for this seat). It follows the match live. Everything through the JSON API with the
// seat key, as a script would.
import { call, get, newKey, problemDetails, problemText } from "./api.js";
import { canonicalBytes } from "./canonical.js";
import { $, el, listed, seatNamer } from "./dom.js";
import { follow } from "./follow.js";
import { t } from "./say.js";

const root = $("seat-page");
const id = root.dataset.match;
const seat = Number(root.dataset.seat);
const KEY = `tanteo:seatkey:${id}:${seat}`;
const S = { summary: null, audit: null, open: new Set(), busy: false };

/** Take a seat key handed over in the URL fragment (#key=…), keep it, and clear it from the address bar. */
function adoptFragmentKey() {
  const found = /(?:^#|&)key=([^&]+)/.exec(location.hash);
  if (found) {
    localStorage.setItem(KEY, decodeURIComponent(found[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
}
adoptFragmentKey();
const seatKey = () => localStorage.getItem(KEY);
const canSign = () => Boolean(window.isSecureContext && window.crypto && crypto.subtle && window.indexedDB);

// ------------------------------------------------------------------ this phone's key pair

function b64url(bytes) {
  let text = "";
  for (const b of new Uint8Array(bytes)) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function sha256hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The IndexedDB store of this browser's seat key pairs, one per match and seat. */
function store(mode, work) {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open("tanteo-seats", 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore("pairs");
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const db = opening.result;
      const tx = db.transaction("pairs", mode);
      const request = work(tx.objectStore("pairs"));
      tx.oncomplete = () => { db.close(); resolve(request.result); };
      tx.onerror = () => { db.close(); reject(tx.error); };
    };
  });
}
const PAIR = `${id}:${seat}`;
const readPair = () => store("readonly", (s) => s.get(PAIR));
const keepPair = (record) => store("readwrite", (s) => s.put(record, PAIR));

/** This phone's key pair for the seat, made on first open, and registered with the seat (again
 * when the scorer gave the seat a new key, or when the server has no signer for it). */
async function ensureSigner() {
  let record = await readPair();
  if (!record) {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
    record = { pair, registeredWith: null };
    await keepPair(record);
  }
  const keyHash = await sha256hex(seatKey());
  const mine = (S.summary.seats || []).find((s) => s.seat === seat);
  if (record.registeredWith === keyHash && (!mine || mine.hasSigner)) return record;
  const jwk = await crypto.subtle.exportKey("jwk", record.pair.publicKey);
  const publicKey = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
  const result = await call("POST", `/matches/${id}/seats/${seat}/signer`, { publicKey }, { token: seatKey(), key: newKey() });
  if (!result.ok) { refuse(result); return null; }
  record = { ...record, registeredWith: keyHash };
  await keepPair(record);
  return record;
}

// ------------------------------------------------------------------ reading and drawing

const seatName = seatNamer(() => (S.summary ? S.summary.players : []));

async function refresh() {
  const [summary, audit] = await Promise.all([get(`/matches/${id}`), get(`/matches/${id}/audit`)]);
  if (!summary.ok || !audit.ok) { if (summary.offline || audit.offline) say(t("The server cannot be reached.")); return; }
  S.summary = summary.body; S.audit = audit.body;
  render();
}

function say(text) { $("seat-state").textContent = text; }

function refuse(result) {
  const box = $("seat-refusal");
  box.hidden = false;
  if (result.offline) { box.textContent = t("The server cannot be reached."); return; }
  box.replaceChildren(el("span", { text: problemText(result.body).message }), problemDetails(result.body) || "");
}

const confirmedBy = (hand, s) => (hand.confirmations || []).some((c) => c.seat === s && c.valid !== false);
const disputeOf = (hand) => (S.audit.disputes || []).filter((d) => d.hand === hand.hand && d.seat === seat);
const STATE_WORDS = { open: t("open, waiting for a ruling"), upheld: t("upheld"), rejected: t("rejected"), withdrawn: t("withdrawn") };

function render() {
  $("seat-hands-section").hidden = false;
  const hands = S.audit.hands.filter((h) => h.status === "scored" || (h.confirmations || []).length);
  $("seat-none").hidden = hands.length > 0;
  $("seat-hands").replaceChildren(...hands.map(handBox));
}

function handBox(hand) {
  const n = hand.hand;
  const box = el("article", { class: "seat-hand", id: `seat-hand-${n}`, "aria-labelledby": `seat-hand-${n}-title` },
    el("h3", { id: `seat-hand-${n}-title`, text: t("Hand %(hand)s", { hand: n }) }));
  box.append(el("ul", { class: "lines" }, ...(hand.lines || []).map((line) => {
    const who = line.name ?? (line.seat != null ? seatName(line.seat) : null);
    return el("li", {}, ...(who != null ? [el("strong", { text: line.points != null ? t("%(who)s %(points)s:", { who, points: line.points }) : t("%(who)s:", { who }) }), " "] : []),
      line.reason);
  })));
  const confirmed = (hand.confirmations || []).filter((c) => c.valid !== false);
  if (confirmed.length) box.append(el("p", { class: "confirmed", text: t("Confirmed: %(players)s.", { players: listed(confirmed.map((c) => `✓ ${c.name || seatName(c.seat)}`)) }) }));
  if ((hand.needs || []).length) box.append(el("p", { class: "needs", text: t("Still to confirm: %(players)s.", { players: listed(hand.needs.map(seatName)) }) }));
  for (const d of disputeOf(hand)) {
    box.append(el("p", { class: `contested state-${d.state}`, text: t("You contested this hand: “%(reason)s” — %(state)s.", { reason: d.reason, state: STATE_WORDS[d.state] || d.state }) }));
  }
  if (confirmedBy(hand, seat)) {
    box.append(el("p", { class: "mine agreement", text: t("You confirmed this hand.") }));
    return box;
  }
  if (!seatKey() || hand.status !== "scored") return box;
  const actions = el("p", { class: "actions" });
  if (canSign()) actions.append(el("button", { type: "button", class: "button primary", onclick: () => confirmHand(hand) }, t("Confirm hand %(hand)s", { hand: n })));
  if (!disputeOf(hand).some((d) => d.state === "open")) {
    actions.append(el("button", { type: "button", class: "button", "aria-expanded": S.open.has(n) ? "true" : "false",
      onclick: () => { if (S.open.has(n)) S.open.delete(n); else S.open.add(n); render(); if (S.open.has(n)) $(`contest-${n}`).focus(); } },
    t("Contest hand %(hand)s", { hand: n })));
  }
  box.append(actions);
  if (S.open.has(n)) box.append(contestForm(hand));
  return box;
}

function contestForm(hand) {
  const n = hand.hand;
  const reason = el("textarea", { id: `contest-${n}`, rows: "3", maxlength: "500", required: true });
  const form = el("form", { class: "contest-form", novalidate: true, "aria-label": t("Contest hand %(hand)s", { hand: n }) },
    el("label", { for: `contest-${n}` }, t("What is wrong with this hand?"), reason),
    el("p", { class: "actions" }, el("button", { type: "submit", class: "button primary" }, t("Send the contest"))));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const why = reason.value.trim();
    if (!why) { refuse({ body: { message: t("Say what is wrong with the hand: the scorer reads it at the dispute desk.") } }); reason.focus(); return; }
    const result = await send([{ type: "dispute", data: { hand: n, seat, reason: why } }]);
    if (result.ok) { S.open.delete(n); say(t("Your contest of hand %(hand)s is recorded: the scorer rules on it at the dispute desk.", { hand: n })); await refresh(); }
  });
  return form;
}

async function send(events) {
  $("seat-refusal").hidden = true;
  const result = await call("POST", `/matches/${id}/events`, { events }, { token: seatKey(), key: newKey() });
  if (!result.ok) refuse(result);
  return result;
}

/** Sign hand ``hand``'s result as the log stands now, and record the confirmation. The result and
 * the head are read again (in English: the result's values as recorded, whatever the page's
 * language) so that what is signed is what the server checks. */
async function confirmHand(hand) {
  if (S.busy) return;
  S.busy = true;
  try {
    const record = await ensureSigner();
    if (!record) return;
    const fresh = await get(`/matches/${id}/audit?lang=en`);
    if (!fresh.ok) { refuse(fresh); return; }
    const now = fresh.body.hands.find((h) => h.hand === hand.hand);
    const head = fresh.body.chain.head;
    const signed = { match: id, hand: hand.hand, seat, result: now ? now.result : hand.result, head };
    const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, record.pair.privateKey, canonicalBytes(signed));
    const result = await send([{ type: "confirm", data: { hand: hand.hand, seat, head, signature: b64url(signature) } }]);
    if (result.ok) { say(t("Hand %(hand)s confirmed and signed by this phone.", { hand: hand.hand })); await refresh(); }
  } finally {
    S.busy = false;
  }
}

// ------------------------------------------------------------------ start

(async () => {
  if (!seatKey()) {
    say(t("This page needs the seat key: ask the scorer to give your seat a key and scan the code on the scorer's phone. Without it, this page can confirm or contest nothing."));
    return;
  }
  await refresh();
  if (!S.summary) return;
  if (!canSign()) {
    say(t("This browser cannot sign a confirmation here: confirming needs a secure address, https or this machine's own address (localhost). You can read the hands and contest one; ask whoever runs the server to serve it over https."));
  } else {
    const record = await ensureSigner().catch(() => null);
    if (record) say(t("This phone signs for %(player)s (seat %(seat)s). Confirm each hand you agree with.", { player: seatName(seat), seat: seat + 1 }));
  }
  if (S.summary.status === "playing" && typeof EventSource !== "undefined") {
    follow(id, S.summary.version, refresh, { onLive: (on) => { $("live").hidden = !on; } });
  }
})();
