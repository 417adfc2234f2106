// The JSON API as the pages use it: the same endpoints and headers a script would send.
// The write token lives in this browser's localStorage, one per match; entries that cannot
// reach the server are queued there with their Idempotency-Key and sent once, later.

import { el } from "./dom.js";
import { t } from "./say.js";

const TOKEN = (id) => `tanteo:token:${id}`;
const QUEUE = (id) => `tanteo:queue:${id}`;
const CONFLICT = (id) => `tanteo:conflict:${id}`;

export function tokenFor(id) { return localStorage.getItem(TOKEN(id)); }
export function keepToken(id, token) { localStorage.setItem(TOKEN(id), token); }

/** Take a token handed over in the URL fragment (#token=…), keep it, and clear it from the address bar. */
export function adoptFragmentToken(id) {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    keepToken(id, decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
}

/** Call the API. Returns {ok, status, body, offline}; never throws for HTTP errors. */
export async function call(method, path, body, { token, key, ifMatch } = {}) {
  const headers = { "Accept": "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = `Bearer ${token}`;
  if (key) headers["Idempotency-Key"] = key;
  if (ifMatch) headers["If-Match"] = `"${ifMatch}"`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    window.dispatchEvent(new Event("tanteo:unreachable"));
    return { ok: false, status: 0, body: null, offline: true };
  }
  // the service worker answered with the copy it kept: the server is not there (api/app_shell.py)
  const stale = response.headers.get("X-Tanteo-Offline") === "1";
  if (stale) window.dispatchEvent(new Event("tanteo:unreachable"));
  let parsed = null;
  try { parsed = await response.json(); } catch (error) { parsed = null; }
  return { ok: response.ok, status: response.status, body: parsed, offline: false, stale };
}

export const get = (path) => call("GET", path);

export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function queued(id) {
  try { return JSON.parse(localStorage.getItem(QUEUE(id)) || "[]"); } catch (error) { return []; }
}
function saveQueue(id, items) {
  localStorage.setItem(QUEUE(id), JSON.stringify(items));
  window.dispatchEvent(new Event("tanteo:queued"));
}

/** Append events; when the server cannot be reached, queue them (same key) and say so.
 *
 * A queued entry remembers the version it was made against (``expected``: the version the page
 * knew, plus the events queued before it), so that on its return an entry someone else overtook
 * meanwhile is held for the scorer's review instead of being recorded blindly (``flush``). */
export async function append(id, events, label, { ifMatch } = {}) {
  const key = newKey();
  const result = await call("POST", `/matches/${id}/events`, { events }, { token: tokenFor(id), key, ifMatch });
  if (result.offline) {
    const waiting = queued(id);
    const last = waiting[waiting.length - 1];
    const expected = ifMatch === undefined ? undefined
      : last && last.expected !== undefined ? last.expected + last.events.length : ifMatch;
    saveQueue(id, [...waiting, { key, events, label, expected, at: new Date().toISOString() }]);
    return { ...result, queued: true };
  }
  return result;
}

/** What happened while this phone was offline, when another phone recorded meanwhile:
 * ``{expected, current}`` (the version the waiting entry was made against, and the match's now). */
export function conflictOf(id) {
  try { return JSON.parse(localStorage.getItem(CONFLICT(id)) || "null"); } catch (error) { return null; }
}
function saveConflict(id, conflict) {
  if (conflict) localStorage.setItem(CONFLICT(id), JSON.stringify(conflict)); else localStorage.removeItem(CONFLICT(id));
}

/** Send queued entries in order, each once, with its key and its expected version (the server
 * answers a repeated key with the first result, even when the version has moved since). An entry
 * another phone overtook stops the queue: it and those after it wait for ``resolveConflict``. */
export async function flush(id) {
  const refused = [];
  let sent = 0;
  if (conflictOf(id)) return { sent, refused, conflict: conflictOf(id) };
  for (const item of queued(id)) {
    const result = await call("POST", `/matches/${id}/events`, { events: item.events }, { token: tokenFor(id), key: item.key, ifMatch: item.expected });
    if (result.offline || result.status >= 500) break;  // still away, or a storage fault: try again later
    if (result.status === 409 && result.body && result.body.code === "version.conflict") {
      const conflict = { expected: item.expected, current: result.body.currentVersion };
      saveConflict(id, conflict);
      return { sent, refused, conflict };
    }
    saveQueue(id, queued(id).filter((q) => q.key !== item.key));
    if (result.ok) sent += 1; else refused.push({ item, problem: result.body });
  }
  return { sent, refused, conflict: null };
}

/** The scorer's answer to a conflict for the first waiting entry: "send" it as it is (the rules
 * judge it against the match as it is now) or "discard" it. The entries after it keep waiting
 * for the same choice, one at a time; the conflict is over when none is left. */
export async function resolveConflict(id, choice) {
  const [item, ...rest] = queued(id);
  if (!item) { saveConflict(id, null); return { ok: true }; }
  let result = { ok: true };
  if (choice === "send") {
    result = await call("POST", `/matches/${id}/events`, { events: item.events }, { token: tokenFor(id), key: item.key });
    if (result.offline || result.status >= 500) return result;
  }
  saveQueue(id, rest);
  if (!rest.length) saveConflict(id, null);
  return { ...result, item };
}

export function dryRun(id, events) {
  return call("POST", `/matches/${id}/events?dryRun=true`, { events }, { token: tokenFor(id) });
}

/** Say a problem+json answer in a sentence, with its rule code. */
export function problemText(problem) {
  if (!problem) return { message: t("The server gave no answer."), code: "" };
  // "message" is the refusal without "the 2nd event of the batch": a page built the batch itself
  return { message: problem.message || problem.detail || problem.title || t("Refused."), code: problem.code || "" };
}

/** The rule code of a refusal (and the entries it concerns) for the curious, in a collapsed
 * "Details" disclosure: the sentence above it is what a player reads first. Null without a code. */
export function problemDetails(problem, where = "") {
  const code = problem && problem.code;
  if (!code) return null;
  return el("details", { class: "code" }, el("summary", { text: t("Details") }),
    el("span", { text: where ? t("rule code %(code)s; %(where)s", { code, where }) : t("rule code %(code)s", { code }) }));
}

/** Send a file's text as it is (an import): {ok, status, body, offline}, like call(). */
export async function upload(path, text, type) {
  let response;
  try {
    response = await fetch(path, { method: "POST", headers: { "Accept": "application/json", "Content-Type": type }, body: text });
  } catch (error) {
    return { ok: false, status: 0, body: null, offline: true };
  }
  let parsed = null;
  try { parsed = await response.json(); } catch (error) { parsed = null; }
  return { ok: response.ok, status: response.status, body: parsed, offline: false };
}

/** Save what a GET answers as a file, the token in the Authorization header (never in a URL). */
export async function download(path, token, fallbackName) {
  let response;
  try {
    response = await fetch(path, { headers: token ? { "Authorization": `Bearer ${token}` } : {} });
  } catch (error) {
    return { ok: false, offline: true, body: null };
  }
  if (!response.ok) {
    let body = null;
    try { body = await response.json(); } catch (error) { body = null; }
    return { ok: false, offline: false, body };
  }
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement("a"), { href: url, download: named ? named[1] : fallbackName });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return { ok: true, offline: false, body: null };
}
