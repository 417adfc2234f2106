// Every word a page script shows, in the reader's language: the server embeds the catalogs'
// strings the scripts use (api/i18n.py: script_words) in each page as a JSON data block, so the
// scripts keep no second table of words. Ids are the English sentences with named placeholders,
// %(name)s, so each language has its own word order.
const block = document.getElementById("words");
const given = block ? JSON.parse(block.textContent) : {};
/** The reader's language (the page's lang attribute, set by the server). */
export const lang = given.lang || document.documentElement.lang || "en";
const words = given.words || {};
const plural = new Intl.PluralRules(lang);

function fill(text, params) {
  return text.replace(/%\((\w+)\)[sd]/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** The sentence ``id`` in the reader's language, its %(name)s placeholders filled from ``params``. */
export function t(id, params = {}) {
  const text = words[id];
  return fill(typeof text === "string" && text ? text : id, params);
}

/** The singular or plural sentence for ``n`` (the language's own plural rule, from the browser's
 * Intl.PluralRules), with %(n)s and the other placeholders filled. */
export function tn(one, other, n, params = {}) {
  const forms = words[one];
  const category = plural.select(n);
  const text = forms && typeof forms === "object" ? forms[category] || forms.other : category === "one" ? one : other;
  return fill(text, { n: number(n), ...params });
}

/** A number as the reader's language writes it. */
export function number(n) {
  return new Intl.NumberFormat(lang).format(n);
}
