// The scorer's page, what every part of it shares: the match being scored (its id, game and the
// last read of it), the players' names, the match's options and the per-game form kit.
import { adoptFragmentToken, append, problemDetails, problemText } from "../api.js";
import { deck } from "../games.js";
import { $, el, seatNamer } from "../dom.js";
import { kit } from "../forms.js";
import { t } from "../say.js";

export const root = $("scorer");
export const id = root.dataset.match;
export const gameId = root.dataset.game;
adoptFragmentToken(id);

// events: the entries read (the first, the latest from ``from`` on, and older ones they name: load.js)
export const S = { summary: null, audit: null, info: null, legal: [], view: null, events: [], from: null, version: 0 };

export const players = () => S.summary.players;
export const seatName = seatNamer(players);
export const teams = () => S.info.teams;
export const columnLabels = () => S.summary.standings.map((s) => s.names ? s.names.join(" + ") : s.name);

// ------------------------------------------------------------------ shared form controls

/** The shared form controls (forms.js ``kit``: segmented buttons, card pickers, number fields), over
 * the match as it stands: its players, its deck's options, the table as the view shows it. */
export const forms = (prefix = "") => kit({ players: players(), game: gameId, options: matchOptions(), view: S.view, prefix });

export const seatOptions = () => players().map((n, s) => [s, n]);

export function knownCodes() { return new Set(deck(gameId, matchOptions()).map((d) => d.code)); }
export function matchOptions() { const first = S.events[0]; return (first && first.data.options) || {}; }
export function matchTarget() { const first = S.events[0]; return (first && first.data.target) || {}; }

export function showRefusal(box, result) {
  box.hidden = false;
  box.replaceChildren();
  if (result.offline) { box.textContent = t("The server cannot be reached."); return; }
  const body = result.body || {};
  const where = [body.index != null && body.index > 0 ? t("entry %(entry)s of what was sent", { entry: body.index + 1 }) : null,
    body.seq != null ? t("concerns entry %(entry)s of the history", { entry: body.seq }) : null].filter(Boolean).join("; ");
  box.append(el("span", { text: problemText(body).message }), problemDetails(body, where) || "");  // "", not null: append() writes null as the text "null"
}
export function clearRefusal(box) { box.hidden = true; box.replaceChildren(); }
