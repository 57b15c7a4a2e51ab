// The panel's HTTP client: conditional GETs (ETag / If-None-Match) so a poll of an
// unchanged list or record is a bodiless 304, and JSON errors turned into sentences.

const config = JSON.parse(document.getElementById("panel-config").textContent);
export const API = config.api;
export const POLL_MS = config.pollMs;

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function errorOf(response) {
  try {
    const body = await response.json();
    if (body && typeof body.error === "string") return new ApiError(response.status, body.error);
  } catch {
    // Not JSON: fall through to the status line.
  }
  return new ApiError(response.status, `HTTP ${response.status} ${response.statusText}`);
}

/** A resource polled with its ETag: get() answers the body, or null when unchanged. */
export class Conditional {
  constructor(path) {
    this.path = path;
    this.etag = null;
  }

  async get() {
    const headers = { Accept: "application/json" };
    if (this.etag) headers["If-None-Match"] = this.etag;
    const response = await fetch(API + this.path, { headers, cache: "no-store" });
    if (response.status === 304) return null;
    if (!response.ok) throw await errorOf(response);
    this.etag = response.headers.get("ETag");
    return response.json();
  }

  reset() {
    this.etag = null;
  }
}

export async function deleteRecord(id) {
  const response = await fetch(`${API}/records/${encodeURIComponent(id)}`, { method: "DELETE" });
  if (!response.ok) throw await errorOf(response);
}

export async function getSettings() {
  const response = await fetch(`${API}/settings`, { cache: "no-store" });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

export async function putSettings(body) {
  const response = await fetch(`${API}/settings`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

/** GET a JSON endpoint with query parameters; a failure throws its one sentence. */
export async function getJson(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`${API}${path}${query ? `?${query}` : ""}`, { cache: "no-store" });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

/** POST a JSON body to an endpoint; a failure throws its one sentence. */
export async function postJson(path, body) {
  const response = await fetch(`${API}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}
