// The scorer's page: the score sheet, a hand from the sheet (checked with ?dryRun=true before it
// is saved), move by move with card pickers and the legal moves as buttons, undo and
// corrections, and a queue for entries made while the connection is down.
// Each job has its own module in score/: the shared match (match.js), loading and drawing (load.js),
// the sheet and the table's claims (sheet.js), a hand from the sheet (entry.js), move by move
// (moves.js), history and corrections (history.js), the offline queue, its conflicts and export
// (queue.js), the screen kept on while scoring (awake.js).
import { get } from "./api.js";
import { knowGame } from "./games.js";
import { $ } from "./dom.js";
import { checkHand, saveHand } from "./score/entry.js";
import { lastUndoable, openCorrection } from "./score/history.js";
import { refresh } from "./score/load.js";
import { S, gameId } from "./score/match.js";
import { sendQueued } from "./score/queue.js";
import "./score/seats.js";  // players confirm from their phones: seat keys by QR code (issue 31)

window.addEventListener("online", sendQueued);
// the server is back (api/static/offline.js noticed, even when the Wi-Fi never went): send what
// waits, then read the match again so the sheet is no longer the copy this phone kept
window.addEventListener("tanteo:back", async () => { await sendQueued(); await refresh({ keepForms: true }); });
setInterval(sendQueued, 3000);

$("check-hand").addEventListener("click", checkHand);
$("save-hand").addEventListener("click", saveHand);
$("undo").addEventListener("click", () => { const last = lastUndoable(); if (last) openCorrection(last, "void"); });

(async () => {
  S.info = knowGame((await get(`/games/${gameId}`)).body);
  await refresh();
  sendQueued();
})();
