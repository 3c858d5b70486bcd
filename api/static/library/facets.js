// The filters: facet values in the sidebar, and the applied filters above the list (chips).

import { $, clear, el } from "./dom.js";
import { hasFilters, navigate, removeFilter, state, toggleFilter, types } from "./state.js";

const FACET_VALUES_SHOWN = 8;
const expanded = new Set(); // facets showing all their values

/** The Facets fields of a CaseConnection, for a GraphQL selection. */
export function facetSelection() {
  return `facets { ${types.list.map((t) => `${t.key} { name count }`).join(" ")} }`;
}

export function renderFacets(facets) {
  const container = clear($("facets"));
  for (const t of types.list) {
    const values = facets[t.key] || [];
    const applied = state.filter[t.key];
    // Applied values first (even when the facet no longer lists them), then the rest by count.
    const byName = new Map(values.map((v) => [v.name, v]));
    const ordered = [
      ...applied.map((name) => byName.get(name) || { name, count: null }),
      ...values.filter((v) => !applied.includes(v.name)),
    ];
    const open = expanded.has(t.key);
    const shown = open ? ordered : ordered.slice(0, Math.max(FACET_VALUES_SHOWN, applied.length));
    const group = el(
      "section",
      { className: `facet type-${t.type}`, dataset: { facet: t.key } },
      el("h3", { className: "facet-title" }, el("span", { className: "swatch", "aria-hidden": "true" }), t.plural,
        el("span", { className: "count" }, String(values.length))),
    );
    if (!ordered.length) group.append(el("p", { className: "hint" }, "None in these cases."));
    const list = el("ul", { className: "facet-values" });
    for (const value of shown) {
      const on = applied.includes(value.name);
      list.append(
        el(
          "li",
          {},
          el(
            "button",
            {
              type: "button", className: `facet-value${on ? " on" : ""}`, "aria-pressed": on ? "true" : "false",
              dataset: { name: value.name }, title: on ? "Remove this filter" : `Filter by this ${t.label.toLowerCase()}`,
              onClick: () => toggleFilter(t.key, value.name),
            },
            el("span", { className: "facet-name" }, value.name),
            el("span", { className: "facet-count" }, value.count === null ? "" : String(value.count)),
          ),
        ),
      );
    }
    group.append(list);
    if (ordered.length > shown.length || open) {
      group.append(
        el("button", {
          type: "button", className: "link-button more",
          onClick: () => {
            if (open) expanded.delete(t.key);
            else expanded.add(t.key);
            renderFacets(facets);
          },
        }, open ? "Show fewer" : `Show all ${ordered.length}`),
      );
    }
    container.append(group);
  }
}

export function renderChips() {
  const list = clear($("chips"));
  for (const t of types.list) {
    for (const name of state.filter[t.key]) {
      list.append(chip(t.label, name, `type-${t.type}`, () => removeFilter(t.key, name)));
    }
  }
  if (state.text) {
    list.append(chip("Text", `“${state.text}”`, "type-TEXT", () => navigate({ text: "" })));
  }
  const any = hasFilters();
  $("clear-all").hidden = !any;
  $("applied-hint").hidden = any;
}

function chip(kind, value, typeClass, onRemove) {
  return el(
    "li",
    { className: `chip ${typeClass}` },
    el("span", { className: "chip-type" }, kind),
    el("span", { className: "chip-name" }, value),
    el("button", {
      type: "button", className: "chip-remove", "aria-label": `Remove filter ${kind}: ${value}`,
      title: "Remove this filter", onClick: onRemove,
    }, "×"),
  );
}
