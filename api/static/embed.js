// The embedded scoreboard (/m/{id}/embed, framed by a club's website) follows its match live:
// each event the stream announces brings the board's totals and status again, as the server
// renders them (one drawing of them, as the match page does). Nothing here writes.
import { redrawOnEvents } from "./follow.js";

const root = document.getElementById("board");

async function redraw() {
  const answer = await fetch(location.pathname + location.search, { headers: { Accept: "text/html" } });
  if (!answer.ok) return;
  const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
  const now = fresh.getElementById("board-live");
  if (now) document.getElementById("board-live").replaceChildren(...now.childNodes); // the live region stays: its news is read out
  const board = fresh.getElementById("board");
  if (board) { root.dataset.version = board.dataset.version; root.dataset.status = board.dataset.status; }
}

redrawOnEvents(root, redraw, "board-live-mark");
