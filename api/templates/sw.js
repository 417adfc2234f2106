// Tanteo's service worker (api/app_shell.py says why): the app's files kept per version, and
// the last copy of each page and API read answered when the server cannot be reached.
const VERSION = {{ version | tojson }};
const FILES = {{ files | tojson }};
const SHELL = `tanteo-shell-${VERSION}`;   // the static files of this version, fetched at install
const PAGES = `tanteo-pages-${VERSION}`;   // pages as last read: they name this version's scripts
const READS = "tanteo-reads";              // the API's public answers as last read (plain data)
const KEYED = "tanteo-reads-keyed";        // answers read with a write key, never given without one
const KEEP = [SHELL, PAGES, READS, KEYED];
const WAIT_MS = 4000;                      // a server slower than this is treated as gone

self.addEventListener("install", (event) => {
  // "reload": from the server, not from the browser's HTTP cache, so the version is what it says
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(FILES.map((url) => new Request(url, { cache: "reload" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("tanteo-") && !KEEP.includes(n)).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;  // writes go out as they are
  if (request.cache === "no-store") return;  // a page asking whether the server is there
  if (url.pathname.endsWith("/stream") || (request.headers.get("Accept") || "").includes("text/event-stream")) return;
  if (url.pathname === "/sw.js") return;
  event.respondWith(networkFirst(request, cacheFor(request, url)));
});

self.addEventListener("message", (event) => {
  // a page names what its reader is likely to open next (the replay, the rules): keep a copy now
  const urls = event.data && Array.isArray(event.data.keep) ? event.data.keep : [];
  event.waitUntil(Promise.all(urls.map(async (path) => {
    const url = new URL(path, self.location.origin);
    if (url.origin !== self.location.origin) return;
    const request = new Request(url, { headers: { Accept: path.startsWith("/matches/") || path.startsWith("/games") ? "application/json" : "text/html" } });
    try { await networkFirst(request, cacheFor(request, url)); } catch (error) { /* kept next time */ }
  })));
});

function cacheFor(request, url) {
  if (url.pathname.startsWith("/static/")) return SHELL;
  if (request.headers.has("Authorization")) return KEYED;
  if (request.mode === "navigate" || (request.headers.get("Accept") || "").includes("text/html")) return PAGES;
  return READS;
}

async function networkFirst(request, name) {
  const cache = await caches.open(name);
  try {
    const response = await fetchWithin(request, WAIT_MS);
    if (response.ok && response.type === "basic") await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const kept = (await cache.match(request, { ignoreVary: true })) || (name === SHELL ? await caches.match(request, { ignoreVary: true }) : undefined);
    if (!kept) return Response.error();
    const headers = new Headers(kept.headers);
    headers.set("X-Tanteo-Offline", "1");
    return new Response(kept.body, { status: kept.status, statusText: kept.statusText, headers });
  }
}

function fetchWithin(request, ms) {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  return fetch(request, { signal: stop.signal }).finally(() => clearTimeout(timer));
}
