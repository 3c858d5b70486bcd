// The concept view: the entities most of the filtered cases link to, sized by their cases, joined
// when they occur in the same cases, coloured by type, laid out by fcose (cytoscape-fcose, vendored)
// with room for their labels. Hovering shows counts; clicking an entity filters by it.

import { isAbort, latest } from "./api.js";
import { $, plural } from "./dom.js";
import { loadGraph, typeColor } from "./graph.js";
import { addFilter, caseFilter, types } from "./state.js";

export const CONCEPTS = 60;

const CONCEPT_QUERY = `
query Concepts($filter: CaseFilter, $limit: Int) {
  conceptGraph(filter: $filter, limit: $limit) {
    caseCount
    concepts { id count entity { name type } }
    links { source target sharedCases }
  }
}`;

const request = latest();
const drawn = { graph: null }; // the cytoscape instance on screen

/** The concept view's cytoscape instance, or null. */
export function currentConceptGraph() {
  return drawn.graph;
}

function shown() {
  return !$("concept-graph").hidden;
}

/** Load and draw the concept view, when it is the view on screen. */
export async function loadConceptGraph() {
  if (!shown()) return;
  const container = $("concept-graph");
  const note = $("graph-note");
  if (typeof window.cytoscape !== "function" || typeof window.cytoscapeFcose !== "function") {
    container.dataset.state = "unavailable";
    note.textContent = "The graph libraries are not installed (make vendor).";
    return;
  }
  container.dataset.state = "loading";
  note.textContent = "Loading the concepts…";
  try {
    const data = await request(CONCEPT_QUERY, { filter: caseFilter(), limit: CONCEPTS });
    drawConcepts(data.conceptGraph);
  } catch (error) {
    if (isAbort(error)) return;
    container.dataset.state = "error";
    note.textContent = `The concepts could not be loaded: ${error.message}`;
  }
}

function drawConcepts(graph) {
  const container = $("concept-graph");
  const counts = graph.concepts.map((concept) => concept.count);
  const most = Math.max(1, ...counts);
  const strongest = Math.max(1, ...graph.links.map((link) => link.sharedCases));
  const elements = [
    ...graph.concepts.map((concept) => ({
      group: "nodes",
      data: {
        id: concept.id, type: concept.entity.type, name: concept.entity.name, count: concept.count,
        label: concept.entity.name, color: typeColor(concept.entity.type),
      },
    })),
    ...graph.links.map((link, index) => ({
      group: "edges",
      data: { id: `c${index}`, source: link.source, target: link.target, shared: link.sharedCases },
    })),
  ];
  if (drawn.graph) drawn.graph.destroy();
  const cy = window.cytoscape({
    container,
    elements,
    minZoom: 0.2,
    maxZoom: 3,
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)", label: "data(label)", "font-size": 11, color: "#212529",
          "text-valign": "bottom", "text-margin-y": 3, "text-wrap": "wrap", "text-max-width": 110,
          "text-background-color": "#ffffff", "text-background-opacity": 0.8, "text-background-padding": 1,
          width: `mapData(count, 1, ${most}, 14, 56)`, height: `mapData(count, 1, ${most}, 14, 56)`,
          "border-width": 1, "border-color": "#ffffff",
        },
      },
      { selector: "node.hover", style: { "border-width": 3, "border-color": "#212529", "z-index": 10 } },
      {
        selector: "edge",
        style: {
          width: `mapData(shared, 1, ${strongest}, 1, 7)`, "line-color": "#ced4da", opacity: 0.7,
          "curve-style": "haystack",
        },
      },
      { selector: "edge.hover", style: { "line-color": "#495057", opacity: 1 } },
    ],
    // Strong repulsion, long and soft edges and little gravity: the labels (counted in the node
    // sizes) get room of their own instead of a dense ball.
    layout: {
      name: "fcose", quality: "proof", animate: false, randomize: true, nodeDimensionsIncludeLabels: true,
      packComponents: true, nodeRepulsion: () => 100000, idealEdgeLength: () => 250, edgeElasticity: () => 0.1,
      gravity: 0.05, padding: 20,
    },
  });
  drawn.graph = cy;
  container.dataset.nodeCount = String(cy.nodes().length);
  container.dataset.edgeCount = String(cy.edges().length);
  const note = $("graph-note");
  note.textContent = graph.concepts.length
    ? `The ${plural(graph.concepts.length, "entity", "entities")} most of the ${plural(graph.caseCount, "case", "cases")} ` +
      "link to, joined when they occur in the same cases. Click one to filter by it."
    : "Nothing to draw for these filters.";
  const defaultNote = note.textContent;

  cy.on("mouseover", "node", (event) => {
    const node = event.target;
    node.addClass("hover");
    node.connectedEdges().addClass("hover");
    const t = types.byType[node.data("type")];
    note.textContent = `${t ? t.label : node.data("type")}: ${node.data("name")}, ` +
      `${plural(node.data("count"), "case", "cases")} (click to filter by it)`;
    container.classList.add("pointer");
  });
  cy.on("mouseout", "node", (event) => {
    event.target.removeClass("hover");
    event.target.connectedEdges().removeClass("hover");
    note.textContent = defaultNote;
    container.classList.remove("pointer");
  });
  cy.on("mouseover", "edge", (event) => {
    const edge = event.target;
    edge.addClass("hover");
    note.textContent = `${edge.source().data("name")} and ${edge.target().data("name")}: ` +
      `${plural(edge.data("shared"), "case", "cases")} together`;
  });
  cy.on("mouseout", "edge", (event) => {
    event.target.removeClass("hover");
    note.textContent = defaultNote;
  });
  cy.on("tap", "node", (event) => {
    const t = types.byType[event.target.data("type")];
    if (t) addFilter(t.key, event.target.data("name"));
  });
  container.dataset.state = "ready";
}

/** Switch the graph card between the case view ("cases") and the concept view ("concepts"). */
export function showGraphView(mode) {
  const concepts = mode === "concepts";
  $("graph").hidden = concepts;
  $("concept-graph").hidden = !concepts;
  $("view-cases").setAttribute("aria-pressed", String(!concepts));
  $("view-concepts").setAttribute("aria-pressed", String(concepts));
  if (concepts) loadConceptGraph();
  else loadGraph();
}
