// DOM building for every page. Values from the API only ever become text nodes or attribute values set
// through the DOM (never markup), so a name like `<img onerror=…>` shows as those characters.

export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith("svg:")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === "href") el.setAttribute("href", safeHref(String(v)));
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  add(el, children);
  return el;
}

function add(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// Only our own paths and http(s) links: no javascript:, data: or other schemes from API values.
export function safeHref(value) {
  if (value.startsWith("/") && !value.startsWith("//")) return value;
  try {
    const u = new URL(value);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : "#";
  } catch {
    return "#";
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  add(el, children);
  return el;
}

export function link(path, ...children) {
  return h("a", { href: path, "data-link": "" }, ...children);
}

// Loading, empty and error states: one live region each page shows while it works.
export function loading(text = "Loading…") {
  return h("p", { class: "state", role: "status" }, text);
}

export function empty(text) {
  return h("p", { class: "state empty" }, text);
}

export function failure(err) {
  return h("p", { class: "state error", role: "alert" }, "Error: ", err && err.message ? err.message : String(err));
}

// A button that runs `run` once (disabled meanwhile), then `after` (a redraw); a failure replaces it with the
// API's message.
export function action(label, run, after, cls = "") {
  const b = h("button", { type: "button", class: cls }, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await run();
      after();
    } catch (e) {
      b.replaceWith(failure(e));
    }
  });
  return b;
}

export function copyButton(value, label = "Copy") {
  const b = h("button", { type: "button", class: "copy", "aria-label": `${label}: ${value}` }, label);
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      b.textContent = "Copied";
    } catch {
      b.textContent = "Copy failed";
    }
    setTimeout(() => (b.textContent = label), 1500);
  });
  return b;
}

export function table(caption, headers, rows) {
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((c) => h("td", {}, c))))),
  );
}

export function when(value) {
  if (!value) return "—";
  const t = Date.parse(value);
  if (isNaN(t)) return String(value);
  const s = (Date.now() - t) / 1000;
  const el = h("time", { datetime: value, title: new Date(t).toISOString() });
  if (s >= 0 && s < 60) el.textContent = "just now";
  else if (s >= 0 && s < 3600) el.textContent = `${Math.floor(s / 60)} min ago`;
  else if (s >= 0 && s < 86400) el.textContent = `${Math.floor(s / 3600)} h ago`;
  else el.textContent = new Date(t).toLocaleDateString("en", { year: "numeric", month: "short", day: "numeric" });
  return el;
}

export function bytes(n) {
  const v = Number(n || 0);
  if (v < 1024) return `${v} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let x = v / 1024;
  let i = 0;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return `${x.toFixed(2)} ${units[i]}`;
}

// A list paged by the API's page tokens: `load(token)` returns {items, next, total}; `row(item)` its cells.
// Earlier pages' tokens are kept so Previous works; nothing loads more than one page.
export function pagedTable(caption, headers, load, row, emptyText) {
  const box = h("div", { class: "paged" });
  const tokens = [""];
  let at = 0;
  async function show() {
    clear(box, loading());
    let pageData;
    try {
      pageData = await load(tokens[at]);
    } catch (e) {
      clear(box, failure(e));
      return;
    }
    const { items, next, total } = pageData;
    if (next) tokens[at + 1] = next;
    if (!items.length && at === 0) {
      clear(box, empty(emptyText));
      return;
    }
    const prev = h("button", { type: "button", disabled: at === 0 }, "Previous page");
    const more = h("button", { type: "button", disabled: !next }, "Next page");
    prev.addEventListener("click", () => {
      at--;
      show();
    });
    more.addEventListener("click", () => {
      at++;
      show();
    });
    const count = total !== undefined ? `${total} in all · ` : "";
    clear(
      box,
      table(caption, headers, items.map(row)),
      h("div", { class: "pager" }, prev, h("span", {}, `${count}page ${at + 1}`), more),
    );
  }
  show();
  return box;
}

let forms = 0; // a form per table row: two rows may carry the same label, never the same ids

export function form(label, fields, submit, onSubmit) {
  const status = h("p", { class: "form-status", role: "status" });
  const f = h("form", { class: "inline", "aria-label": label });
  const n = ++forms;
  for (const [name, text, attrs] of fields) {
    const id = `f${n}-${label.replace(/\W+/g, "-")}-${name}`;
    if (attrs && attrs.options) {
      const sel = h("select", { id, name }, attrs.options.map(([v, t]) => h("option", { value: v, selected: v === attrs.value }, t)));
      f.append(h("label", { for: id }, text), sel);
    } else {
      f.append(h("label", { for: id }, text), h("input", { id, name, ...(attrs || {}) }));
    }
  }
  f.append(h("button", { type: "submit" }, submit), status);
  f.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    status.textContent = "Working…";
    try {
      const out = await onSubmit(Object.fromEntries(new FormData(f).entries()), status);
      if (out !== false) status.textContent = typeof out === "string" ? out : "Done.";
    } catch (e) {
      status.textContent = "Error: " + e.message;
    }
  });
  return f;
}

export function section(title, ...children) {
  const id = "s-" + title.toLowerCase().replace(/\W+/g, "-");
  return h("section", { "aria-labelledby": id }, h("h2", { id }, title), ...children);
}
