// "Play again" on a finished match (issue 30): with this match's write key in this browser, a
// button posts POST /matches/{id}/again, keeps the new match's key and opens its score page. A
// match in a series says which match of the series it is and the series' running total
// (GET /matches/{id}: series; GET /series/{sid}).
import { call, get, keepToken, problemDetails, problemText, tokenFor } from "./api.js";
import { $, listed } from "./dom.js";
import { t, tn } from "./say.js";

const root = $("match");
const id = root.dataset.match;

async function series() {
  const match = await get(`/matches/${id}`);
  const about = match.ok && match.body.series;
  if (!about) return;
  const sid = typeof about === "string" ? about : about.id;
  const found = await get(`/series/${encodeURIComponent(sid)}`);
  if (!found.ok) return;
  const { matches, totals } = found.body;
  const mine = matches.find((m) => m.id === id);
  const number = mine ? mine.number : (about.number ?? matches.length);
  const standing = listed(totals.map((s) => tn("%(player)s %(n)s win", "%(player)s %(n)s wins", s.won, { player: s.name })));
  $("series-line").textContent = t("Match %(number)s of the series · %(totals)s", { number, totals: standing });
  $("series-line").hidden = false;
}

let offered = false;
function offerAgain() {
  if (offered || root.dataset.status !== "over" || !tokenFor(id)) return;
  offered = true;
  $("again").hidden = false;
  $("play-again").addEventListener("click", async () => {
    const error = $("again-error");
    error.hidden = true;
    $("play-again").disabled = true;
    const result = await call("POST", `/matches/${id}/again`, {}, { token: tokenFor(id) });
    $("play-again").disabled = false;
    if (!result.ok) {
      error.hidden = false;
      if (result.offline) error.textContent = t("The server cannot be reached; nothing was created.");
      else error.replaceChildren(problemText(result.body).message, problemDetails(result.body) || "");
      return;
    }
    keepToken(result.body.id, result.body.token);
    location.assign(`/m/${result.body.id}/score`);
  });
}

offerAgain();
series();
// a match followed live to its end offers the next one without a reload (match.js redraws the status)
new MutationObserver(offerAgain).observe(root, { attributes: true, attributeFilter: ["data-status"] });
