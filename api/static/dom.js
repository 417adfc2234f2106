// Building page elements: the small helpers the pages share (one el, one $, one seat namer).
import { lang, t } from "./say.js";

// $("id"): the page's element with that id.
export const $ = (id) => document.getElementById(id);

// seatNamer(players): a function from a seat number to its player's name ("seat 3" when unnamed);
// ``players`` is the list, or a function returning the current list (it may change as the match loads).
export function seatNamer(players) {
  const list = typeof players === "function" ? players : () => players;
  return (s) => list()[s] ?? t("seat %(seat)s", { seat: s + 1 });
}

// el("button", {text: "Save", onclick: save, disabled: true}, child…): attributes by name, "text" as
// the text, "on…" as listeners; false or null leaves an attribute out, true sets it empty.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

// keepingFocus(picker, redraw): redraw a group of buttons without losing the keyboard's place. A
// redraw replaces the pressed button, and the browser would send focus back to the top of the
// page; the button with the same label (else the group's first) takes it again.
export function keepingFocus(container, redraw) {
  const active = document.activeElement;
  const label = active && active !== container && container.contains(active) ? active.getAttribute("aria-label") : null;
  redraw();
  if (label == null || container.contains(document.activeElement)) return;
  const buttons = [...container.querySelectorAll("button:not([disabled])")];
  const same = buttons.find((b) => b.getAttribute("aria-label") === label) || buttons[0];
  if (same) same.focus();
}

// listed(names, "or"): names joined as the reader's language joins them ("Anna, Ben and Dora",
// "Anna, Ben i Dora", "Anna, Ben und Dora"; with "or", "Anna or Ben", "Anna o Ben"), as the server's
// Listed does (engines/said.py).
export function listed(names, kind = "and") {
  if (lang === "en") {
    if (kind === "or") return names.join(" or ");
    return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : (names[0] ?? "");
  }
  return new Intl.ListFormat(lang, { type: kind === "or" ? "disjunction" : "conjunction" }).format(names);
}
