// The scorer's page, irregular play (issue 31): a move the rules refused (422) can be recorded as
// the table played it, as an ``irregular`` the server keeps with the broken rule and a dispute.
import { append } from "../api.js";
import { $, el } from "../dom.js";
import { t } from "../say.js";
import { countHands, handInPlay } from "./entry.js";
import { S, clearRefusal, id } from "./match.js";
import { refresh, refused } from "./load.js";

const NOT_MOVES = new Set(["hand_started", "hand_result", "reveal", "showdown"]);

/** A move the rules refused (422) can be recorded as it happened: an ``irregular`` holding it; the
 * server keeps the broken rule and opens a dispute about the hand for the table to rule on. */
export function offerIrregular(events, box, label) {
  if (box.hidden || events.length !== 1 || NOT_MOVES.has(events[0].type) || !handInPlay()) return;
  const hand = countHands();
  const button = el("button", { type: "button", class: "button irregular-record", text: t("Record it as it happened") });
  button.addEventListener("click", async () => {
    const result = await append(id, [{ type: "irregular", data: { hand, move: events[0] } }], t("irregular: %(move)s", { move: label }), { ifMatch: S.version });
    if (!result.ok) { await refused(box, result); return; }
    $("move-form").hidden = true;
    clearRefusal(box);
    await refresh();
    const note = $("irregular-note");
    note.textContent = t("Hand %(hand)s is irregular: what was played is recorded as it happened, and a dispute is open for the table to rule on.", { hand });
    note.hidden = false;
    note.focus();
  });
  box.append(el("p", { class: "actions" }, el("span", { class: "note", text: t("The table played it anyway?") }), " ", button));
}
