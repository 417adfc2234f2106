// The pages' colours, chosen before the first paint: a classic script in <head> (the
// Content-Security-Policy allows no inline script) that sets <html data-theme="light|dark|contrast">.
// "auto" follows the device: high contrast when it asks for more contrast (prefers-contrast: more),
// else dark when it prefers a dark colour scheme, else light. The reader's choice in the header's
// selector overrides it and is remembered in this browser (localStorage), on every page.
(function () {
  "use strict";
  var KEY = "tanteo.theme";
  var CHOICES = ["auto", "light", "dark", "contrast"];
  var root = document.documentElement;
  var dark = window.matchMedia("(prefers-color-scheme: dark)");
  var more = window.matchMedia("(prefers-contrast: more)");

  var held = null;  // the choice of this page, where the browser refuses storage (some private modes)

  function chosen() {
    var choice = held;
    try { choice = localStorage.getItem(KEY); } catch (e) { /* not stored: this page's choice */ }
    return CHOICES.indexOf(choice) > 0 ? choice : "auto";
  }

  function apply() {
    var choice = chosen();
    var theme = choice !== "auto" ? choice : more.matches ? "contrast" : dark.matches ? "dark" : "light";
    root.setAttribute("data-theme", theme);
  }

  function follow(query) {  // the device changes its mind (evening, accessibility settings)
    if (query.addEventListener) query.addEventListener("change", apply);
    else if (query.addListener) query.addListener(apply);
  }

  apply();
  follow(dark);
  follow(more);
  window.addEventListener("storage", function (e) { if (e.key === KEY) apply(); });  // chosen in another tab
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("theme-choice");
    if (!select) return;
    select.value = chosen();
    select.addEventListener("change", function () {
      held = select.value;
      try { localStorage.setItem(KEY, held); } catch (e) { /* applied to this page only */ }
      apply();
    });
    select.closest(".theme").hidden = false;  // without this script the selector stays hidden
  });
})();
