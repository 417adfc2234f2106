// Every page: installs the service worker that lets Tanteo open with no network
// (api/app_shell.py, /sw.js), keeps a copy of what the page's reader opens next, and says
// plainly when the server cannot be reached and the page shows what was last known.
import { $, el } from "./dom.js";
import { t } from "./say.js";

const RETRY_MS = 4000;
let away = false;
let timer = null;

/** Is the server there? A HEAD the service worker lets through (no-store): never a kept copy. */
async function reachable() {
  try {
    const response = await fetch("/manifest.webmanifest", { method: "HEAD", cache: "no-store" });
    return response.status < 500;
  } catch (error) {
    return false;
  }
}

function showAway(isAway, wasAway) {
  const banner = $("offline");
  if (!banner) return;
  banner.replaceChildren();
  if (isAway) {
    banner.hidden = false;
    banner.textContent = $("scorer")
      ? t("No connection to the server: the match is shown as this phone last knew it. You can go on scoring: entries wait on this phone and are sent, once each and in order, when the connection is back.")
      : t("No connection to the server: this page is shown as this phone last knew it.");
  } else if (wasAway && !$("scorer")) {
    // the scorer's page reads the match again by itself; elsewhere the reader may be reading
    // or typing: offer the latest rather than reload under their fingers
    const latest = el("button", { type: "button", class: "button" }, t("Show the latest"));
    latest.addEventListener("click", () => location.reload());
    banner.append(el("span", { text: t("The connection is back.") }), " ", latest);
  } else {
    banner.hidden = true;
  }
}

/** Look again; while the server is away, keep looking gently. Tells the page when it is back. */
export async function check() {
  clearTimeout(timer);
  const up = await reachable();
  const wasAway = away;
  away = !up;
  showAway(away, wasAway);
  if (away) timer = setTimeout(check, RETRY_MS);
  else if (wasAway) window.dispatchEvent(new Event("tanteo:back"));
}

window.addEventListener("tanteo:unreachable", () => { if (!away) check(); });
window.addEventListener("online", check);
window.addEventListener("offline", check);
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") check(); });

async function install() {
  if (!("serviceWorker" in navigator)) return;  // an old browser: the pages work, online only
  try {
    await navigator.serviceWorker.register("/sw.js", { scope: "/", updateViaCache: "none" });
    const ready = await navigator.serviceWorker.ready;
    const keep = [...document.querySelectorAll("[data-keep]")].flatMap((node) => node.dataset.keep.split(/\s+/)).filter(Boolean);
    if (keep.length && ready.active) ready.active.postMessage({ keep });
  } catch (error) {
    // no worker (a private window, storage refused): the pages still work while online
  }
}

install();
check();
