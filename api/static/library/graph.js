// The graph view: the filtered cases, their entities and the broader links among those (cytoscape).

import { isAbort, latest } from "./api.js";
import { $, clear, el, plural } from "./dom.js";
import { addFilter, caseFilter, navigate, types } from "./state.js";

export const GRAPH_CASES = 30;

const GRAPH_QUERY = `
query Graph($filter: CaseFilter, $limit: Int) {
  subgraph(filter: $filter, limit: $limit) {
    nodes { id type name title }
    edges { source target type }
  }
}`;

const request = latest();
const drawn = { graph: null }; // the cytoscape instance on screen

/** The cytoscape instance on screen, or null. */
export function currentGraph() {
  return drawn.graph;
}

export function resizeGraph() {
  if (drawn.graph) drawn.graph.resize();
}

/** The value of a custom property of app.css (the type and series colours), or `fallback`. */
export function cssColor(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

export function typeColor(type) {
  return cssColor(`--type-${type.toLowerCase().replace(/_/g, "-")}`, "#868e96");
}

export function renderLegend() {
  const legend = clear($("legend"));
  for (const item of [...types.list, { type: "CASE", label: "Case" }]) {
    legend.append(el("li", { className: `legend-item type-${item.type}` }, el("span", { className: "swatch", "aria-hidden": "true" }), item.label));
  }
}

function shorten(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

export async function loadGraph() {
  const container = $("graph");
  if (container.hidden) return; // the concept view is on screen
  const note = $("graph-note");
  if (typeof window.cytoscape !== "function") {
    container.dataset.state = "unavailable";
    note.textContent = "The graph library is not installed (make api/static/vendor/cytoscape.min.js).";
    return;
  }
  container.dataset.state = "loading";
  if (!drawn.graph) note.textContent = "Loading the graph…";
  try {
    const data = await request(GRAPH_QUERY, { filter: caseFilter(), limit: GRAPH_CASES });
    drawGraph(data.subgraph);
  } catch (error) {
    if (isAbort(error)) return;
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
  if (drawn.graph) drawn.graph.destroy();
  const cy = window.cytoscape({
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
  drawn.graph = cy;
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
    const t = types.byType[node.data("type")];
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
    const t = types.byType[node.data("type")];
    if (t) addFilter(t.key, node.data("name"));
    else navigate({ caseId: node.data("name") });
  });
  container.dataset.state = "ready";
}
