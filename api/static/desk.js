// The dispute desk: open a dispute on a hand with the hand's explanation and the table's claim
// beside it; record a ruling, an upheld one with the corrections it needs (each entry voided or
// rewritten with the score page's own form for it, never JSON) in the same batch, the whole chain
// checked by a dry run and shown hand by hand before it is recorded. Everything goes through the
// JSON API with this browser's write token (VOCABULARY §4: dispute, ruling).
import { adoptFragmentToken, call, dryRun, get, keepToken, newKey, problemDetails, problemText, tokenFor } from "./api.js";
import { $, el, seatNamer } from "./dom.js";
import { FIELDS, SHEET, knowGame, moveLabel } from "./games.js";
import { fieldProblem, kit, moveData } from "./forms.js";
import { t } from "./say.js";

const root = $("desk");
const id = root.dataset.match;
const players = JSON.parse(root.dataset.players);
const game = root.dataset.game;
adoptFragmentToken(id);
const S = { audit: null, events: [], summary: null, info: null };
const seatName = seatNamer(players);
const FIELD_WORDS = { points: t("points"), totals: t("running total") };
/** A hand's state in the audit, and a dispute's, in words (the API's values stay as they are). */
const HAND_WORDS = { playing: t("playing"), scored: t("scored"), void: t("void"), incomplete: t("incomplete") };
const STATE_WORDS = { open: t("open"), upheld: t("upheld"), rejected: t("rejected"), withdrawn: t("withdrawn") };
const handWords = (status) => HAND_WORDS[status] || status;

const columnLabel = (i) => { const s = S.audit.standings[i]; return s ? (s.names ? s.names.join(" + ") : s.name) : t("column %(n)s", { n: i + 1 }); };

/** Every entry of the record, a page at a time as the API gives them (its `next`): a ruling may
 * correct any entry from the disputed hand's deal to the end of a match of any length. */
async function wholeLog(token) {
  const events = [];
  for (let from = 1; from != null;) {
    const page = await call("GET", `/matches/${id}/events?from=${from}`, undefined, { token });
    if (!page.ok) return page;
    events.push(...page.body.events);
    from = page.body.next == null ? null : page.body.next + 1;
  }
  return { ok: true, body: { events } };
}

async function refresh() {
  const token = tokenFor(id);
  const [summary, audit, events, info] = await Promise.all([get(`/matches/${id}`), get(`/matches/${id}/audit`),
    wholeLog(token), S.info ? { body: S.info } : get(`/games/${game}`)]);
  // with the key, the entries as recorded (a correction's form starts from the cards the scorer saw)
  const log = events.ok ? events : await wholeLog(null);
  S.summary = summary.body; S.audit = audit.body; S.events = log.body.events; S.info = knowGame(info.body);
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
  box.append(el("p", { text: t("Disputes and rulings are recorded with the match's write key (the scorer's phone keeps it). Paste it here:") }),
    el("label", { for: "token-input" }, t("Write key"), input),
    el("button", { type: "button", class: "button", onclick: () => { if (input.value.trim()) { keepToken(id, input.value.trim()); refresh(); } } }, t("Use this key")));
}

function renderHands() {
  const select = $("d-hand");
  const wanted = select.value || new URLSearchParams(location.search).get("hand");
  select.replaceChildren(...S.audit.hands.filter((h) => h.status !== "void").map((h) => el("option", { value: String(h.hand), text: t("Hand %(hand)s (%(status)s)", { hand: h.hand, status: handWords(h.status) }) })));
  if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
}

/** The chosen hand: each line of its score, and what the table wrote for it. */
function handBox(handNo) {
  const hand = S.audit.hands.find((h) => h.hand === handNo);
  if (!hand) return el("p", { class: "note", text: t("No such hand.") });
  const box = el("div", { class: "why", "data-hand": handNo });
  box.append(el("h3", { text: t("Hand %(hand)s: computed from the record", { hand: handNo }) }));
  const lines = el("ul", { class: "lines" });
  for (const line of hand.lines || []) {
    const who = line.team != null ? columnLabel(line.team) : line.seat != null ? seatName(line.seat) : "";
    const item = el("li", { "data-seat": line.seat ?? "" }, who ? el("strong", { text: who }) : null,
      line.points != null ? ` ${line.points}: ` : who ? ": " : "", line.reason || "");
    if (line.rule) {
      const href = line.rule.startsWith("/rules/") ? line.rule : line.rule.includes("§") ? `/rules/${root.dataset.game}#s${line.rule.split("§")[1].trim()}` : null;
      if (href) item.append(" ", el("a", { class: "rule", href, text: t("rule") }));
    }
    lines.append(item);
  }
  box.append(lines);
  if (hand.points) box.append(el("p", { class: "computed" }, t("Points:"), " ", el("span", { class: "points", text: hand.points.map((p, i) => `${columnLabel(i)} ${p ?? "—"}`).join(", ") })));
  const claims = S.audit.claims.filter((c) => c.hand === handNo);
  if (claims.length) {
    box.append(el("h3", { text: t("What the table wrote") }));
    const list = el("ul", { class: "lines" });
    for (const c of claims) {
      const who = c.team != null ? columnLabel(c.team) : c.seat != null ? seatName(c.seat) : t("the hand");
      const said = { who, field: FIELD_WORDS[c.field] || c.field, claimed: c.claimed, computed: c.computed };
      list.append(el("li", { class: c.agrees ? "claim agrees" : "claim differs",
        text: c.agrees ? t("%(who)s, %(field)s: %(claimed)s ✓ as computed", said) : t("%(who)s, %(field)s: %(claimed)s ✗ the record gives %(computed)s", said) }));
    }
    box.append(list);
  } else {
    box.append(el("p", { class: "note", text: t("The table wrote no score for this hand.") }));
  }
  return box;
}

function renderWhy() {
  const handNo = Number($("d-hand").value);
  $("hand-why").replaceChildren(handBox(handNo));
}

function stateWords(state) {
  return STATE_WORDS[state] || state;
}

function renderDisputes() {
  const list = $("disputes");
  const disputes = S.audit.disputes || [];
  $("no-disputes").hidden = disputes.length > 0;
  list.replaceChildren(...disputes.map((d) => {
    const field = d.field ? FIELD_WORDS[d.field] || d.field : t("score");
    const title = d.seat != null ? t("Hand %(hand)s, %(field)s of %(player)s", { hand: d.hand, field, player: seatName(d.seat) })
      : t("Hand %(hand)s, %(field)s", { hand: d.hand, field });
    const item = el("li", { class: `dispute state-${d.state}`, "data-seq": d.seq, tabindex: "-1" },
      el("p", {}, el("strong", { text: title }), ` — ${stateWords(d.state)}`),
      el("p", { text: t("“%(reason)s” (entry %(entry)s)", { reason: d.reason, entry: d.seq }) }));
    if (d.ruling) {
      item.append(el("p", { class: "ruling", text: t("Ruling (entry %(entry)s): %(decision)s, %(reason)s",
        { entry: d.ruling.seq, decision: stateWords(d.ruling.decision), reason: d.ruling.reason }) }));
    }
    for (const fix of d.correction || []) item.append(el("p", { class: "note correction", text: correctionWords(fix) }));
    if (d.state === "open") item.append(rulingForm(d));
    return item;
  }));
}

/** What a ruling's correction did, in a player's words: "Entry 3 corrected: hand 1 result, Bea 8 …". */
function correctionWords(fix) {
  const target = S.events.find((e) => e.seq === fix.target);
  const what = target ? entryWords({ event: target, hand: handAt(fix.target) }) : null;
  const said = { entry: fix.target, what, reason: fix.reason };
  if (fix.type === "void") {
    if (what) return fix.reason ? t("Entry %(entry)s struck out: %(what)s no longer counts (%(reason)s).", said) : t("Entry %(entry)s struck out: %(what)s no longer counts.", said);
    return fix.reason ? t("Entry %(entry)s struck out (%(reason)s).", said) : t("Entry %(entry)s struck out.", said);
  }
  const amend = S.events.find((e) => e.seq === fix.seq);
  const now = target && amend && target.type !== "hand_result" && target.type !== "hand_started"
    ? entryWords({ event: { type: target.type, data: amend.data.data }, hand: handAt(fix.target) }) : null;
  if (what && now && now !== what) {
    return fix.reason ? t("Entry %(entry)s corrected: %(what)s, now “%(now)s” (%(reason)s).", { ...said, now })
      : t("Entry %(entry)s corrected: %(what)s, now “%(now)s”.", { ...said, now });
  }
  if (what) return fix.reason ? t("Entry %(entry)s corrected: %(what)s (%(reason)s).", said) : t("Entry %(entry)s corrected: %(what)s.", said);
  return fix.reason ? t("Entry %(entry)s corrected (%(reason)s).", said) : t("Entry %(entry)s corrected.", said);
}

/** The hand an entry belongs to: the hands dealt (and not voided) up to it. */
function handAt(seq) {
  const voided = voidedSeqs();
  return S.events.filter((e) => e.seq <= seq && e.type === "hand_started" && !voided.has(e.seq)).length;
}

// ------------------------------------------------------------------ rulings and their corrections

/** The entries whose data a later correction replaced, with the data in force (the latest amend). */
function inForce(e) {
  const amend = S.audit.corrections.filter((c) => c.type === "amend" && c.inForce && c.target === e.seq).pop();
  const event = amend && S.events.find((x) => x.seq === amend.seq);
  return event ? { ...e, data: event.data.data } : e;
}
const voidedSeqs = () => new Set(S.audit.corrections.filter((c) => c.type === "void" && c.inForce).map((c) => c.target));
const NOT_CORRECTED = ["match_started", "note", "score_claimed", "dispute", "ruling", "void", "amend"];

/** The entries a ruling may correct: from the disputed hand's deal to the end of the record, since a
 * correction of one hand may need one of a later hand too (El Roby: who went over 99). */
function entriesFrom(handNo) {
  const out = [];
  const voided = voidedSeqs();
  let hand = 0;
  for (const e of S.events) {
    if (e.type === "hand_started" && !voided.has(e.seq)) hand += 1;
    if (hand >= handNo && !NOT_CORRECTED.includes(e.type) && !voided.has(e.seq)) out.push({ event: inForce(e), hand });
  }
  return out;
}

function entryWords({ event: e, hand }) {
  if (e.type === "hand_result") return t("hand %(hand)s result", { hand });
  if (e.type === "hand_started") return t("hand %(hand)s deal", { hand });
  if (e.type === "reveal") return t("cards shown in hand %(hand)s", { hand });
  return moveLabel({ type: e.type, data: e.data }, seatName);
}

/** Whether a player's form can rewrite the entry (the score page's "Correct…"); the others can be voided. */
const canAmend = (e) => e.type === "hand_result" ? !!SHEET[game] : ((FIELDS[game] || {})[e.type] || []).length > 0;
const matchOptions = () => (S.events[0] && S.events[0].data.options) || {};

/** The table as the entry found it: the slots a Cabo form offers, the cards already placed. */
async function viewBefore(seq) {
  const token = tokenFor(id);
  const result = await call("GET", `/matches/${id}/state?at=${seq - 1}${token ? "&seat=all" : ""}`, undefined, { token });
  return result.ok ? result.body.state : null;
}

/** One correction of a ruling: the entry, void or correct it, and the entry's own form to correct it. */
function correctionBlock(dispute, number, initialSeq, onchange, onremove) {
  const pre = `r${dispute.seq}-${number}-`;
  const targets = entriesFrom(dispute.hand);
  const target = el("select", { id: `${pre}target` }, ...targets.map((one) => el("option", { value: String(one.event.seq), text: t("Entry %(entry)s: %(what)s", { entry: one.event.seq, what: entryWords(one) }) })));
  if (initialSeq != null) target.value = String(initialSeq);
  // short enough for a phone's select: the form below says what is asked
  const kind = el("select", { id: `${pre}kind` }, el("option", { value: "amend", text: t("Correct it") }), el("option", { value: "void", text: t("Void it") }));
  const why = el("input", { id: `${pre}why`, type: "text", maxlength: "300" });
  const area = el("div", { class: "fix-fields" });
  const legend = el("legend", { text: t("Correction %(n)s", { n: number }) });
  const box = el("fieldset", { class: "fix", "data-fix": number }, legend,
    el("label", { for: `${pre}target` }, t("Entry to correct"), target), el("label", { for: `${pre}kind` }, t("What to do with it"), kind), area,
    el("label", { for: `${pre}why` }, t("Why the entry was wrong (if not the ruling's reason)"), why));
  if (onremove) box.append(el("p", { class: "actions" }, el("button", { type: "button", class: "button", text: t("Remove correction %(n)s", { n: number }), onclick: onremove })));
  let build = null;
  let drawing = 0;
  const chosen = () => targets.find((one) => String(one.event.seq) === target.value);
  const draw = async () => {
    const mine = ++drawing;
    const picked = chosen();
    build = null;
    area.replaceChildren();
    if (!picked) { onchange(); return; }
    const e = picked.event;
    kind.querySelector("option[value=amend]").disabled = !canAmend(e);
    if (!canAmend(e)) kind.value = "void";
    if (kind.value !== "amend") { onchange(); return; }
    const view = await viewBefore(e.seq);
    if (mine !== drawing) return;  // another entry was chosen meanwhile
    const forms = kit({ players, game, options: matchOptions(), view, prefix: pre });
    if (e.type === "hand_result") {
      // Every player's points can be written: the correction may bring a player back into the game (or
      // put one out), which today's standings would not show. Blank means out of the game.
      const standings = S.audit.standings.map((s) => ({ ...s, status: "playing" }));
      const c = forms.sheetContext({ standings, teams: S.info.teams, info: S.info });
      const fields = SHEET[game].fields(c, onchange, e.data);
      area.append(el("p", { class: "note", text: t("What the entry should say:") }), ...fields.map((f) => f.node));
      if (game === "el-roby") area.append(el("p", { class: "note", text: t("Leave a player's points blank if they were out of the game in this hand.") }));
      build = () => SHEET[game].build(fields.map((f) => f.value()), c);
    } else {
      const controls = FIELDS[game][e.type].map((f) => [f, forms.control(f, e, e.data[f.name])]);
      area.append(el("p", { class: "note", text: t("What the entry should say:") }), ...controls.map(([, c]) => c.node));
      build = () => moveData(e.data, controls);
    }
    onchange();
  };
  target.addEventListener("change", draw);
  kind.addEventListener("change", draw);
  for (const name of ["click", "input"]) area.addEventListener(name, (event) => { if (event.target.closest("button, input")) onchange(); });
  why.addEventListener("input", onchange);
  draw();
  return {
    node: box, target,
    focus: () => target.focus(),
    /** {kind, target, data?, why} or {error} */
    value() {
      const picked = chosen();
      if (!picked) return { error: t("Choose the entry to correct.") };
      if (kind.value === "void") return { kind: "void", target: picked.event.seq, why: why.value.trim() };
      if (!build) return { error: t("The form is still loading: try again.") };
      const problem = fieldProblem(area);
      if (problem) return { error: problem };
      try { return { kind: "amend", target: picked.event.seq, data: build(), why: why.value.trim() }; } catch (error) { return { error: error.message }; }
    },
  };
}

/** The events of a ruling's corrections, in the order of their entries. The API judges an upheld
 * ruling's chain of corrections as one (VOCABULARY §4: ruling), so a chain whose later corrections
 * only fit once the first is made (El Roby: hand 1 corrected brings Bea back, so hand 2's result must
 * give her points) is sent as it is. */
function correctionEvents(fixes, why) {
  return [...fixes].sort((a, b) => a.target - b.target).map((f) => f.kind === "void"
    ? { type: "void", data: { target: f.target, reason: f.why || why } }
    : { type: "amend", data: { target: f.target, data: f.data, reason: f.why || why } });
}

/** What a previewed ruling changes, hand by hand, in a player's words. */
function changes(before, after) {
  const out = el("div", { class: "box" });
  const cell = (v) => v == null ? "—" : String(v);
  let any = false;
  for (const h of after.hands) {
    const was = before.hands.find((x) => x.hand === h.hand) || {};
    const moved = (h.points || []).map((p, i) => [i, (was.points || [])[i], p]).filter(([, a, b]) => a !== b);
    if (!moved.length && was.status === h.status) continue;
    any = true;
    const what = moved.length ? moved.map(([i, a, b]) => `${columnLabel(i)} ${cell(a)} → ${cell(b)}`).join(", ") : handWords(h.status);
    out.append(el("p", { "data-preview-hand": h.hand }, el("strong", { text: t("Hand %(hand)s:", { hand: h.hand }) + " " }), what));
  }
  if (!any) out.append(el("p", { text: t("No hand's score changes.") }));
  const place = { playing: t("in the game"), out: t("out of the game"), winner: t("the winner") };
  for (const s of after.standings) {
    const was = before.standings.find((x) => (x.team ?? x.seat) === (s.team ?? s.seat));
    if (was && was.status !== s.status) out.append(el("p", { text: `${s.name}: ${place[was.status] || was.status} → ${place[s.status] || s.status}.` }));
  }
  out.append(el("p", {}, el("strong", { text: t("Totals:") + " " }), after.standings.map((s, i) => `${columnLabel(i)} ${s.total}`).join(", ")));
  return out;
}

function rulingForm(dispute) {
  const n = dispute.seq;
  const form = el("form", { class: "ruling-form", novalidate: true, "aria-label": t("Ruling on the dispute of entry %(entry)s", { entry: n }) });
  const decision = el("fieldset", {}, el("legend", { text: t("Ruling") }),
    el("label", { class: "inline" }, el("input", { type: "radio", name: `decision-${n}`, value: "upheld" }), t("Upheld: the record is corrected")),
    el("label", { class: "inline" }, el("input", { type: "radio", name: `decision-${n}`, value: "rejected", checked: true }), t("Rejected: the record stands")));
  const reason = el("textarea", { id: `r-reason-${n}`, rows: "2", maxlength: "500" });
  const preview = el("div", { class: "preview", role: "status", "aria-live": "polite" });
  const refusal = el("div", { class: "refusal", role: "alert", hidden: true });
  let previewed = null;  // the batch last shown, so Record records only what was previewed
  const stale = () => { previewed = null; preview.replaceChildren(); };
  const fixes = [];
  const list = el("div", { class: "fixes" });
  const renumber = () => fixes.forEach((f, i) => { f.node.querySelector("legend").textContent = t("Correction %(n)s", { n: i + 1 }); });
  const addFix = (seq) => {
    const number = fixes.length + 1;
    let fix = null;
    fix = correctionBlock(dispute, number, seq, stale, number > 1 ? () => { fixes.splice(fixes.indexOf(fix), 1); fix.node.remove(); renumber(); stale(); addButton.focus(); } : null);
    fixes.push(fix);
    list.append(fix.node);
    stale();
    return fix;
  };
  // a dispute is about a hand's score: its result line is what a ruling most often corrects
  const result = entriesFrom(dispute.hand).find((one) => one.event.type === "hand_result" && one.hand === dispute.hand);
  addFix(result ? result.event.seq : null);
  const addButton = el("button", { type: "button", class: "button", text: t("Add a correction of another entry"), onclick: () => addFix(null).focus() });
  const correction = el("fieldset", { class: "correction-box", hidden: true }, el("legend", { text: t("The corrections this ruling carries") }),
    el("p", { class: "note", text: t("A correction that changes a later hand may need that hand corrected too: add it here, and the ruling is checked as a whole.") }),
    list, el("p", { class: "actions" }, addButton));
  decision.addEventListener("change", () => { correction.hidden = form.querySelector(`input[name=decision-${n}]:checked`).value !== "upheld"; stale(); });
  reason.addEventListener("input", stale);

  const batch = () => {
    const chosen = form.querySelector(`input[name=decision-${n}]:checked`).value;
    // a reason left blank is written in the recorder's words, as a person at the table would write it
    const why = reason.value.trim() || (chosen === "upheld" ? t("ruling upheld") : stateWords(chosen));
    const events = [{ type: "ruling", data: { dispute: n, decision: chosen, reason: reason.value.trim() || stateWords(chosen) } }];
    if (chosen !== "upheld") return { events };
    const values = fixes.map((f) => f.value());
    const bad = values.findIndex((v) => v.error);
    if (bad >= 0) return { error: fixes.length > 1 ? t("Correction %(n)s: %(error)s", { n: bad + 1, error: values[bad].error }) : values[bad].error };
    const targets = values.map((v) => v.target);
    if (new Set(targets).size !== targets.length) return { error: t("Two corrections name the same entry: keep one.") };
    return { events: [...events, ...correctionEvents(values, why)] };
  };
  const say = (box, result) => {
    box.hidden = false;
    const body = result.body || {};
    const { message } = problemText(body);
    box.replaceChildren();
    const broken = body.code === "common.correction_breaks" && body.seq != null ? entriesFrom(dispute.hand).find((one) => one.event.seq === body.seq) : null;
    if (broken) {
      // the detail says "what would make entry N illegal: why" in the reader's language; the why follows its first colon
      const text = String(message);
      const why = text.includes(": ") ? text.slice(text.indexOf(": ") + 2) : text;
      const said = { entry: broken.event.seq, what: entryWords(broken), why };
      box.append(el("span", { text: fixes.length > 1 ? t("With these corrections, entry %(entry)s (%(what)s) no longer fits: %(why)s.", said)
        : t("With this correction, entry %(entry)s (%(what)s) no longer fits: %(why)s.", said) }));
      if (!fixes.some((f) => f.target.value === String(broken.event.seq))) {
        box.append(el("p", { class: "actions" }, el("button", { type: "button", class: "button", text: t("Correct entry %(entry)s too", { entry: broken.event.seq }),
          onclick: () => { box.hidden = true; addFix(broken.event.seq).focus(); } })));
      }
    } else box.append(el("span", { text: result.offline ? t("The server cannot be reached.") : message }));
    const details = problemDetails(body, body.seq != null ? t("concerns entry %(entry)s", { entry: body.seq }) : "");
    if (details) box.append(details);
  };
  /** Dry-run the ruling with its corrections, judged as one by the API; show what changes. */
  const check = async () => {
    refusal.hidden = true;
    preview.replaceChildren();
    const built = batch();
    if (built.error) { refusal.hidden = false; refusal.textContent = built.error; return null; }
    const result = await dryRun(id, built.events);
    if (!result.ok) { say(refusal, result); return null; }
    previewed = JSON.stringify(built.events);
    preview.replaceChildren(el("p", { text: t("With this ruling:") }), changes(S.audit, result.body));
    return built.events;
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    // only what was previewed is recorded: a ruling not yet checked is checked (and shown) first
    const events = previewed;
    if (!events) { await check(); return; }
    refusal.hidden = true;
    const result = await sendOnce(form, JSON.parse(events), S.summary.version);
    if (!result) return;
    if (!result.ok) { stale(); say(refusal, result); if (result.status === 409) await refresh(); return; }
    await refresh();
    focusDispute(n);
  });
  form.append(decision, el("label", { for: `r-reason-${n}` }, t("Reason for the ruling"), reason), correction,
    el("p", { class: "actions" }, el("button", { type: "button", class: "button", onclick: check }, t("Check the ruling")),
      el("button", { type: "submit", class: "button primary" }, t("Record the ruling"))), preview, refusal);
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
async function sendOnce(form, events, ifMatch) {
  const submit = form.querySelector("button[type=submit]");
  if (submit.disabled) return null;
  submit.disabled = true;
  try {
    return await call("POST", `/matches/${id}/events`, { events }, { token: tokenFor(id), key: newKey(), ifMatch });
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
  if (!data.reason) { box.hidden = false; box.textContent = t("Say why the score is contested."); $("d-reason").focus(); return; }
  const result = await sendOnce($("dispute-form"), [{ type: "dispute", data }]);
  if (!result) return;
  if (!result.ok) {
    box.hidden = false;
    box.replaceChildren(el("span", { text: problemText(result.body).message }), problemDetails(result.body) || "");
    return;
  }
  $("d-reason").value = "";
  await refresh();
  focusDispute(result.body.version);  // the dispute is the entry just written
});
refresh();
