// Following a match in play through GET /matches/{id}/stream (Server-Sent Events; id = seq).
// One place for both readers' pages. The server holds a worker thread per open stream, so a
// page lets go of it when it is hidden or left, and picks up after the last seq it saw when
// it is shown again; a dropped connection is resumed by the browser with Last-Event-ID.

/** Follow ``id`` after seq ``after``; ``onEvent(seq)`` runs for each stored event. Returns {close}. */
export function follow(id, after, onEvent, options = {}) {
  return followStream(`/matches/${id}/stream`, after, onEvent, options);
}

/** Follow the event stream at ``path`` (a match's, or a club night's: one stream for all its
 * tables) after event id ``after``; ``onEvent(id)`` runs for each event. Returns {close}. */
export function followStream(path, after, onEvent, { onLive } = {}) {
  let last = after;
  let source = null;
  const open = () => {
    if (source) return;
    source = new EventSource(`${path}?lastEventId=${last}`);
    source.onmessage = (event) => {
      const seq = Number(event.lastEventId);
      if (Number.isInteger(seq) && seq > last) last = seq;
      onEvent(seq);
    };
    // A refused stream (the server's streams are all taken: 503 stream.busy) is not retried by
    // the browser itself; try again a little later, after the last seq seen.
    // "live" only while the stream is open: a page shown from this phone's copy, with the server
    // gone, does not claim to follow the match (the browser reconnects by itself, then it is again)
    source.onopen = () => { if (onLive) onLive(true); };
    source.onerror = () => {
      if (onLive) onLive(false);
      if (source && source.readyState === EventSource.CLOSED) {
        close();
        setTimeout(() => { if (!document.hidden) { open(); onEvent(last); } }, 10000);
      }
    };
  };
  const close = () => {
    if (!source) return;
    source.close();
    source = null;
    if (onLive) onLive(false);
  };
  document.addEventListener("visibilitychange", () => { if (document.hidden) close(); else { open(); onEvent(last); } });
  window.addEventListener("pagehide", close);
  if (!document.hidden) open();
  return { close };
}

/** Follow a page the server draws (the match page, the embedded scoreboard): while its match is
 * in play, each event the stream announces calls ``redraw`` — one at a time, and once more if
 * events came meanwhile — and the element ``liveMark`` is shown while the stream is open. */
export function redrawOnEvents(root, redraw, liveMark) {
  if (root.dataset.status !== "playing" || typeof EventSource === "undefined") return;
  let busy = null;
  const queueRedraw = () => {
    if (busy) { busy.again = true; return; }
    busy = { again: false };
    (async () => {
      try { do { busy.again = false; await redraw(); } while (busy.again); } finally { busy = null; }
    })();
  };
  follow(root.dataset.match, Number(root.dataset.version), queueRedraw,
    { onLive: (on) => { document.getElementById(liveMark).hidden = !on; } });
}
