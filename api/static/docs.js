// Starts Swagger UI on /docs (api/templates/swagger_ui.html) with the settings the page carries
// in data attributes: the page has no inline script, so the Content-Security-Policy holds there too.
"use strict";
(function () {
  const container = document.getElementById("swagger-ui-container");
  const config = Object.assign({ url: container.dataset.url, dom_id: "#swagger-ui-container" },
                               JSON.parse(container.dataset.config || "{}"));
  window.addEventListener("load", function () {
    window.ui = SwaggerUIBundle(config);
  });
})();
