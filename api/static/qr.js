// QR codes drawn in this browser (qrcode-generator, vendored beside this file): the hand-over code
// holds the write key after '#', so it is never sent to the server to be drawn.
import qrcode from "./qrcode-generator.js";

const SVG = "http://www.w3.org/2000/svg";

/** The text as UTF-8 bytes (the encoder's own default keeps only the low byte of each character). */
qrcode.stringToBytes = (text) => Array.from(new TextEncoder().encode(text));

/** An SVG element drawing ``text`` as a QR code (error correction M, 2 modules of quiet zone on each
 * side), one square per dark module, named ``title`` for screen readers. */
export function qrSvg(text, title) {
  const code = qrcode(0, "M");
  code.addData(text, "Byte");
  code.make();
  const n = code.getModuleCount();
  const border = 2;
  const size = n + 2 * border;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("width", String(size * 5));
  svg.setAttribute("height", String(size * 5));
  svg.setAttribute("role", "img");
  svg.setAttribute("shape-rendering", "crispEdges");
  const name = document.createElementNS(SVG, "title");
  name.textContent = title;
  const light = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ width: size, height: size, fill: "#fff" })) light.setAttribute(k, String(v));
  let d = "";
  for (let r = 0; r < n; r += 1) {
    for (let c = 0; c < n; c += 1) if (code.isDark(r, c)) d += `M${c + border} ${r + border}h1v1h-1z`;
  }
  const dark = document.createElementNS(SVG, "path");
  dark.setAttribute("d", d);
  dark.setAttribute("fill", "#000");
  svg.append(name, light, dark);
  return svg;
}
