// The Incident Library page. Everything it shows comes from the GraphQL API at /graphql.
//
// Stored text (titles, write-ups, entity names, evidence) is untrusted: the DOM is built with
// createElement and textContent only, never innerHTML, and links are only made from http(s) URLs.
// The page state (filters, search text, open case) lives in the URL fragment, so views can be
// bookmarked and the back button works; paging lives in memory.

const PAGE_SIZE = 20;
const GRAPH_CASES = 30;
const FACET_VALUES_SHOWN = 8;
const SEARCH_DELAY_MS = 250;
const TEXT_MATCHES_SHOWN = 5;

// The five entity types: the CaseFilter field, the EntityType/NodeType value, the URL key, labels.
const TYPES = [
  { key: "symptoms", type: "SYMPTOM", param: "symptom", label: "Symptom", plural: "Symptoms" },
  { key: "rootCauses", type: "ROOT_CAUSE", param: "rootCause", label: "Root cause", plural: "Root causes" },
  { key: "components", type: "COMPONENT", param: "component", label: "Component", plural: "Components" },
  {
    key: "contributingFactors", type: "CONTRIBUTING_FACTOR", param: "contributingFactor",
    label: "Contributing factor", plural: "Contributing factors",
  },
  { key: "organisations", type: "ORGANISATION", param: "organisation", label: "Organisation", plural: "Organisations" },
];
const TYPE_BY_ENUM = Object.fromEntries(TYPES.map((t) => [t.type, t]));
const TYPE_BY_KEY = Object.fromEntries(TYPES.map((t) => [t.key, t]));
const LEGEND = [...TYPES.map((t) => ({ type: t.type, label: t.label })), { type: "CASE", label: "Case" }];

// ------------------------------------------------------------------ GraphQL documents

const LINK_FIELDS = "entity { name } evidence { sentence mention start end method confidence section }";

const LIBRARY_QUERY = `
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
    facets {
      symptoms { name count }
      rootCauses { name count }
      components { name count }
      contributingFactors { name count }
      organisations { name count }
    }
  }
}`;

const GRAPH_QUERY = `
query Graph($filter: CaseFilter, $limit: Int) {
  subgraph(filter: $filter, limit: $limit) {
    nodes { id type name title }
    edges { source target type }
  }
}`;

const SEARCH_QUERY = `
query Search($text: String!, $filter: CaseFilter, $first: Int) {
  suggestFilters(text: $text) { type name mention confidence }
  cases(filter: $filter, first: $first) {
    totalCount
    edges { node { id title published } }
  }
}`;

const CASE_QUERY = `
query CaseView($id: ID!) {
  case(id: $id) {
    id title source published layout text detection remediation lessons
    symptoms { ${LINK_FIELDS} }
    rootCauses { ${LINK_FIELDS} }
    components { ${LINK_FIELDS} }
    contributingFactors { ${LINK_FIELDS} }
    organisations { ${LINK_FIELDS} }
  }
  relatedCases(id: $id, first: 5) { sharedCount case { id title published } }
}`;

class ApiError extends Error {}

async function graphql(query, variables) {
  let response;
  try {
    response = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new ApiError("The API did not answer; is the server running?");
  }
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`The API answered ${response.status} without a GraphQL result.`);
  }
  if (body.errors && body.errors.length) {
    throw new ApiError(body.errors.map((error) => error.message).join(" "));
  }
  if (!response.ok || !body.data) throw new ApiError(`The API answered ${response.status}.`);
  return body.data;
}

// ------------------------------------------------------------------ DOM helpers (no innerHTML)

const $ = (id) => document.getElementById(id);

/** An element with properties/attributes and children (strings become text nodes). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "className") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "onClick") node.addEventListener("click", value);
    else if (name === "href") node.setAttribute("href", value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function clear(node) {
  node.replaceChildren();
  return node;
}

/** An http(s) URL as a string, or null: a stored `javascript:` source never becomes a link. */
function safeUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

function showError(message) {
  const banner = $("error");
  if (!message) {
    banner.hidden = true;
    clear(banner);
    return;
  }
  clear(banner).append(el("strong", {}, "Something went wrong. "), message);
  banner.hidden = false;
}

// ------------------------------------------------------------------ state and the URL fragment

function emptyFilter() {
  return Object.fromEntries(TYPES.map((t) => [t.key, []]));
}

const state = {
  filter: emptyFilter(),
  text: "",
  caseId: null,
  after: null, // cursor of the current page (null: the first)
  previous: [], // cursors of the pages before it
  pageIndex: 0,
};

function readFragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const filter = emptyFilter();
  for (const t of TYPES) filter[t.key] = [...new Set(params.getAll(t.param).filter((v) => v.trim()))];
  return { filter, text: (params.get("text") || "").trim(), caseId: params.get("case") || null };
}

function fragmentFor(view) {
  const params = new URLSearchParams();
  for (const t of TYPES) for (const value of view.filter[t.key]) params.append(t.param, value);
  if (view.text) params.set("text", view.text);
  if (view.caseId) params.set("case", view.caseId);
  const text = params.toString();
  return text ? `#${text}` : "#";
}

/** Go to a view: filters, text, open case. Paging starts over when the filters change. */
function navigate(changes) {
  const view = {
    filter: changes.filter ?? state.filter,
    text: changes.text ?? state.text,
    caseId: "caseId" in changes ? changes.caseId : state.caseId,
  };
  const target = fragmentFor(view);
  const current = location.hash || "#";
  if (target === current) {
    applyFragment();
  } else {
    location.hash = target; // -> hashchange -> applyFragment
  }
}

let lastFilterKey = null;

function applyFragment() {
  const view = readFragment();
  const filterKey = JSON.stringify([view.filter, view.text]);
  const filterChanged = filterKey !== lastFilterKey;
  Object.assign(state, view);
  if (filterChanged) {
    state.after = null;
    state.previous = [];
    state.pageIndex = 0;
  }
  renderChips();
  syncSearchBox();
  if (state.caseId) {
    showCase(state.caseId);
  } else {
    showLibrary();
  }
  if (filterChanged || !libraryLoaded) {
    lastFilterKey = filterKey;
    loadLibrary({ graph: true });
  }
}

function hasFilters() {
  return Boolean(state.text) || TYPES.some((t) => state.filter[t.key].length);
}

/** The CaseFilter input for the current state (only what is set), plus optional overrides. */
function caseFilter(overrides = {}) {
  const filter = {};
  for (const t of TYPES) if (state.filter[t.key].length) filter[t.key] = [...state.filter[t.key]];
  if (state.text) filter.text = state.text;
  Object.assign(filter, overrides);
  return Object.keys(filter).length ? filter : null;
}

function addFilter(typeKey, name) {
  const filter = structuredClone(state.filter);
  if (!filter[typeKey].includes(name)) filter[typeKey].push(name);
  navigate({ filter, caseId: null });
}

function removeFilter(typeKey, name) {
  const filter = structuredClone(state.filter);
  filter[typeKey] = filter[typeKey].filter((value) => value !== name);
  navigate({ filter });
}

function toggleFilter(typeKey, name) {
  if (state.filter[typeKey].includes(name)) removeFilter(typeKey, name);
  else addFilter(typeKey, name);
}

// ------------------------------------------------------------------ applied filters (chips)

function renderChips() {
  const list = clear($("chips"));
  for (const t of TYPES) {
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

// ------------------------------------------------------------------ the library: facets, list, graph

let libraryLoaded = false;
let librarySequence = 0;
let graphSequence = 0;

async function loadLibrary({ graph }) {
  const sequence = ++librarySequence;
  const list = $("case-list");
  list.dataset.state = "loading";
  if (!list.children.length) list.append(el("li", { className: "empty" }, "Loading cases…"));
  $("cases-card").classList.add("loading");
  if (graph) loadGraph();
  try {
    const data = await graphql(LIBRARY_QUERY, { filter: caseFilter(), first: PAGE_SIZE, after: state.after });
    if (sequence !== librarySequence) return;
    libraryLoaded = true;
    showError(null);
    renderCases(data.cases);
    renderFacets(data.cases.facets);
    list.dataset.state = "ready";
  } catch (error) {
    if (sequence !== librarySequence) return;
    list.dataset.state = "error";
    showError(error.message);
  } finally {
    if (sequence === librarySequence) $("cases-card").classList.remove("loading");
  }
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
  const tags = [
    ...node.rootCauses.slice(0, 3).map((link) => ({ t: TYPE_BY_KEY.rootCauses, name: link.entity.name })),
    ...node.symptoms.slice(0, 3).map((link) => ({ t: TYPE_BY_KEY.symptoms, name: link.entity.name })),
  ];
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

const expandedFacets = new Set();

function renderFacets(facets) {
  const container = clear($("facets"));
  for (const t of TYPES) {
    const values = facets[t.key] || [];
    const applied = state.filter[t.key];
    // Applied values first (even when the facet no longer lists them), then the rest by count.
    const byName = new Map(values.map((v) => [v.name, v]));
    const ordered = [
      ...applied.map((name) => byName.get(name) || { name, count: null }),
      ...values.filter((v) => !applied.includes(v.name)),
    ];
    const expanded = expandedFacets.has(t.key);
    const shown = expanded ? ordered : ordered.slice(0, Math.max(FACET_VALUES_SHOWN, applied.length));
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
    if (ordered.length > shown.length || expanded) {
      group.append(
        el("button", {
          type: "button", className: "link-button more",
          onClick: () => {
            if (expanded) expandedFacets.delete(t.key);
            else expandedFacets.add(t.key);
            renderFacets(facets);
          },
        }, expanded ? "Show fewer" : `Show all ${ordered.length}`),
      );
    }
    container.append(group);
  }
}

function changePage(direction) {
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

// ------------------------------------------------------------------ the graph view (cytoscape)

let cy = null;

function cssColor(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

function typeColor(type) {
  return cssColor(`--type-${type.toLowerCase().replace(/_/g, "-")}`, "#868e96");
}

function renderLegend() {
  const legend = clear($("legend"));
  for (const item of LEGEND) {
    legend.append(el("li", { className: `legend-item type-${item.type}` }, el("span", { className: "swatch", "aria-hidden": "true" }), item.label));
  }
}

function shorten(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

async function loadGraph() {
  const sequence = ++graphSequence;
  const container = $("graph");
  const note = $("graph-note");
  if (typeof window.cytoscape !== "function") {
    container.dataset.state = "unavailable";
    note.textContent = "The graph library is not installed (make api/static/vendor/cytoscape.min.js).";
    return;
  }
  container.dataset.state = "loading";
  if (!cy) note.textContent = "Loading the graph…";
  try {
    const data = await graphql(GRAPH_QUERY, { filter: caseFilter(), limit: GRAPH_CASES });
    if (sequence !== graphSequence) return;
    drawGraph(data.subgraph);
  } catch (error) {
    if (sequence !== graphSequence) return;
    container.dataset.state = "error";
    note.textContent = `The graph could not be loaded: ${error.message}`;
  }
}

function drawGraph(subgraph) {
  const container = $("graph");
  const degree = new Map();
  for (const edge of subgraph.edges) {
    degree.set(edge.source, (degree.get(edge.source) || 0) + 1);
    degree.set(edge.target, (degree.get(edge.target) || 0) + 1);
  }
  const elements = [
    ...subgraph.nodes.map((node) => ({
      group: "nodes",
      data: {
        id: node.id, type: node.type, name: node.name, title: node.title,
        label: shorten(node.title, node.type === "CASE" ? 34 : 28),
        color: typeColor(node.type), degree: degree.get(node.id) || 0,
      },
      classes: node.type === "CASE" ? "case" : "entity",
    })),
    ...subgraph.edges.map((edge, index) => ({
      group: "edges",
      data: { id: `e${index}`, source: edge.source, target: edge.target, type: edge.type },
      classes: edge.type === "BROADER" ? "broader" : "",
    })),
  ];
  if (cy) cy.destroy();
  cy = window.cytoscape({
    container,
    elements,
    minZoom: 0.15,
    maxZoom: 3,
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)", label: "data(label)", "font-size": 9, color: "#343a40",
          "text-valign": "bottom", "text-margin-y": 3, "text-wrap": "none", "min-zoomed-font-size": 7,
          width: "mapData(degree, 1, 24, 12, 34)", height: "mapData(degree, 1, 24, 12, 34)",
          "border-width": 1, "border-color": "#ffffff",
        },
      },
      // Case titles are long: shown on hover (and in the note below the graph), not all at once.
      { selector: "node.case", style: { shape: "round-rectangle", width: 16, height: 16, "font-weight": "bold", "text-opacity": 0 } },
      // Hubs (entities many of the shown cases share) keep their label when zoomed out.
      { selector: "node.entity[degree >= 4]", style: { "font-size": 13, "min-zoomed-font-size": 4, "font-weight": "bold", "text-outline-color": "#ffffff", "text-outline-width": 2 } },
      { selector: "node.hover, node:selected", style: { "border-width": 3, "border-color": "#212529", "z-index": 10, "text-opacity": 1 } },
      { selector: "edge", style: { width: 1, "line-color": "#ced4da", "curve-style": "haystack", opacity: 0.8 } },
      { selector: "edge.broader", style: { "line-style": "dashed", "line-color": "#adb5bd" } },
      { selector: "edge.hover", style: { "line-color": "#495057", width: 2, opacity: 1 } },
    ],
    layout: {
      name: "cose", animate: false, randomize: true, nodeDimensionsIncludeLabels: false,
      idealEdgeLength: () => 60, nodeRepulsion: () => 9000, gravity: 0.3, numIter: 800, padding: 16,
    },
  });
  const nodes = cy.nodes().length;
  const cases = cy.nodes(".case").length;
  container.dataset.nodeCount = String(nodes);
  container.dataset.edgeCount = String(cy.edges().length);
  const note = $("graph-note");
  note.textContent = nodes
    ? `${plural(cases, "case", "cases")} and ${plural(nodes - cases, "entity", "entities")}` +
      (cases >= GRAPH_CASES ? ` (the ${GRAPH_CASES} newest cases)` : "") +
      ". Click an entity to filter by it, a case to open it."
    : "Nothing to draw for these filters.";
  const defaultNote = note.textContent;

  cy.on("mouseover", "node", (event) => {
    const node = event.target;
    node.addClass("hover");
    node.connectedEdges().addClass("hover");
    const t = TYPE_BY_ENUM[node.data("type")];
    note.textContent = t ? `${t.label}: ${node.data("name")} (click to filter by it)` : `Case: ${node.data("title")} (click to open it)`;
    container.classList.add("pointer");
  });
  cy.on("mouseout", "node", (event) => {
    event.target.removeClass("hover");
    event.target.connectedEdges().removeClass("hover");
    note.textContent = defaultNote;
    container.classList.remove("pointer");
  });
  cy.on("tap", "node", (event) => {
    const node = event.target;
    const t = TYPE_BY_ENUM[node.data("type")];
    if (t) addFilter(t.key, node.data("name"));
    else navigate({ caseId: node.data("name") });
  });
  container.dataset.state = "ready";
}

// ------------------------------------------------------------------ search: suggested filters and text matches

let searchTimer = null;
let searchSequence = 0;

function syncSearchBox() {
  const box = $("search");
  if (document.activeElement !== box && state.text && box.value !== state.text) box.value = state.text;
}

function onSearchInput() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(runSearch, SEARCH_DELAY_MS);
}

async function runSearch() {
  const phrase = $("search").value.trim();
  const sequence = ++searchSequence;
  const panel = $("suggestions");
  if (phrase.length < 2) {
    renderSuggestions(null, null);
    panel.dataset.state = "idle";
    return;
  }
  panel.dataset.state = "loading";
  try {
    const data = await graphql(SEARCH_QUERY, { text: phrase, filter: caseFilter({ text: phrase }), first: TEXT_MATCHES_SHOWN });
    if (sequence !== searchSequence) return;
    renderSuggestions(data.suggestFilters, data.cases, phrase);
    panel.dataset.state = "ready";
  } catch (error) {
    if (sequence !== searchSequence) return;
    panel.dataset.state = "error";
    showError(error.message);
  }
}

function renderSuggestions(suggestions, matches, phrase) {
  const list = clear($("suggestion-list"));
  const hint = $("suggestions-hint");
  const matchesBox = $("text-matches");
  if (suggestions === null) {
    hint.textContent = "Search, and the values found in your words appear here.";
    hint.hidden = false;
    matchesBox.hidden = true;
    return;
  }
  hint.hidden = suggestions.length > 0;
  hint.textContent = "No filter values found in these words.";
  for (const suggestion of suggestions) {
    const t = TYPE_BY_ENUM[suggestion.type];
    if (!t) continue;
    const applied = state.filter[t.key].includes(suggestion.name);
    const said = suggestion.mention && suggestion.mention.toLowerCase() !== suggestion.name.toLowerCase()
      ? el("span", { className: "said" }, `from “${suggestion.mention}”`)
      : null;
    list.append(
      el(
        "li",
        {},
        el(
          "button",
          {
            type: "button", className: `suggestion type-${t.type}${applied ? " on" : ""}`,
            "aria-pressed": applied ? "true" : "false", dataset: { type: t.type, name: suggestion.name },
            title: applied ? "Already applied" : `Filter by this ${t.label.toLowerCase()}`,
            onClick: () => addFilter(t.key, suggestion.name),
          },
          el("span", { className: "chip-type" }, t.label),
          el("span", { className: "chip-name" }, suggestion.name),
          said,
        ),
      ),
    );
  }
  const matchList = clear($("text-match-list"));
  $("text-match-count").textContent = String(matches.totalCount);
  for (const { node } of matches.edges) {
    matchList.append(
      el("li", {}, el("a", { href: fragmentFor({ ...state, caseId: node.id }) }, node.title),
        node.published ? el("time", {}, ` ${node.published}`) : null),
    );
  }
  if (!matches.edges.length) matchList.append(el("li", { className: "hint" }, "No case contains all these words."));
  const apply = $("apply-text");
  apply.hidden = matches.totalCount === 0 || state.text === phrase;
  apply.textContent = `Show ${matches.totalCount === 1 ? "the match" : `all ${matches.totalCount} matches`} in the list`;
  matchesBox.hidden = false;
}

function applyTextSearch(event) {
  if (event) event.preventDefault();
  const phrase = $("search").value.trim();
  navigate({ text: phrase, caseId: null });
}

// ------------------------------------------------------------------ the case page

let caseSequence = 0;

function showLibrary() {
  $("case-view").hidden = true;
  $("library-view").hidden = false;
  document.title = "Incident Library";
  if (cy) cy.resize();
}

async function showCase(id) {
  const view = $("case-view");
  $("library-view").hidden = true;
  view.hidden = false;
  view.dataset.state = "loading";
  view.dataset.caseId = id;
  const sequence = ++caseSequence;
  try {
    const data = await graphql(CASE_QUERY, { id });
    if (sequence !== caseSequence) return;
    showError(null);
    clear(view);
    if (!data.case) {
      view.append(backLink(), el("h2", {}, "No such case"), el("p", { className: "hint" }, `There is no case with the id “${id}”.`));
    } else {
      renderCase(view, data.case, data.relatedCases || []);
      document.title = `${data.case.title} · Incident Library`;
    }
    view.dataset.state = "ready";
    window.scrollTo({ top: 0 });
  } catch (error) {
    if (sequence !== caseSequence) return;
    view.dataset.state = "error";
    showError(error.message);
  }
}

function backLink() {
  return el("button", { type: "button", className: "link-button back", onClick: () => navigate({ caseId: null }) }, "← All cases");
}

function entityButton(t, name) {
  return el(
    "button",
    {
      type: "button", className: `entity-link type-${t.type}`, dataset: { type: t.type, name },
      title: `Show every case with this ${t.label.toLowerCase()}`, onClick: () => addFilter(t.key, name),
    },
    name,
  );
}

/** Where the mention sits inside the evidence sentence: [from, to] or null. */
function mentionSpan(text, evidence) {
  const { sentence, mention, start, end } = evidence;
  if (Number.isInteger(start) && Number.isInteger(end) && end > start) {
    const at = text.lastIndexOf(sentence, start);
    if (at >= 0 && at + sentence.length >= end) return [start - at, end - at];
  }
  if (mention) {
    let at = sentence.indexOf(mention);
    if (at < 0) at = sentence.toLowerCase().indexOf(mention.toLowerCase());
    if (at >= 0) return [at, at + mention.length];
  }
  return null;
}

function evidenceQuote(text, evidence) {
  const sentence = evidence.sentence.replace(/^\s*[-*]\s+/, (bullet) => " ".repeat(bullet.length));
  const span = mentionSpan(text, evidence);
  const quote = el("blockquote", { className: "evidence" });
  if (span) {
    const [from, to] = span;
    append(quote, [sentence.slice(0, from).trimStart(), el("mark", {}, sentence.slice(from, to)), sentence.slice(to).trimEnd()]);
  } else {
    quote.append(sentence.trim());
  }
  return quote;
}

function entityList(caseData, t) {
  const links = caseData[t.key];
  if (!links.length) return el("p", { className: "hint" }, `No ${t.plural.toLowerCase()} found in this write-up.`);
  return el(
    "ul",
    { className: "entity-list" },
    links.map((link) =>
      el(
        "li",
        { className: "entity-item", dataset: { type: t.type, name: link.entity.name } },
        el(
          "div",
          { className: "entity-head" },
          entityButton(t, link.entity.name),
          el("span", { className: "how", title: "How the extractor found it, and how sure it is" },
            `${link.evidence.method}${link.evidence.section ? ` in ${link.evidence.section.replace(/_/g, " ")}` : ""} · ${Math.round(link.evidence.confidence * 100)}%`),
        ),
        evidenceQuote(caseData.text, link.evidence),
      ),
    ),
  );
}

/** Paragraphs and bullet lists from plain text, as text nodes. */
function prose(text) {
  const box = el("div", { className: "prose" });
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter((line) => line.trim());
    if (!lines.length) continue;
    if (lines.every((line) => /^\s*[-*]\s+/.test(line))) {
      box.append(el("ul", {}, lines.map((line) => el("li", {}, line.replace(/^\s*[-*]\s+/, "")))));
    } else {
      box.append(el("p", {}, lines.map((line) => line.trim()).join(" ")));
    }
  }
  return box;
}

/** The body of a `## Heading` section of a sectioned write-up, or "". */
function sectionText(text, pattern) {
  const lines = text.split("\n");
  const startAt = lines.findIndex((line) => /^#{1,6}\s/.test(line) && pattern.test(line.replace(/^#+\s*/, "")));
  if (startAt < 0) return "";
  const body = [];
  for (const line of lines.slice(startAt + 1)) {
    if (/^#{1,6}\s/.test(line)) break;
    body.push(line);
  }
  return body.join("\n").trim();
}

/** The write-up with every evidence mention marked, by the offsets the extractor stored. */
function markedWriteUp(caseData) {
  const spans = [];
  for (const t of TYPES) {
    for (const link of caseData[t.key]) {
      const { start, end } = link.evidence;
      if (Number.isInteger(start) && Number.isInteger(end) && end > start && end <= caseData.text.length) {
        spans.push({ start, end, t, name: link.entity.name });
      }
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const pre = el("pre", { className: "write-up" });
  let at = 0;
  for (const span of spans) {
    if (span.start < at) continue; // overlapping mentions: keep the first
    pre.append(caseData.text.slice(at, span.start));
    pre.append(el("mark", { className: `type-${span.t.type}`, title: `${span.t.label}: ${span.name}` }, caseData.text.slice(span.start, span.end)));
    at = span.end;
  }
  pre.append(caseData.text.slice(at));
  return pre;
}

function section(title, className, ...children) {
  return el("section", { className: `case-section ${className}` }, el("h3", {}, title), ...children);
}

function renderCase(view, c, related) {
  const source = safeUrl(c.source);
  const organisations = c.organisations.map((link) => link.entity.name);
  view.append(
    backLink(),
    el("h2", { className: "case-heading" }, c.title),
    el(
      "p",
      { className: "case-meta" },
      c.published ? el("time", {}, c.published) : null,
      organisations.length
        ? el("span", { className: "case-orgs" }, organisations.map((name, i) => [i ? ", " : "", entityButton(TYPE_BY_KEY.organisations, name)]))
        : null,
      el("span", { className: "layout-kind" }, c.layout === "sectioned" ? "sectioned write-up" : "free-form write-up"),
      source
        ? el("a", { className: "source", href: source, rel: "noopener noreferrer nofollow", target: "_blank" }, "Source")
        : el("span", { className: "source" }, c.source),
    ),
  );

  const symptomsText = sectionText(c.text, /^symptoms?\b/i);
  view.append(
    section("Symptoms", "symptoms", symptomsText ? prose(symptomsText) : null, entityList(c, TYPE_BY_KEY.symptoms)),
    section(c.rootCauses.length === 1 ? "Root cause" : "Root causes", "root-causes", entityList(c, TYPE_BY_KEY.rootCauses)),
    section(c.components.length === 1 ? "Component" : "Components", "components", entityList(c, TYPE_BY_KEY.components)),
    section(c.contributingFactors.length === 1 ? "Contributing factor" : "Contributing factors", "contributing-factors",
      entityList(c, TYPE_BY_KEY.contributingFactors)),
    section("Detection", "detection", c.detection ? prose(c.detection) : el("p", { className: "hint" }, "The write-up does not say how it was detected.")),
    section("Remediation", "remediation", c.remediation.length
      ? el("ul", { className: "remediation-list" }, c.remediation.map((step) => el("li", {}, step)))
      : el("p", { className: "hint" }, "The write-up lists no remediation.")),
    section("Lessons", "lessons", c.lessons ? prose(c.lessons) : el("p", { className: "hint" }, "The write-up states no lessons.")),
  );
  if (c.organisations.length) {
    view.append(section(organisations.length === 1 ? "Organisation" : "Organisations", "organisations", entityList(c, TYPE_BY_KEY.organisations)));
  }
  if (related.length) {
    view.append(
      section("Related cases", "related", el("ul", { className: "related-list" }, related.map((r) =>
        el("li", {}, el("a", { href: fragmentFor({ ...state, caseId: r.case.id }) }, r.case.title),
          el("span", { className: "hint" }, ` shares ${plural(r.sharedCount, "entity", "entities")}`))))),
    );
  }
  // A free-form write-up has no section texts above, so its full text starts open.
  view.append(
    el("details", { className: "case-section full-text", open: c.layout !== "sectioned" },
      el("summary", {}, "The write-up as ingested, with every mention marked"), markedWriteUp(c)),
  );
}

// ------------------------------------------------------------------ start

function start() {
  renderLegend();
  $("search").addEventListener("input", onSearchInput);
  $("search-form").addEventListener("submit", applyTextSearch);
  $("apply-text").addEventListener("click", () => applyTextSearch());
  $("clear-all").addEventListener("click", () => {
    $("search").value = "";
    renderSuggestions(null, null);
    navigate({ filter: emptyFilter(), text: "", caseId: null });
  });
  $("prev-page").addEventListener("click", () => changePage(-1));
  $("next-page").addEventListener("click", () => changePage(1));
  window.addEventListener("hashchange", applyFragment);
  applyFragment();
}

// What the page shows, for tests and for the curious (read-only use).
window.incidentLibrary = {
  get state() {
    return structuredClone({ filter: state.filter, text: state.text, caseId: state.caseId, pageIndex: state.pageIndex });
  },
  get graph() {
    return cy;
  },
};

start();
