// A club's key, as a match's write token is kept (api/static/api.js): in this browser's
// localStorage, one per club, and handed to another phone in the URL fragment (#key=…), which
// browsers never send to the server.
import { call } from "./api.js";

const KEY = (id) => `tanteo:clubkey:${id}`;

export function keyFor(id) { return localStorage.getItem(KEY(id)); }
export function keepKey(id, key) { localStorage.setItem(KEY(id), key); }

/** Take a key handed over in the URL fragment (#key=…), keep it, and clear it from the address bar. */
export function adoptFragmentKey(id) {
  const found = /(?:^#|&)key=([^&]+)/.exec(location.hash);
  if (found) {
    keepKey(id, decodeURIComponent(found[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
}

/** Call the club API with the club's key (Authorization: Bearer), as api.js calls the match API. */
export function clubCall(method, path, body, id) {
  return call(method, path, body, { token: keyFor(id) });
}

/** What to say after the page reloads (what the organiser just did), and the form that did it
 * (opened again, its first field focused, for the next change of the same kind). */
export function sayAfterReload(text, form = "") {
  sessionStorage.setItem("tanteo:club-said", JSON.stringify({ text, form }));
}
export function saidBeforeReload() {
  let said = null;
  try { said = JSON.parse(sessionStorage.getItem("tanteo:club-said") || "null"); } catch (error) { said = null; }
  sessionStorage.removeItem("tanteo:club-said");
  return said;
}
