// The dispute desk: open a dispute on a hand with the hand's explanation and the table's claim
// beside it; record a ruling, an upheld one with its correction (a void or an amend of an
// event of the record) in the same batch, checked by a dry run first. Everything goes
// through the JSON API with this browser's write token (VOCABULARY §4: dispute, ruling).
import { adoptFragmentToken, call, dryRun, get, keepToken, newKey, problemText, tokenFor } from "./api.js";
import { el } from "./dom.js";

const $ = (name) => document.getElementById(name);
const root = $("desk");
const id = root.dataset.match;
const players = JSON.parse(root.dataset.players);
adoptFragmentToken(id);
const S = { audit: null, events: [], summary: null };
const seatName = (s) => players[s] ?? `seat ${s + 1}`;
const FIELD_WORDS = { points: "points", totals: "running total" };

const columnLabel = (i) => { const s = S.audit.standings[i]; return s ? (s.names ? s.names.join(" + ") : s.name) : `column ${i + 1}`; };

async function refresh() {
  const [summary, audit, events] = await Promise.all([get(`/matches/${id}`), get(`/matches/${id}/audit`), get(`/matches/${id}/events?limit=10000`)]);
  S.summary = summary.body; S.audit = audit.body; S.events = events.body.events;
  renderAccess();
  renderHands();
  renderWhy();
  renderDisputes();
}

function renderAccess() {
  const box = $("access");
  box.replaceChildren();
  if (tokenFor(id)) return;
  const input = el("input", { id: "token-input", autocomplete: "off" });
  box.append(el("p", { text: "Disputes and rulings are recorded with the match's write key (the scorer's phone keeps it). Paste it here:" }),
    el("label", { for: "token-input" }, "Write key", input),
    el("button", { type: "button", class: "button", onclick: () => { if (input.value.trim()) { keepToken(id, input.value.trim()); refresh(); } } }, "Use this key"));
}

function renderHands() {
  const select = $("d-hand");
  const wanted = select.value || new URLSearchParams(location.search).get("hand");
  select.replaceChildren(...S.audit.hands.filter((h) => h.status !== "void").map((h) => el("option", { value: String(h.hand), text: `Hand ${h.hand} (${h.status})` })));
  if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
}

/** The chosen hand: each line of its score, and what the table wrote for it. */
function handBox(handNo) {
  const hand = S.audit.hands.find((h) => h.hand === handNo);
  if (!hand) return el("p", { class: "note", text: "No such hand." });
  const box = el("div", { class: "why", "data-hand": handNo });
  box.append(el("h3", { text: `Hand ${handNo}: computed from the record` }));
  const lines = el("ul", { class: "lines" });
  for (const line of hand.lines || []) {
    const who = line.team != null ? columnLabel(line.team) : line.seat != null ? seatName(line.seat) : "";
    const item = el("li", { "data-seat": line.seat ?? "" }, who ? el("strong", { text: who }) : null,
      line.points != null ? ` ${line.points}: ` : who ? ": " : "", line.reason || "");
    if (line.rule) {
      const href = line.rule.startsWith("/rules/") ? line.rule : line.rule.includes("§") ? `/rules/${root.dataset.game}#s${line.rule.split("§")[1].trim()}` : null;
      if (href) item.append(" ", el("a", { class: "rule", href, text: "rule" }));
    }
    lines.append(item);
  }
  box.append(lines);
  if (hand.points) box.append(el("p", { class: "computed" }, "Points: ", el("span", { class: "points", text: hand.points.map((p, i) => `${columnLabel(i)} ${p ?? "—"}`).join(", ") })));
  const claims = S.audit.claims.filter((c) => c.hand === handNo);
  if (claims.length) {
    box.append(el("h3", { text: "What the table wrote" }));
    const list = el("ul", { class: "lines" });
    for (const c of claims) {
      const who = c.team != null ? columnLabel(c.team) : c.seat != null ? seatName(c.seat) : "the hand";
      list.append(el("li", { class: c.agrees ? "claim agrees" : "claim differs",
        text: `${who}, ${FIELD_WORDS[c.field] || c.field}: ${c.claimed}${c.agrees ? " ✓ as computed" : ` ✗ the record gives ${c.computed}`}` }));
    }
    box.append(list);
  } else {
    box.append(el("p", { class: "note", text: "The table wrote no score for this hand." }));
  }
  return box;
}

function renderWhy() {
  const handNo = Number($("d-hand").value);
  $("hand-why").replaceChildren(handBox(handNo));
}

function stateWords(d) {
  return { open: "open", upheld: "upheld", rejected: "rejected", withdrawn: "withdrawn" }[d.state] || d.state;
}

function renderDisputes() {
  const list = $("disputes");
  const disputes = S.audit.disputes || [];
  $("no-disputes").hidden = disputes.length > 0;
  list.replaceChildren(...disputes.map((d) => {
    const what = [d.field ? FIELD_WORDS[d.field] || d.field : "score", d.seat != null ? `of ${seatName(d.seat)}` : null].filter(Boolean).join(" ");
    const item = el("li", { class: `dispute state-${d.state}`, "data-seq": d.seq, tabindex: "-1" },
      el("p", {}, el("strong", { text: `Hand ${d.hand}, ${what}` }), ` — ${stateWords(d)}`),
      el("p", { text: `“${d.reason}” (entry ${d.seq})` }));
    if (d.ruling) item.append(el("p", { class: "ruling", text: `Ruling (entry ${d.ruling.seq}): ${d.ruling.decision}, ${d.ruling.reason}` }));
    for (const fix of d.correction || []) item.append(el("p", { class: "note", text: `Correction: ${fix.type} of entry ${fix.target}${fix.reason ? `, ${fix.reason}` : ""}` }));
    if (d.state === "open") item.append(rulingForm(d));
    return item;
  }));
}

/** The events a correction may concern: those of the disputed hand (from its deal to the next deal). */
function eventsOfHand(handNo) {
  const out = [];
  let hand = 0;
  for (const e of S.events) {
    if (e.type === "hand_started") hand += 1;
    if (hand === handNo && !["note", "score_claimed", "dispute", "ruling", "void", "amend"].includes(e.type)) out.push(e);
  }
  return out;
}

function rulingForm(dispute) {
  const n = dispute.seq;
  const form = el("form", { class: "ruling-form", novalidate: true, "aria-label": `Ruling on the dispute of entry ${n}` });
  const decision = el("fieldset", {}, el("legend", { text: "Ruling" }),
    el("label", { class: "inline" }, el("input", { type: "radio", name: `decision-${n}`, value: "upheld" }), "Upheld: the record is corrected"),
    el("label", { class: "inline" }, el("input", { type: "radio", name: `decision-${n}`, value: "rejected", checked: true }), "Rejected: the record stands"));
  const reason = el("textarea", { id: `r-reason-${n}`, rows: "2", maxlength: "500" });
  const targets = eventsOfHand(dispute.hand);
  const target = el("select", { id: `r-target-${n}` }, ...targets.map((e) => el("option", { value: String(e.seq), text: `Entry ${e.seq}: ${e.type.replaceAll("_", " ")}` })));
  // short enough for a phone's select: the field below says what an amend asks for
  const kind = el("select", { id: `r-kind-${n}` }, el("option", { value: "amend", text: "Amend it" }), el("option", { value: "void", text: "Void it" }));
  const data = el("textarea", { id: `r-data-${n}`, rows: "6", spellcheck: "false", class: "json" });
  const fixReason = el("input", { id: `r-fix-${n}`, type: "text", maxlength: "300" });
  const fill = () => { const e = S.events.find((x) => String(x.seq) === target.value); data.value = e ? JSON.stringify(e.data, null, 1) : ""; };
  // a dispute is about a hand's score: its result line is what a ruling most often corrects
  const result = targets.find((e) => e.type === "hand_result");
  if (result) target.value = String(result.seq);
  target.addEventListener("change", fill);
  kind.addEventListener("change", () => { dataLabel.hidden = kind.value !== "amend"; });
  fill();
  const dataLabel = el("label", { for: `r-data-${n}` }, "What the entry should say (its data, as JSON)", data);
  const correction = el("fieldset", { class: "correction-box", hidden: true }, el("legend", { text: "The correction this ruling carries" }),
    el("label", { for: `r-target-${n}` }, "Entry to correct", target), el("label", { for: `r-kind-${n}` }, "How", kind),
    dataLabel, el("label", { for: `r-fix-${n}` }, "Why the entry was wrong", fixReason));
  decision.addEventListener("change", () => { correction.hidden = form.querySelector(`input[name=decision-${n}]:checked`).value !== "upheld"; });
  const preview = el("div", { class: "preview", role: "status", "aria-live": "polite" });
  const refusal = el("div", { class: "refusal", role: "alert", hidden: true });

  const batch = () => {
    const chosen = form.querySelector(`input[name=decision-${n}]:checked`).value;
    const events = [{ type: "ruling", data: { dispute: n, decision: chosen, reason: reason.value.trim() || chosen } }];
    if (chosen === "upheld") {
      const why = fixReason.value.trim() || reason.value.trim() || "ruling upheld";
      if (kind.value === "void") events.push({ type: "void", data: { target: Number(target.value), reason: why } });
      else {
        let parsed;
        try { parsed = JSON.parse(data.value); } catch (error) { return { error: "The entry's data is not valid JSON: check the brackets and quotes." }; }
        events.push({ type: "amend", data: { target: Number(target.value), data: parsed, reason: why } });
      }
    }
    return { events };
  };
  const say = (box, result) => {
    box.hidden = false;
    const { message, code } = problemText(result.body);
    box.replaceChildren(el("span", { text: message }), code ? el("span", { class: "code", text: `rule: ${code}` }) : "");
  };
  const check = async () => {
    refusal.hidden = true;
    const built = batch();
    if (built.error) { refusal.hidden = false; refusal.textContent = built.error; return; }
    const result = await dryRun(id, built.events);
    if (!result.ok) { say(refusal, result); preview.replaceChildren(); return; }
    const hand = (result.body.hands || []).find((h) => h.hand === dispute.hand);
    preview.replaceChildren(el("div", { class: "box" }, hand && hand.points
      ? `With this ruling, hand ${dispute.hand} scores ${hand.points.map((p, i) => `${columnLabel(i)} ${p ?? "—"}`).join(", ")}.`
      : `With this ruling, hand ${dispute.hand}'s score does not change.`));
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    refusal.hidden = true;
    const built = batch();
    if (built.error) { refusal.hidden = false; refusal.textContent = built.error; return; }
    const result = await sendOnce(form, built.events);
    if (!result) return;
    if (!result.ok) { say(refusal, result); return; }
    await refresh();
    focusDispute(n);
  });
  form.append(decision, el("label", { for: `r-reason-${n}` }, "Reason for the ruling", reason), correction,
    el("p", { class: "actions" }, el("button", { type: "button", class: "button", onclick: check }, "Check the ruling"),
      el("button", { type: "submit", class: "button primary" }, "Record the ruling")), preview, refusal);
  return form;
}

/** Take the keyboard to a dispute after it was opened or ruled: the pressed button is redrawn away, and
 * the focus would fall back to the top of the page, with nothing said of what happened. */
function focusDispute(seq) {
  const item = document.querySelector(`#disputes li.dispute[data-seq="${seq}"]`);
  if (item) item.focus();
}

/** Send a form's events once: its submit button waits for the answer, so a double tap does not open a
 * second dispute (each send has its own Idempotency-Key) nor rule twice. Null when a send is on its way. */
async function sendOnce(form, events) {
  const submit = form.querySelector("button[type=submit]");
  if (submit.disabled) return null;
  submit.disabled = true;
  try {
    return await call("POST", `/matches/${id}/events`, { events }, { token: tokenFor(id), key: newKey() });
  } finally {
    submit.disabled = false;
  }
}

$("d-hand").addEventListener("change", renderWhy);
$("dispute-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const box = $("dispute-refusal");
  box.hidden = true;
  const data = { hand: Number($("d-hand").value), reason: $("d-reason").value.trim() };
  if ($("d-field").value) data.field = $("d-field").value;
  if ($("d-seat").value !== "") data.seat = Number($("d-seat").value);
  if (!data.reason) { box.hidden = false; box.textContent = "Say why the score is contested."; $("d-reason").focus(); return; }
  const result = await sendOnce($("dispute-form"), [{ type: "dispute", data }]);
  if (!result) return;
  if (!result.ok) {
    box.hidden = false;
    const { message, code } = problemText(result.body);
    box.replaceChildren(el("span", { text: message }), code ? el("span", { class: "code", text: `rule: ${code}` }) : "");
    return;
  }
  $("d-reason").value = "";
  await refresh();
  focusDispute(result.body.version);  // the dispute is the entry just written
});
refresh();
