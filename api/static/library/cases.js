// The list of cases: a page of them, the count, paging, and the facets of the same query; a new
// filter also redraws the graph and recounts the trends.

import { isAbort, latest } from "./api.js";
import { $, clear, el, plural, showError } from "./dom.js";
import { facetSelection, renderFacets } from "./facets.js";
import { loadConceptGraph } from "./concept-graph.js";
import { loadGraph } from "./graph.js";
import { loadTrends } from "./trends-chart.js";
import { caseFilter, fragmentFor, hasFilters, state, types } from "./state.js";

const PAGE_SIZE = 20;
const TAGS_SHOWN = 3; // root causes and symptoms under each title

const libraryQuery = () => `
query Library($filter: CaseFilter, $first: Int, $after: String) {
  cases(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges {
      node {
        id title published
        organisations { entity { name } }
        symptoms { entity { name } }
        rootCauses { entity { name } }
      }
    }
    ${facetSelection()}
  }
}`;

const request = latest();

export async function loadLibrary({ graph }) {
  const list = $("case-list");
  list.dataset.state = "loading";
  if (!list.children.length) list.append(el("li", { className: "empty" }, "Loading cases…"));
  $("cases-card").classList.add("loading");
  if (graph) {
    loadGraph();
    loadConceptGraph();
    loadTrends();
  }
  try {
    const data = await request(libraryQuery(), { filter: caseFilter(), first: PAGE_SIZE, after: state.after });
    state.libraryLoaded = true;
    showError(null);
    renderCases(data.cases);
    renderFacets(data.cases.facets);
    list.dataset.state = "ready";
  } catch (error) {
    if (isAbort(error)) return; // a newer load took over
    list.dataset.state = "error";
    showError(error.message);
  }
  $("cases-card").classList.remove("loading");
}

function renderCases(connection) {
  const count = connection.totalCount;
  const countNode = $("case-count");
  countNode.textContent = plural(count, "case", "cases");
  countNode.dataset.count = String(count);
  $("order-note").textContent = state.text ? "best match first" : "newest first";

  const list = clear($("case-list"));
  if (!connection.edges.length) {
    list.append(el("li", { className: "empty" }, hasFilters() ? "No case matches these filters." : "No cases yet: ingest some write-ups."));
  }
  for (const { node } of connection.edges) list.append(caseItem(node));

  const first = count ? state.pageIndex * PAGE_SIZE + 1 : 0;
  const last = state.pageIndex * PAGE_SIZE + connection.edges.length;
  $("page-range").textContent = count ? `${first} to ${last} of ${count}` : "";
  $("prev-page").disabled = state.pageIndex === 0;
  const next = $("next-page");
  next.disabled = !connection.pageInfo.hasNextPage;
  next.dataset.after = connection.pageInfo.endCursor || "";
}

function caseItem(node) {
  const organisations = node.organisations.map((link) => link.entity.name);
  const tags = ["rootCauses", "symptoms"].flatMap((key) =>
    node[key].slice(0, TAGS_SHOWN).map((link) => ({ t: types.byKey[key], name: link.entity.name })));
  return el(
    "li",
    { className: "case-item", dataset: { caseId: node.id } },
    el("a", { className: "case-title", href: fragmentFor({ ...state, caseId: node.id }) }, node.title),
    el(
      "div",
      { className: "case-meta" },
      node.published ? el("time", {}, node.published) : null,
      organisations.length ? el("span", { className: "case-orgs" }, organisations.join(", ")) : null,
    ),
    tags.length
      ? el("ul", { className: "tag-list" }, tags.map(({ t, name }) => el("li", { className: `tag type-${t.type}`, title: t.label }, name)))
      : null,
  );
}

export function changePage(direction) {
  if (direction > 0) {
    const after = $("next-page").dataset.after;
    if (!after) return;
    state.previous.push(state.after);
    state.after = after;
    state.pageIndex += 1;
  } else {
    if (!state.previous.length) return;
    state.after = state.previous.pop();
    state.pageIndex -= 1;
  }
  loadLibrary({ graph: false });
  $("cases-title").scrollIntoView({ block: "start", behavior: "smooth" });
}
