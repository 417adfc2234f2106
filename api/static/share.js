// The Share button of the match page and the sheet (issue 29, "Share"): the match's public link with
// its result in one line, through the phone's own share sheet (Web Share API) where there is one;
// else the link is copied (Clipboard API); else it is shown selected in a read-only field, with a
// sentence saying to copy it. What happened is said in the role=status line under the button.
// The link is the server's public /m/{id}: never a write key, never anything after #.
import { t } from "./say.js";

const box = document.getElementById("share");
const button = document.getElementById("share-button");
const status = document.getElementById("share-status");
const field = document.getElementById("share-copy");
const input = document.getElementById("share-link");

function say(words) {
  status.textContent = words;
}

function showField() {
  field.hidden = false;
  input.focus();
  input.select();
  say(t("Copy the link from the field below: it is selected."));
}

/** The server names the match's address only if told its public one (never from a forgeable
 * Host header); otherwise the link is completed with the address this browser shows. */
const absolute = (url) => new URL(url, location.href).href;

async function copy(url) {
  try {
    if (!navigator.clipboard || !navigator.clipboard.writeText) throw new Error("no clipboard");
    await navigator.clipboard.writeText(url);
    field.hidden = true;
    say(t("Link copied: paste it in your chat."));
  } catch {
    showField();
  }
}

async function share() {
  // the match page follows the match live: its newest result line is in #share-text
  const fresh = document.getElementById("share-text");
  const text = (fresh && fresh.dataset.text) || box.dataset.text;
  const url = absolute(box.dataset.url);
  const data = { title: box.dataset.title, text, url };
  say("");
  if (navigator.share && (!navigator.canShare || navigator.canShare(data))) {
    try {
      await navigator.share(data);
      say(t("Shared."));
      return;
    } catch (error) {
      if (error && error.name === "AbortError") return; // the reader closed the share sheet: nothing to say
    }
  }
  await copy(url);
}

const code = document.getElementById("embed-code");
if (code) code.textContent = code.textContent.replace(/src="(\/[^"]*)"/, (_, path) => `src="${absolute(path)}"`);
if (input) input.value = absolute(input.value);

if (box && button) {
  button.hidden = false; // without this script there is only the result card to download
  button.addEventListener("click", share);
}
