// Search: the filter values found in the words typed (suggestFilters) and the full-text matches.

import { isAbort, latest } from "./api.js";
import { $, clear, el, showError } from "./dom.js";
import { addFilter, caseFilter, fragmentFor, navigate, state, types } from "./state.js";

const SEARCH_DELAY_MS = 250;
const TEXT_MATCHES_SHOWN = 5;

const SEARCH_QUERY = `
query Search($text: String!, $filter: CaseFilter, $first: Int) {
  suggestFilters(text: $text) { type name mention confidence }
  cases(filter: $filter, first: $first) {
    totalCount
    edges { node { id title published } }
  }
}`;

const request = latest();
const typing = { timer: null }; // the search waiting for the typing to pause

export function syncSearchBox() {
  const box = $("search");
  if (document.activeElement !== box && state.text && box.value !== state.text) box.value = state.text;
}

export function onSearchInput() {
  clearTimeout(typing.timer);
  typing.timer = setTimeout(runSearch, SEARCH_DELAY_MS);
}

async function runSearch() {
  const phrase = $("search").value.trim();
  const panel = $("suggestions");
  if (phrase.length < 2) {
    request.abort(); // an answer for longer words must not show up now
    renderSuggestions(null, null);
    panel.dataset.state = "idle";
    return;
  }
  panel.dataset.state = "loading";
  try {
    const data = await request(SEARCH_QUERY, { text: phrase, filter: caseFilter({ text: phrase }), first: TEXT_MATCHES_SHOWN });
    renderSuggestions(data.suggestFilters, data.cases, phrase);
    panel.dataset.state = "ready";
  } catch (error) {
    if (isAbort(error)) return;
    panel.dataset.state = "error";
    showError(error.message);
  }
}

export function renderSuggestions(suggestions, matches, phrase) {
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
    const t = types.byType[suggestion.type];
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

export function applyTextSearch(event) {
  if (event) event.preventDefault();
  const phrase = $("search").value.trim();
  navigate({ text: phrase, caseId: null });
}
