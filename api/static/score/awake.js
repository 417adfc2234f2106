// Keeping the phone awake while a match is scored (the Screen Wake Lock API): on while the match is
// in play, a toggle the scorer can turn off (remembered in this browser), held again when the page
// comes back to the front, and a plain sentence, not an error, where the browser cannot.
import { $ } from "../dom.js";
import { t } from "../say.js";

const KEY = "tanteo.awake";
const button = $("awake");
const note = $("awake-note");
let sentinel = null;

const wanted = () => localStorage.getItem(KEY) !== "off";

function show() {
  const held = !!sentinel && !sentinel.released;
  button.setAttribute("aria-pressed", String(held));
  button.dataset.held = String(held);
}

async function hold(asked) {
  if (!("wakeLock" in navigator)) {
    if (asked) note.textContent = t("This browser cannot keep the screen on: make the phone's screen timeout longer while you score.");
    show();
    return;
  }
  if (document.visibilityState !== "visible" || (sentinel && !sentinel.released)) return;
  try {
    sentinel = await navigator.wakeLock.request("screen");
    sentinel.addEventListener("release", show);
    note.textContent = t("The screen stays on while this page is open.");
  } catch {
    note.textContent = t("The screen could not be kept on just now (the phone may be saving battery).");
  }
  show();
}

async function letGo() {
  const held = sentinel;
  sentinel = null;
  if (held && !held.released) await held.release();
  note.textContent = "";
  show();
}

button.addEventListener("click", async () => {
  const on = button.getAttribute("aria-pressed") === "true";
  localStorage.setItem(KEY, on ? "off" : "on");
  if (on) await letGo();
  else await hold(true);
});
// the browser lets a wake lock go when the page is hidden (another app, the phone locked): take it again
document.addEventListener("visibilitychange", () => { if (playing && wanted() && document.visibilityState === "visible") hold(false); });

let playing = false;
/** Keep the screen on while the match is in play (unless the scorer turned it off); let it go once it is over. */
export function keepAwake(inPlay) {
  playing = inPlay;
  if (inPlay && wanted()) hold(false);
  else if (!inPlay) letGo();
}
