"""English left on a page shown in another language (issue 28).

A page read in Catalan, Spanish or German must not show an English interface word. What a person
reads is collected from the live page: every visible text node, and the words a page gives
without showing them as text (``placeholder``, ``aria-label``, ``title``, ``alt``, a button's
``value``, an ``<option>``'s text). Each is compared with the English catalog: a text that *is* an
English message whose translation differs is English left over, and so is a text that holds an
English word no other language writes ("the", "and", "your", ...), which catches sentences the
code never marked for translation. Players' names, cards, numbers and codes pass.
"""

from __future__ import annotations

import functools
import re

from babel.messages.pofile import read_po
from playwright.sync_api import Page

from api import i18n

ENGLISH_ONLY = {
    "the", "and", "your", "this", "that", "with", "from", "for", "who", "each", "of", "to", "is",
    "are", "by", "it", "at", "not", "yet", "here", "there", "what", "which", "when", "would",
    "cannot", "must", "should", "these", "those", "entry", "entries", "player", "players", "score",
    "scores", "card", "cards", "round", "rounds", "points", "open", "hide", "send", "save", "cancel",
    "back", "next", "new", "undo", "record", "recorded", "print", "share", "follow", "rules", "deal",
    "deals", "turn", "wins", "won", "takes", "plays", "draws", "trick", "tricks",
}  # fmt: skip
"""Words only English writes: none of them is a Catalan, Spanish or German word a page would show."""

COLLECT = """() => {
  const seen = [];
  const visible = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, template, [data-untranslated]")) continue;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    if (text && (visible(parent) || parent.closest("details"))) seen.push(text);
  }
  for (const el of document.querySelectorAll("[placeholder], [aria-label], [title], [alt], input[type=button], input[type=submit], option")) {
    if (el.closest("[data-untranslated]")) continue;
    for (const name of ["placeholder", "aria-label", "title", "alt"]) {
      const value = el.getAttribute(name);
      if (value && value.trim()) seen.push(value.trim());
    }
    if (el.matches("input[type=button], input[type=submit]") && el.value) seen.push(el.value);
    if (el.matches("option") && el.textContent.trim()) seen.push(el.textContent.trim());
  }
  return seen;
}"""


@functools.lru_cache(maxsize=None)
def _english_messages(lang: str) -> frozenset[str]:
    """English message ids whose ``lang`` translation differs (so seeing the id is seeing English)."""
    with (i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    found = set()
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        found |= {i for i in ids if i not in strings and not i18n.PLACEHOLDER.search(i) and "{" not in i}
    return frozenset(found)


def english_words(text: str) -> list[str]:
    """The English-only words in ``text``."""
    text = re.sub(r"\S*[/#]\S*", " ", text)  # a link or a rule anchor (/rules/la-cabra#scoring-deal) is no word
    words = re.findall(r"[A-Za-zÀ-ÿ]+(?:[·'’][A-Za-zÀ-ÿ]+)*", text)  # "Cancel·la", "d'oros": one word each
    return [w for w in words if w.lower() in ENGLISH_ONLY and not w.isupper()]


def english_on(page: Page, lang: str) -> list[str]:
    """Every text a reader of ``page`` sees (or hears) that is English in a page said in ``lang``."""
    messages = _english_messages(lang)
    left = []
    for text in dict.fromkeys(page.evaluate(COLLECT)):
        if text in messages or english_words(text):
            left.append(text)
    return left
