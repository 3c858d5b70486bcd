// Search: the filter values found in the words typed (suggestFilters), the full-text matches, and
// the cases like the words by meaning (casesLike), which need no taxonomy word.

import { isAbort, latest } from "./api.js";
import { similarityNote } from "./case-page.js";
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

const LIKE_QUERY = `
query Like($text: String!, $first: Int) {
  casesLike(text: $text, first: $first) { edges { node { score meaning shared { name } case { id title } } } }
}`;

const request = latest();
const likeRequest = latest();
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
    likeRequest.abort();
    renderSuggestions(null, null);
    $("like-matches").hidden = true;
    panel.dataset.state = "idle";
    return;
  }
  panel.dataset.state = "loading";
  runLikeSearch(phrase);
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

/** Cases like the phrase by meaning; a refusal (nothing to compare by) is said in the box itself. */
async function runLikeSearch(phrase) {
  const box = $("like-matches");
  const list = clear($("like-match-list"));
  box.hidden = false;
  box.dataset.state = "loading";
  try {
    const data = await likeRequest(LIKE_QUERY, { text: phrase, first: TEXT_MATCHES_SHOWN });
    for (const { node } of data.casesLike.edges) {
      list.append(el("li", { dataset: { caseId: node.case.id } },
        el("a", { href: fragmentFor({ ...state, caseId: node.case.id }) }, node.case.title),
        el("span", { className: "hint" }, similarityNote(node))));
    }
    if (!data.casesLike.edges.length) list.append(el("li", { className: "hint" }, "No case is like these words."));
    box.dataset.state = "ready";
  } catch (error) {
    if (isAbort(error)) return;
    list.append(el("li", { className: "hint" }, error.message));
    box.dataset.state = "error";
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
