// Building page elements: one small helper the pages share.

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
