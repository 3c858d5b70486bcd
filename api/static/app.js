// The Incident Library page. Everything it shows comes from the API: /graphql, and the entity types
// from /entity-types. The modules in library/: api.js (requests), dom.js (building the DOM),
// state.js (filters, URL fragment), facets.js, cases.js (the list), graph.js (the case view),
// concept-graph.js (the concept view), trends-chart.js (the trends chart), search.js, case-page.js,
// stack-review.js (the "Check your stack" view), diagnose-view.js (the "What caused this?" view).
//
// Stored text (titles, write-ups, entity names, evidence) is untrusted: the DOM is built with
// createElement and textContent only, never innerHTML, and links are only made from http(s) URLs.

import { entityTypes } from "./library/api.js";
import { showCase, showLibrary } from "./library/case-page.js";
import { changePage, loadLibrary } from "./library/cases.js";
import { currentConceptGraph, showGraphView } from "./library/concept-graph.js";
import { $, showError } from "./library/dom.js";
import { renderChips } from "./library/facets.js";
import { currentGraph, renderLegend } from "./library/graph.js";
import { applyTextSearch, onSearchInput, renderSuggestions, syncSearchBox } from "./library/search.js";
import { setUpDiagnose, showDiagnose } from "./library/diagnose-view.js";
import { setUpStack, showStack } from "./library/stack-review.js";
import { emptyFilter, navigate, readFragment, setTypes, state } from "./library/state.js";
import { currentTrendsChart, setUpTrends } from "./library/trends-chart.js";

/** Show what the URL fragment says: the list (reloaded when its filters changed), a case or the
 *  stack or the diagnose view. */
function applyFragment() {
  const view = readFragment();
  const filterKey = JSON.stringify([view.filter, view.text]);
  const filterChanged = filterKey !== state.listedFilter;
  Object.assign(state, view);
  if (filterChanged) {
    state.after = null;
    state.previous = [];
    state.pageIndex = 0;
  }
  renderChips();
  syncSearchBox();
  $("stack-view").hidden = true;
  $("diagnose-view").hidden = true;
  if (state.caseId) {
    showCase(state.caseId);
  } else if (state.stack !== null) {
    showStack(state.stack);
  } else if (state.diagnose !== null) {
    showDiagnose(state.diagnose);
  } else {
    showLibrary();
  }
  if (filterChanged || !state.libraryLoaded) {
    state.listedFilter = filterKey;
    loadLibrary({ graph: true });
  }
}

async function start() {
  try {
    setTypes(await entityTypes());
  } catch (error) {
    showError(error.message);
    return;
  }
  state.filter = emptyFilter();
  renderLegend();
  setUpTrends();
  setUpStack();
  setUpDiagnose();
  $("search").addEventListener("input", onSearchInput);
  $("search-form").addEventListener("submit", applyTextSearch);
  $("apply-text").addEventListener("click", () => applyTextSearch());
  $("clear-all").addEventListener("click", () => {
    $("search").value = "";
    renderSuggestions(null, null);
    navigate({ filter: emptyFilter(), text: "", caseId: null, stack: null, diagnose: null });
  });
  $("view-cases").addEventListener("click", () => showGraphView("cases"));
  $("view-concepts").addEventListener("click", () => showGraphView("concepts"));
  $("prev-page").addEventListener("click", () => changePage(-1));
  $("next-page").addEventListener("click", () => changePage(1));
  window.addEventListener("hashchange", applyFragment);
  applyFragment();
}

// What the page shows, for tests and for the curious (read-only use).
window.incidentLibrary = {
  get state() {
    return structuredClone({
      filter: state.filter, text: state.text, caseId: state.caseId, stack: state.stack, diagnose: state.diagnose,
      pageIndex: state.pageIndex,
    });
  },
  get graph() {
    return currentGraph();
  },
  get conceptGraph() {
    return currentConceptGraph();
  },
  get trendsChart() {
    return currentTrendsChart();
  },
};

start();
