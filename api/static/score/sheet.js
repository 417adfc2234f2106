// The scorer's page: the score sheet computed from the record, and what the table wrote beside it.
import { append, tokenFor } from "../api.js";
import { $, el, listed } from "../dom.js";
import { t, tn } from "../say.js";
import { S, clearRefusal, columnLabels, gameId, id, matchTarget, seatName, showRefusal } from "./match.js";
import { held } from "./moves.js";
import { showQueue } from "./queue.js";
import { refresh, refused } from "./load.js";

// ------------------------------------------------------------------ the score sheet

/** A hand's points as a sheet says them: a sign on Kabú's chips won or lost. */
export function signed(n) {
  if (n == null) return "—";
  return gameId === "kabu" && n > 0 ? `+${n}` : String(n);
}

/** Why a scored hand reads as it does, when the numbers alone would puzzle a player: Kabú's insolvent
 * seats pay nobody (RULES §2.5), so a hand can move no chips at all. ``brief``: for the sheet's cell. */
export function handWhy(h, brief = false) {
  const r = h.result;
  if (gameId !== "kabu" || !r || !(r.insolvent || []).length) return null;
  const who = r.insolvent.map(seatName);
  const many = who.length > 1;
  const players = listed(who);
  const moved = (h.points || []).some((p) => p);  // else: ", so no chips change hands"
  if (brief) {
    if (many) return moved ? t("%(players)s could not pay and pay nobody", { players }) : t("%(players)s could not pay and pay nobody, so no chips change hands", { players });
    return moved ? t("%(player)s could not pay and pays nobody", { player: players }) : t("%(player)s could not pay and pays nobody, so no chips change hands", { player: players });
  }
  const owed = r.insolvent.map((s) => t("%(player)s held %(chips)s chips but owed %(owed)s",
    { player: seatName(s), chips: r.chipsBefore ? r.chipsBefore[s] : "?", owed: r.owes ? r.owes[s] : "?" })).join("; ");
  const said = many
    ? (moved ? t("%(owed)s: they are insolvent and pay nobody, as the rules say.", { owed }) : t("%(owed)s: they are insolvent and pay nobody, as the rules say, so no chips change hands.", { owed }))
    : (moved ? t("%(owed)s: %(player)s is insolvent and pays nobody, as the rules say.", { owed, player: players }) : t("%(owed)s: %(player)s is insolvent and pays nobody, as the rules say, so no chips change hands.", { owed, player: players }));
  if ((matchTarget().end || "insolvency") !== "time") return said;
  const next = t("Before the next hand %(players)s must buy chips or leave.", { players });
  return `${said} ${next}`;
}

export function handStatus(h) {
  const why = handWhy(h, true);
  if (h.status === "scored") {
    if (!h.closedFromSheet) return why ? t("scored: %(why)s", { why }) : t("scored");
    const move = h.closedFromSheet.afterMove;
    return why ? t("scored, closed from the sheet after move %(move)s: %(why)s", { move, why }) : t("scored, closed from the sheet after move %(move)s", { move });
  }
  if (h.status === "void") return t("void");
  if (h.status === "playing") return t("in play");
  if (h.status === "incomplete") {
    const missing = (h.missing || []).map((m) => m.seat != null && m.slot != null ? t("%(player)s slot %(slot)s", { player: seatName(m.seat), slot: m.slot })
      : m.seq != null ? t("card %(index)s of entry %(entry)s", { index: (m.index ?? 0) + 1, entry: m.seq })
        : m.seat != null ? t("a card of %(player)s", { player: seatName(m.seat) }) : JSON.stringify(m));
    if (missing.length > 3) return t("incomplete: %(n)s cards never shown (%(cards)s …)", { n: missing.length, cards: missing.slice(0, 2).join(", ") });
    return missing.length ? t("incomplete: missing %(cards)s", { cards: missing.join(", ") }) : t("incomplete: missing cards");
  }
  return h.status;
}

export function renderSheet() {
  const table = $("sheet");
  const labels = columnLabels();
  const unit = S.summary.standings[0] && "team" in S.summary.standings[0] ? "team" : "seat";
  const head = el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("Hand") }), ...labels.map((l) => el("th", { scope: "col", text: l })), el("th", { scope: "col", text: t("Status") })));
  const body = el("tbody");
  for (const h of S.audit.hands) {
    const row = el("tr", { class: `status-${h.status}`, "data-hand": h.hand });
    row.append(el("th", { scope: "row", text: String(h.hand) }));
    labels.forEach((_, i) => {
      const pts = h.points ? h.points[i] : null;
      const tot = h.totals ? h.totals[i] : null;
      const cell = el("td", {}, el("span", { class: "pts", text: pts == null ? "—" : cellWords(pts, "pts") }),
        ...rebuyMark(h, i), tot == null ? null : el("span", { class: "tot", text: cellWords(tot, "tot") }));
      const against = S.audit.claims.filter((c) => c.hand === h.hand && c.agrees === false && c[unit] === i);
      if (against.length) {
        cell.classList.add("disagrees");
        for (const c of against) cell.append(el("span", { class: "flag", text: c.field === "totals" ? t("sheet: %(claimed)s total", { claimed: c.claimed }) : t("sheet: %(claimed)s", { claimed: c.claimed }) }));
      }
      row.append(cell);
    });
    // the status in a span of its own: the cell also holds the button that opens the sheet's row
    row.append(el("td", { class: "status-cell" }, el("span", { class: "status", text: handStatus(h) }),
      tokenFor(id) && ["scored", "incomplete"].includes(h.status) ? claimButton(h) : null));
    body.append(row);
    if (claimOpen === h.hand && ["scored", "incomplete"].includes(h.status)) body.append(claimRow(h, labels, unit));
  }
  if (!S.audit.hands.length) body.append(el("tr", {}, el("td", { colspan: labels.length + 2, text: t("No hand yet.") })));
  const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row", text: t("Total") }),
    ...S.summary.standings.map((s, i) => el("td", { class: "total", "data-total": i, text: String(s.total) })), el("td")));
  table.replaceChildren(table.querySelector("caption"), head, body, foot);
  const end = S.summary.end;
  $("end").textContent = end.over ? t("Match over. Winners: %(winners)s. %(reason)s", { winners: (end.winners || []).map((w) => labels[w]).join(", "), reason: end.reason || "" }) : "";
}

/** A sheet cell's number in words where the bare "12 = 1" would mix two things: Cau Robat's hand
 * column counts the cards in a pile and its total the hands won. */
export function cellWords(n, part) {
  if (gameId !== "cau-robat") return part === "tot" ? `= ${n}` : signed(n);
  return part === "pts" ? tn("%(n)s card", "%(n)s cards", n) : tn("%(n)s hand won", "%(n)s hands won", n);
}

/** El Roby: a seat that went over 99 in this hand, re-bought (and its price) or out; the total
 * beside it is the re-entry score, not the sum. */
export function rebuyMark(h, seat) {
  const r = h.result;
  if (gameId !== "el-roby" || !r || !(r.busted || []).includes(seat)) return [];
  const text = (r.rebuys || []).includes(seat) ? t("over 99: re-bought for %(price)s, back in at %(points)s", { price: r.price, points: r.reentry })
    : S.legal.some((m) => m.type === "rebuy" && m.data.seat === seat) ? t("over 99: may re-buy") : t("over 99: out");
  return [el("span", { class: "rebuy", "data-rebuy": seat, text })];
}

// ------------------------------------------------------------------ what the table wrote

// The paper sheet's row, typed cell by cell under the computed one (a score_claimed: it never changes
// the game, it feeds the audit). Each cell says at once whether it agrees with the record, before
// anything is saved; a row typed again replaces the hand's earlier claim (an amend), so the audit
// compares the sheet as it now reads, not two versions of it.
export let claimOpen = null;  // the hand whose "the table wrote" row is open

export const CLAIM_FIELDS = [["points", t("hand")], ["totals", t("total")]];

export function claimButton(h) {
  const written = S.audit.claims.some((c) => c.hand === h.hand);
  return el("button", { type: "button", class: "button claim-open", "aria-expanded": String(claimOpen === h.hand),
    "aria-label": written ? t("Change what the table wrote for hand %(hand)s", { hand: h.hand }) : t("Type what the table wrote for hand %(hand)s", { hand: h.hand }),
    text: t("Table wrote…"),
    onclick: () => { claimOpen = claimOpen === h.hand ? null : h.hand; renderSheet(); focusClaim(h.hand); } });
}

export function focusClaim(hand) {
  const first = document.querySelector(`tr.claim-row[data-claim-hand="${hand}"] input`);
  if (first) first.focus(); else { const b = document.querySelector(`tr[data-hand="${hand}"] .claim-open`); if (b) b.focus(); }
}

/** The row of inputs under hand ``h``: in each column the hand's points and the running total the
 * sheet shows, each marked at once as agreeing with the record or not. */
export function claimRow(h, labels, unit) {
  const standing = S.audit.claims.filter((c) => c.hand === h.hand);
  const prior = (field, i) => { const c = standing.filter((x) => x.field === field && x[unit] === i).pop(); return c ? String(c.claimed) : ""; };
  const row = el("tr", { class: "claim-row", "data-claim-hand": h.hand });
  row.append(el("th", { scope: "row", class: "claim-head", text: t("Sheet") }));
  const inputs = [];
  const negative = gameId === "kabu";  // chips lost are written with a minus: the numeric keypad has none
  labels.forEach((label, i) => {
    const cell = el("td", { class: "claim-cell" });
    for (const [field, word] of CLAIM_FIELDS) {
      if (field === "totals" && !h.totals) continue;
      const input = el("input", { type: "number", step: "1", inputmode: negative ? null : "numeric", class: "claim-input",
        value: prior(field, i), "aria-label": field === "points" ? t("%(who)s, hand %(hand)s: the hand's points on the sheet", { who: label, hand: h.hand })
          : t("%(who)s, hand %(hand)s: the running total on the sheet", { who: label, hand: h.hand }) });
      const mark = el("span", { class: "claim-mark", "aria-hidden": "true" });
      inputs.push({ field, col: i, label, input, mark, computed: (h[field] || [])[i] ?? null });
      cell.append(el("span", { class: "claim-field" }, el("span", { class: "claim-word", "aria-hidden": "true", text: word }), input, mark));
    }
    row.append(cell);
  });
  const verdict = el("p", { class: "claim-verdict", role: "status", "aria-live": "polite" });
  const refusal = el("div", { class: "refusal", role: "alert", hidden: true });
  const save = el("button", { type: "button", class: "button primary", text: t("Save row") });
  const cancel = el("button", { type: "button", class: "button", text: t("Cancel") });
  row.append(el("td", { class: "status-cell claim-actions" }, verdict, el("p", { class: "actions" }, save, cancel), refusal));
  const typed = (x) => x.input.value.trim() === "" ? null : Number(x.input.value);
  const compare = () => {
    const differs = [];
    for (const x of inputs) {
      const value = typed(x);
      x.input.classList.toggle("agrees", value != null && x.computed != null && value === x.computed);
      x.input.classList.toggle("differs", value != null && x.computed != null && value !== x.computed);
      x.mark.textContent = value == null || x.computed == null ? "" : value === x.computed ? "✓" : t("record %(points)s", { points: x.computed });
      if (value != null && x.computed != null && value !== x.computed) differs.push(x);
    }
    const any = inputs.some((x) => typed(x) != null);
    if (!any) verdict.textContent = t("Type the numbers as the sheet shows them; leave a cell blank if nothing is written.");
    else if (h.status !== "scored") verdict.textContent = t("The record cannot score this hand yet: the audit compares it once it can.");
    else if (!differs.length) verdict.textContent = t("✓ The sheet agrees with the record.");
    else {
      const d = differs[0];
      const parts = { who: d.label, sheet: typed(d), record: d.computed };
      const more = differs.length - 1;
      verdict.textContent = d.field === "points"
        ? (more ? tn("Differs: %(who)s's points — the sheet says %(sheet)s, the record %(record)s (and %(n)s more).", "Differs: %(who)s's points — the sheet says %(sheet)s, the record %(record)s (and %(n)s more).", more, parts)
          : t("Differs: %(who)s's points — the sheet says %(sheet)s, the record %(record)s.", parts))
        : (more ? tn("Differs: %(who)s's total — the sheet says %(sheet)s, the record %(record)s (and %(n)s more).", "Differs: %(who)s's total — the sheet says %(sheet)s, the record %(record)s (and %(n)s more).", more, parts)
          : t("Differs: %(who)s's total — the sheet says %(sheet)s, the record %(record)s.", parts));
    }
  };
  row.addEventListener("input", compare);
  const close = () => { claimOpen = null; renderSheet(); focusClaim(h.hand); };
  const send = async () => {
    clearRefusal(refusal);
    if (inputs.some((x) => x.input.value.trim() !== "" && !Number.isInteger(Number(x.input.value)))) {
      showRefusal(refusal, { body: { detail: t("Write whole numbers, as on the sheet.") } }); return;
    }
    const data = { hand: h.hand };
    for (const [field] of CLAIM_FIELDS) {
      const values = labels.map((_, i) => { const x = inputs.find((y) => y.field === field && y.col === i); return x ? typed(x) : null; });
      if (values.some((v) => v != null)) data[field] = values;
    }
    if (!data.points && !data.totals) { showRefusal(refusal, { body: { detail: t("Type at least one number from the sheet.") } }); return; }
    const earlier = [...new Set(standing.map((c) => c.claimSeq))].pop();
    const events = earlier == null ? [{ type: "score_claimed", data }]
      : [{ type: "amend", data: { target: earlier, data, reason: "the sheet's row typed again" } }];
    save.disabled = true;
    const result = await append(id, events, t("what the table wrote for hand %(hand)s", { hand: h.hand }), { ifMatch: S.version });
    save.disabled = false;
    if (result.queued) { claimOpen = null; showQueue(); renderSheet(); return; }
    if (!result.ok) { await refused(refusal, result); return; }
    claimOpen = null;
    await refresh({ keepForms: true });
    focusClaim(h.hand);
  };
  save.addEventListener("click", send);
  cancel.addEventListener("click", close);
  row.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { event.preventDefault(); close(); }
    else if (event.key === "Enter" && event.target.tagName === "INPUT") { event.preventDefault(); send(); }
  });
  compare();
  return row;
}
