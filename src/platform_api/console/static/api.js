// Calls to our own API with the person's token: JSON in and out, the API's google.rpc.Status message on error.
import { refresh, token } from "./session.js";

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `The server answered ${status}.`);
    this.status = status;
    this.body = body;
  }
}

export class SignedOut extends Error {}

async function send(path, method, query, body) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (Array.isArray(v)) v.forEach((x) => url.searchParams.append(k, x));
    else if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
  }
  const headers = { authorization: "Bearer " + (await token()) };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
}

export async function api(path, { method = "GET", query, body } = {}) {
  let r = await send(path, method, query, body);
  if (r.status === 401 && (await refresh())) r = await send(path, method, query, body);
  const text = await r.text();
  let data = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { message: text.slice(0, 200) };
  }
  if (r.status === 401) throw new SignedOut(data.message || "Signed out");
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

// One page of a list: the items under `key`, the next page's token, the total when the API gave one.
export async function page(path, key, query = {}) {
  const data = await api(path, { query });
  return { items: data[key] || [], next: data.nextPageToken || "", total: data.totalCount };
}
