// The scorer's page: entries made while the connection is down wait here and are sent when it is
// back; the match's export.
import { conflictOf, download, flush, problemDetails, problemText, queued, resolveConflict, tokenFor } from "../api.js";
import { $, el } from "../dom.js";
import { t, tn } from "../say.js";
import { id, showRefusal } from "./match.js";
import { refresh } from "./load.js";

// ------------------------------------------------------------------ offline queue

export function showQueue() {
  const items = queued(id);
  const conflict = conflictOf(id);
  const box = $("queue");
  box.hidden = !items.length;
  box.classList.toggle("conflict", Boolean(conflict && items.length));
  box.replaceChildren();
  if (!items.length) return;
  if (conflict) { box.append(...conflictReview(items, conflict)); return; }
  box.append(el("p", { text: tn("%(n)s entry is waiting for the connection and will be sent once it is back:",
    "%(n)s entries are waiting for the connection and will be sent once it is back:", items.length) }),
    el("ul", {}, ...items.map((q) => el("li", { text: label(q) }))));
}

const label = (q) => q.label || q.events.map((e) => e.type).join(", ");

/** Another phone recorded while this one was offline: say so, show what waits, and let the
 * scorer decide for the first waiting entry, with the sheet above already brought up to date. */
function conflictReview(items, conflict) {
  const others = Math.max(1, (conflict.current || 0) - (conflict.expected || 0));
  const [first, ...after] = items;
  const send = el("button", { type: "button", class: "button primary", id: "conflict-send" }, t("Send it anyway"));
  const drop = el("button", { type: "button", class: "button", id: "conflict-discard" }, t("Discard it"));
  const review = el("button", { type: "button", class: "button", id: "conflict-review" }, t("Review the sheet"));
  send.addEventListener("click", () => settle("send"));
  drop.addEventListener("click", () => settle("discard"));
  review.addEventListener("click", () => $("sheet-title").focus());
  return [
    el("p", { class: "lead", text: tn("While this phone was offline, another phone recorded %(n)s entry.",
      "While this phone was offline, another phone recorded %(n)s entries.", others) }),
    el("p", { text: tn("Your %(n)s waiting entry was not sent. The score sheet now shows the match as it is: check it before you decide.",
      "Your %(n)s waiting entries were not sent. The score sheet now shows the match as it is: check it before you decide.", items.length) }),
    el("p", {}, el("strong", { text: t("Waiting: %(entry)s", { entry: label(first) }) })),
    after.length ? el("p", { class: "note", text: tn("After it, %(n)s more entry waits for the same choice.", "After it, %(n)s more entries wait for the same choice.", after.length) }) : null,
    el("p", { class: "actions" }, review, send, drop),
    el("p", { class: "note", text: t("Sending it anyway records it after the other phone's entries, if the rules allow it there.") }),
  ].filter(Boolean);
}

async function settle(choice) {
  const result = await resolveConflict(id, choice);
  if (result.offline) { showQueue(); return; }
  if (!result.ok && result.item) {
    showRefusal($("sheet-refusal"), { body: { ...result.body,
      detail: t("A queued entry (%(entry)s) was refused: %(reason)s", { entry: label(result.item), reason: problemText(result.body).message }) } });
  }
  await refresh();
  const box = $("queue");
  if (!box.hidden) box.focus(); else $("sheet-title").focus();
}

export let flushing = false;
export async function sendQueued() {
  if (flushing || !queued(id).length || conflictOf(id)) return;
  flushing = true;
  try {
    const { sent, refused, conflict } = await flush(id);
    showQueue();  // the sent entries leave the banner at once, before the sheet is read again
    if (refused.length) {
      const box = $("sheet-refusal");
      showRefusal(box, { body: { ...refused[0].problem,
        detail: t("A queued entry (%(entry)s) was refused: %(reason)s", { entry: label(refused[0].item), reason: problemText(refused[0].problem).message }) } });
    }
    if (sent || refused.length || conflict) await refresh(); else showQueue();
    if (conflict) $("queue").focus();
  } finally { flushing = false; }
}

// ------------------------------------------------------------------ export

/** With the write key, download through fetch so the key goes in a header, never in a URL;
 * without it the plain link downloads the public export. */
export async function exportMatch(event, format) {
  const token = tokenFor(id);
  if (!token) return;
  event.preventDefault();
  const box = $("export-refusal");
  box.hidden = true;
  const result = await download(`/matches/${id}/export?format=${format}`, token, `${id}.${format === "text" ? "tnt" : "jsonl"}`);
  if (!result.ok) {
    const why = result.offline ? { message: t("The server cannot be reached, so nothing was exported."), code: "" } : problemText(result.body);
    box.replaceChildren(why.message, problemDetails(result.body) || "");
    box.hidden = false;
  }
}
$("export-text").addEventListener("click", (e) => exportMatch(e, "text"));
$("export-archive").addEventListener("click", (e) => exportMatch(e, "jsonl"));
