// New club: POST /clubs with its name and place; the club's key is kept in this browser, then
// the club's page opens.
import { call, problemDetails, problemText } from "./api.js";
import { keepKey, sayAfterReload } from "./club_key.js";
import { $ } from "./dom.js";
import { t } from "./say.js";

$("new-club").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("club-name").value.trim();
  const place = $("club-place").value.trim();
  const error = $("club-error");
  if (!name) {
    error.hidden = false;
    error.textContent = t("Give the club a name.");
    $("club-name").focus();
    return;
  }
  $("create-club").disabled = true;
  const result = await call("POST", "/clubs", place ? { name, place } : { name });
  $("create-club").disabled = false;
  if (!result.ok) {
    error.hidden = false;
    if (result.offline) error.textContent = t("The server cannot be reached; nothing was created.");
    else error.replaceChildren(problemText(result.body).message, problemDetails(result.body) || "");
    return;
  }
  keepKey(result.body.id, result.body.key);
  sayAfterReload(t("Club created. This browser holds its organiser's key."), "add-player");
  location.assign(`/c/${encodeURIComponent(result.body.id)}`);
});
