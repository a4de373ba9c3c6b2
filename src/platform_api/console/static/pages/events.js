// Events: subscriptions (create with the secret shown once, delete, re-enable) and the delivery log with
// state, attempts and the last answer, and redeliver.
import { api, page } from "../api.js";
import { can } from "../app.js";
import { action, clear, copyButton, empty, form, h, pagedTable, section, when } from "../ui.js";

export async function render(view, { org }) {
  if (!org) return clear(view, h("h1", {}, "Events"), empty("No organization to show."));
  const g = org.uid;
  const subsBox = h("div");
  const delBox = h("div");
  clear(view, h("h1", {}, "Events"), section("Subscriptions", subsBox), section("Deliveries", delBox));
  if (!can("subscriptions.list")) {
    clear(subsBox, empty("You may not see this organization's subscriptions."));
    clear(delBox);
    return;
  }
  const drawSubs = () => {
    const shown = h("div", { class: "secret", "aria-live": "polite" });
    const add = can("subscriptions.create")
      ? form("Create subscription", [["sink", "Sink URL", { type: "url", required: true, autocomplete: "off" }]], "Create subscription", async (v) => {
          const s = await api(`/events/v2/subscriptions/${g}`, { method: "POST", body: { sink: v.sink } });
          drawSubs();
          if (s.secret) subsBox.prepend(clear(shown, h("p", {}, "Signing secret (shown once): "), h("code", { class: "code" }, s.secret), " ", copyButton(s.secret, "Copy secret")));
        })
      : null;
    const list = pagedTable(
      "Subscriptions",
      ["Sink", "State", "Created", ""],
      (token) => page("/events/v2/subscriptions", "subscriptions", { "uidp.childrenOf": g, pageSize: 50, pageToken: token }),
      (s) => [
        h("code", {}, s.sink),
        s.disabled ? "disabled" : "enabled",
        when(s.createTime),
        [
          s.disabled && can("subscriptions.update") ? action("Re-enable", () => api(`/events/v2/subscriptions/${s.uid}`, { method: "PATCH", body: { disabled: false }, query: { updateMask: "disabled" } }), drawSubs) : "",
          can("subscriptions.delete") ? action("Delete", () => api(`/events/v2/subscriptions/${s.uid}`, { method: "DELETE" }), drawSubs, "danger") : "",
        ],
      ],
      "No subscriptions: events are recorded but sent nowhere.",
    );
    clear(subsBox, add, list);
  };
  drawSubs();
  const drawDeliveries = () =>
    clear(
      delBox,
      pagedTable(
        "Deliveries",
        ["Event", "Subject", "State", "Attempts", "Last answer", "Updated", ""],
        (token) => page("/events/v2/deliveries", "deliveries", { "uidp.descendantsOf": g, pageSize: 50, pageToken: token }),
        (d) => {
          const last = (d.attempts || []).slice(-1)[0];
          return [
            d.eventType,
            d.subject || "—",
            (d.state || "").replace("STATE_", "").toLowerCase(),
            String(d.attemptCount || 0),
            last ? `${last.statusCode || ""} ${last.error || ""}`.trim() || "—" : "—",
            when(d.updateTime || d.createTime),
            can("subscriptions.update") || can("subscriptions.create") ? action("Redeliver", () => api(`/events/v2/subscriptions/${d.uid.split("/").slice(0, -1).join("/")}:redeliver`, { method: "POST", body: { eventId: d.eventId } }), drawDeliveries) : "",
          ];
        },
        "No deliveries yet.",
      ),
    );
  drawDeliveries();
}
