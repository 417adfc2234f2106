// The scorer's page: a hand from the score sheet, checked with ?dryRun=true before it is saved.
import { append, dryRun, queued, tokenFor } from "../api.js";
import { SHEET } from "../games.js";
import { $, el, listed } from "../dom.js";
import { t, tn } from "../say.js";
import { fieldProblem } from "../forms.js";
import { S, clearRefusal, columnLabels, forms, gameId, id, players, seatName, showRefusal, teams } from "./match.js";
import { showQueue } from "./queue.js";
import { handStatus, handWhy, signed } from "./sheet.js";
import { refresh, refused } from "./load.js";

export let previewed = null;   // the events whose dry run last succeeded (JSON), so Save only saves what was shown
// ------------------------------------------------------------------ a hand from the sheet

export let sheetForm = null;
export let closeRequested = false;
let entryLabel = "";   // what the entry is called in the offline queue ("hand 3 from the sheet")

export function handInPlay() {
  const last = S.audit.hands[S.audit.hands.length - 1];
  return !!last && ["playing", "incomplete"].includes(last.status) && !S.legal.some((m) => m.type === "hand_started");
}

export function renderEntry() {
  const section = $("entry");
  const starts = S.legal.filter((m) => m.type === "hand_started");
  const closes = S.legal.some((m) => m.type === "hand_result");
  const spec = SHEET[gameId];
  // A move-by-move hand the scorer stops following may be closed from the sheet
  // (VOCABULARY §4); the form is offered on request and the API judges the facts.
  // Hands saved while offline wait in the queue: the next one is a new hand, its dealer
  // guessed as the seat after the last queued dealer (the API judges when it is sent).
  const waiting = queued(id).filter((q) => q.events.some((e) => e.type === "hand_result"));
  const queuedDealers = waiting.flatMap((q) => q.events).filter((e) => e.type === "hand_started").map((e) => e.data.dealer);
  const followed = handInPlay() && S.view && S.view.resultOnly === false;  // a hand entered move by move
  section.hidden = !tokenFor(id) || !spec || (followed && !closeRequested && !waiting.length)
    || (!starts.length && !closes && !waiting.length && !(closeRequested && handInPlay()));
  if (section.hidden) return;
  const form = $("sheet-form");
  form.replaceChildren();
  const inPlay = !starts.length && !waiting.length;
  const number = inPlay ? countHands() : countHands() + 1 + queuedDealers.length;
  $("entry-title").textContent = inPlay ? t("Close this hand from the sheet") : t("Enter hand %(hand)s from the sheet", { hand: number });
  entryLabel = t("hand %(hand)s from the sheet", { hand: number });
  const onchange = () => { previewed = null; $("save-hand").disabled = true; $("preview").replaceChildren(); };
  let dealer = null;
  if (!inPlay) {
    const offered = waiting.length ? [] : starts.map((m) => m.data.dealer).filter((d) => d != null);
    const choices = offered.length ? offered : players().map((_, s) => s);
    const first = Number(localStorage.getItem(`tanteo:firstDealer:${id}`) ?? 0);
    const guess = queuedDealers.length ? (queuedDealers[queuedDealers.length - 1] + 1) % players().length : null;
    const initial = guess != null ? [guess] : offered.length === 1 ? offered
      : (choices.includes(first) && countHands() === 0 ? [first] : [choices[0]]);
    dealer = forms().segmented(t("Dealer"), choices.map((s) => [s, seatName(s)]), { initial, onchange });
    form.append(dealer.node);
  }
  const fields = spec.fields(ctx(), onchange);
  for (const f of fields) form.append(f.node);
  sheetForm = {
    events() {
      const data = spec.build(fields.map((f) => f.value()), ctx());
      if (inPlay) return [{ type: "hand_result", data }];
      const d = dealer.value();
      const template = starts.find((m) => m.data.dealer === d) || starts[0] || { data: {} };
      const opening = { ...template.data, dealer: d };
      if (gameId === "la-cabra") delete opening.leader;  // a result-only deal needs no leader
      return [{ type: "hand_started", data: opening }, { type: "hand_result", data }];
    },
  };
  onchange();
}

export function ctx(prefix = "") { return forms(prefix).sheetContext({ standings: S.summary.standings, teams: teams(), info: S.info }); }
export function countHands() { return S.audit.hands.filter((h) => h.status !== "void").length; }

export function describePreview(result) {
  const labels = columnLabels();
  const box = el("div", { class: "box" });
  for (const h of result.hands) {
    // who gets what first; the working (Kabú's pairwise payments, formulas…) folded away for the curious
    box.append(el("p", { class: "short" }, el("strong", { text: t("Hand %(hand)s:", { hand: h.hand }) }),
      ` ${h.points ? labels.map((l, i) => `${l} ${signed(h.points[i])}`).join(" · ") : handStatus(h)}`));
    const why = handWhy(h);
    if (why) box.append(el("p", { class: "why-short", text: why }));
    const lines = h.lines || [];
    if (lines.length) {
      box.append(el("details", { class: "working" }, el("summary", { text: tn("How hand %(hand)s is worked out (%(n)s line)", "How hand %(hand)s is worked out (%(n)s lines)", lines.length, { hand: h.hand }) }),
        ...lines.map((line) => el("p", { class: "note", text: line.reason }))));
    }
  }
  box.append(el("p", {}, el("strong", { text: t("Totals:") }), ` ${result.standings.map((s, i) => `${labels[i]} ${s.total}`).join(" · ")}`));
  const next = (result.next || []).filter((m) => m.type === "hand_started").map((m) => m.data.dealer).filter((d) => d != null);
  const winners = (result.end.winners || []).map((w) => labels[w]);
  if (result.end.over) {
    box.append(el("p", { text: !winners.length ? t("The match would be over: nobody wins.")
      : tn("The match would be over: %(winners)s wins.", "The match would be over: %(winners)s win.", winners.length, { winners: listed(winners) }) }));
  } else if (next.length === 1) box.append(el("p", { text: t("Next: %(player)s deals.", { player: seatName(next[0]) }) }));
  else if (next.length > 1) box.append(el("p", { text: t("Next: %(players)s may deal.", { players: listed(next.map(seatName), "or") }) }));
  return box;
}

export async function checkHand() {
  clearRefusal($("sheet-refusal"));
  const problem = fieldProblem($("sheet-form"));
  if (problem) { showRefusal($("sheet-refusal"), { body: { detail: problem } }); return; }
  let events;
  try { events = sheetForm.events(); } catch (error) { showRefusal($("sheet-refusal"), { body: { detail: error.message } }); return; }
  const result = await dryRun(id, events);
  if (result.offline) {
    previewed = JSON.stringify(events);
    $("preview").replaceChildren(el("p", { class: "note", text: t("The server cannot be reached, so the result cannot be checked now. Saving queues the hand; it is checked when it is sent.") }));
    $("save-hand").disabled = false;
    return;
  }
  if (!result.ok) { showRefusal($("sheet-refusal"), result); return; }
  previewed = JSON.stringify(events);
  $("preview").replaceChildren(describePreview(result.body));
  $("save-hand").disabled = false;
}

export async function saveHand() {
  const events = sheetForm.events();
  if (JSON.stringify(events) !== previewed) { await checkHand(); return; }
  $("save-hand").disabled = true;
  const result = await append(id, events, entryLabel, { ifMatch: S.version });
  if (result.queued) { previewed = null; closeRequested = false; $("preview").replaceChildren(); showQueue(); renderEntry(); return; }
  if (!result.ok) { await refused($("sheet-refusal"), result); return; }
  previewed = null;
  closeRequested = false;
  $("preview").replaceChildren();
  await refresh();
  $("sheet-title").focus();
}


/** Forget the last preview: what is saved must be shown again first. */
export function forgetPreview() { previewed = null; }

/** Open the sheet's form to close the hand in play (the move-by-move view's button). */
export function requestClose() { closeRequested = true; }
