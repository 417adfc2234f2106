// The scorer's page, "Players confirm from their phones" (issue 31): per seat, give the seat a key
// of its own (POST /matches/{id}/seats/{seat}/key with the write key) and show it as a QR code and
// a link for the player's phone to open (/m/{id}/seat/{seat}#key=…: the key after '#', which
// browsers never send); and which seats have confirmed the last scored hand, read again every few seconds.
// A key is shown only once, on this page as it is open: giving the seat a key again replaces it.
import { adoptFragmentToken, call, get, newKey, problemDetails, problemText, tokenFor } from "../api.js";
import { $, el, listed, seatNamer } from "../dom.js";
import { qrSvg } from "../qr.js";
import { t } from "../say.js";

const root = $("seats");
const id = $("scorer").dataset.match;
adoptFragmentToken(id);
const POLL_MS = 5000;
const S = { summary: null, audit: null, given: new Map(), following: false };
const seatName = seatNamer(() => (S.summary ? S.summary.players : []));

async function refresh({ force = false } = {}) {
  const summary = await get(`/matches/${id}`);
  if (!summary.ok) return;  // the server is away: the section stays as it was
  // nothing recorded since the last read: the section stays as it is (and the keyboard's place in it)
  if (!force && S.summary && summary.body.version === S.summary.version) return;
  const audit = await get(`/matches/${id}/audit`);
  if (!audit.ok) return;
  S.summary = summary.body; S.audit = audit.body;
  render();
  followWhenKeyed();
}

/** Read the seats again every few seconds once a seat holds a key, while the page is shown: the
 * players' confirmations arrive while the scorer scores. A poll, not the event stream: each open
 * stream holds one of the server's threads, and the players' own pages already hold one each. */
function followWhenKeyed() {
  const keyed = S.given.size || (S.summary.seats || []).some((s) => s.hasKey);
  if (S.following || !keyed || S.summary.status !== "playing") return;
  S.following = true;
  setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
}

const lastScored = () => [...S.audit.hands].reverse().find((h) => h.status === "scored");
const confirmedBy = (hand, seat) => Boolean(hand) && (hand.confirmations || []).some((c) => c.seat === seat && c.valid !== false);

function render() {
  root.hidden = !tokenFor(id);
  if (root.hidden) return;
  const last = lastScored();
  const seats = new Map((S.summary.seats || []).map((s) => [s.seat, s]));
  if (!last) $("seats-last").textContent = t("No hand is scored yet: the players confirm each hand once it is saved.");
  else {
    const who = (last.confirmations || []).filter((c) => c.valid !== false).map((c) => `✓ ${c.name || seatName(c.seat)}`);
    const needs = (last.needs || []).map(seatName);
    $("seats-last").textContent = [
      who.length ? t("Hand %(hand)s is confirmed by %(players)s.", { hand: last.hand, players: listed(who) })
        : t("Nobody has confirmed hand %(hand)s yet.", { hand: last.hand }),
      needs.length ? t("Still to confirm: %(players)s.", { players: listed(needs) }) : ""].filter(Boolean).join(" ");
  }
  $("seat-keys").replaceChildren(...S.summary.players.map((name, seat) => seatRow(name, seat, seats.get(seat) || {}, last)));
}

function seatRow(name, seat, known, last) {
  const state = known.hasSigner ? t("this player's phone signs for the seat")
    : known.hasKey || S.given.has(seat) ? t("key given; waiting for the player's phone to open it")
      : t("no key given yet");
  const row = el("li", { class: "seat-key", "data-seat": String(seat) },
    el("p", {}, el("strong", { text: name }), " ", el("span", { class: "note", text: `(${state})` }),
      last && confirmedBy(last, seat) ? " " : null,
      last && confirmedBy(last, seat) ? el("span", { class: "confirmed", text: t("✓ confirmed hand %(hand)s", { hand: last.hand }) }) : null));
  row.append(el("p", { class: "actions" }, el("button", { type: "button", class: "button", onclick: () => give(seat) },
    known.hasKey || S.given.has(seat) ? t("Give %(player)s a new seat key", { player: name }) : t("Give %(player)s a seat key", { player: name }))));
  const link = S.given.get(seat);
  if (link) {
    row.append(el("div", { class: "qr seat-qr" }, qrSvg(link, t("QR code: %(player)s's seat key, for their phone", { player: name }))),
      el("p", { class: "seat-link" }, el("a", { href: link, "data-untranslated": "", text: link })),
      el("p", { class: "note", text: t("Scan it with %(player)s's phone. The key travels after the #, which browsers never send to the server; a new key replaces this one.", { player: name }) }));
  }
  return row;
}

async function give(seat) {
  const box = $("seats-refusal");
  box.hidden = true;
  const result = await call("POST", `/matches/${id}/seats/${seat}/key`, {}, { token: tokenFor(id), key: newKey() });
  if (!result.ok) {
    box.hidden = false;
    if (result.offline) box.textContent = t("The server cannot be reached.");
    else box.replaceChildren(el("span", { text: problemText(result.body).message }), problemDetails(result.body) || "");
    return;
  }
  // the configured public address (tanteo serve --public-url), else the address this browser used
  const origin = root.dataset.publicUrl.replace(/\/$/, "") || location.origin;
  S.given.set(seat, `${origin}${result.body.link}`);
  await refresh({ force: true });
  const button = root.querySelector(`li[data-seat="${seat}"] .seat-link a`);
  if (button) button.focus();
}

refresh({ force: true });
