// The scorer's page: entries made while the connection is down wait here and are sent when it is
// back; the match's export.
import { download, flush, problemDetails, problemText, queued, tokenFor } from "../api.js";
import { $, el } from "../dom.js";
import { t, tn } from "../say.js";
import { id, showRefusal } from "./match.js";
import { refresh, refused } from "./load.js";

// ------------------------------------------------------------------ offline queue

export function showQueue() {
  const items = queued(id);
  const box = $("queue");
  box.hidden = !items.length;
  box.replaceChildren();
  if (!items.length) return;
  box.append(el("p", { text: tn("%(n)s entry is waiting for the connection and will be sent once it is back:",
    "%(n)s entries are waiting for the connection and will be sent once it is back:", items.length) }),
    el("ul", {}, ...items.map((q) => el("li", { text: q.label || q.events.map((e) => e.type).join(", ") }))));
}

export let flushing = false;
export async function sendQueued() {
  if (flushing || !queued(id).length) return;
  flushing = true;
  try {
    const { sent, refused } = await flush(id);
    showQueue();  // the sent entries leave the banner at once, before the sheet is read again
    if (refused.length) {
      const box = $("sheet-refusal");
      showRefusal(box, { body: { ...refused[0].problem,
        detail: t("A queued entry (%(entry)s) was refused: %(reason)s", { entry: refused[0].item.label, reason: problemText(refused[0].problem).message }) } });
    }
    if (sent || refused.length) await refresh(); else showQueue();
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
