// The printable sheet's Print button (an inline onclick would be blocked by the Content-Security-Policy).
for (const button of document.querySelectorAll("[data-print]")) {
  button.addEventListener("click", () => window.print());
}
