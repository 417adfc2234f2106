// The match page follows a match in play: each event the stream announces brings the parts of
// the page that change (its status and #live-part: standings, the current hand, the last moves),
// as the server draws them, from GET /m/{id}/live — a fragment the size of what it shows, drawn
// once per version for every reader and answered 304 when nothing changed — never the whole page
// again. What is put in place is what a reload would show.
import { redrawOnEvents } from "./follow.js";

const root = document.getElementById("match");

async function redraw() {
  // the page's own language: the same cookie and Accept-Language go with this request; a ?lang= of the page's address too
  const asked = new URLSearchParams(location.search).get("lang");
  const answer = await fetch(`${location.pathname}/live${asked ? `?lang=${encodeURIComponent(asked)}` : ""}`, { headers: { Accept: "text/html" } });
  if (!answer.ok) return;
  const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
  for (const name of ["live-part", "status"]) {
    const now = fresh.getElementById(name);
    if (now) document.getElementById(name).replaceWith(now);
  }
  const drawn = fresh.getElementById("match-live");
  if (drawn) { root.dataset.version = drawn.dataset.version; root.dataset.status = drawn.dataset.status; }
}

// a page of earlier hands stays as it is: the latest hands are on the match's own page
if (!root.dataset.paged) redrawOnEvents(root, redraw, "live");
