// The match page follows a match in play: each event the stream announces brings the page's
// score sheet, explanations and chart again, as the server renders them (one drawing of them).
import { redrawOnEvents } from "./follow.js";

const root = document.getElementById("match");

async function redraw() {
  const answer = await fetch(location.pathname, { headers: { Accept: "text/html" } });
  if (!answer.ok) return;
  const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
  for (const name of ["live-part", "status"]) {
    const now = fresh.getElementById(name);
    if (now) document.getElementById(name).replaceWith(now);
  }
  const version = fresh.getElementById("match");
  if (version) { root.dataset.version = version.dataset.version; root.dataset.status = version.dataset.status; }
}

redrawOnEvents(root, redraw, "live");
