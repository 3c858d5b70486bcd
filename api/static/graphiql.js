// GraphiQL at /graphql, built from the vendored UMD files that graphiql.html loads before this
// script (React, ReactDOM, GraphiQL as globals). Served as a file, not inline, so the page's
// Content-Security-Policy can forbid inline script.
//
// The URL's ?q= and ?variables= open GraphiQL on that query (and follow the edits, so the address
// can be shared); without them it opens on DEFAULT_QUERY or the last query of this browser. Not
// ?query=: a GET of /graphql with a `query` parameter is a GraphQL request, answered with JSON.

"use strict";

const DEFAULT_QUERY = `# Incident Graph. Run: Ctrl-Enter or the play
# button. Complete: Ctrl-Space. Schema: the docs.

{
  cases(first: 5) {
    totalCount
    edges {
      node {
        id
        title
      }
    }
  }
}
`;

// Same origin: no host in the URL, so connect-src 'self' is all the page needs.
const GRAPHQL_URL = "/graphql";
// Strawberry's own GraphiQL used ?q= as well, so its shared links keep working.
const QUERY_PARAMETER = "q";

function urlParameter(name) {
  return new URLSearchParams(window.location.search).get(name) || undefined;
}

function updateUrlParameter(name, value) {
  const url = new URL(window.location.href);
  if (value) {
    url.searchParams.set(name, value);
  } else {
    url.searchParams.delete(name);
  }
  window.history.replaceState(null, "", url.pathname + url.search + url.hash);
}

function showMissingLibraries(container) {
  // The vendored files are generated (make vendor); say so rather than stay on "Loading".
  container.dataset.state = "missing";
  container.textContent = "GraphiQL's libraries are not installed on this server: run `make vendor`.";
}

function renderGraphiQL(container) {
  const element = React.createElement(GraphiQL, {
    fetcher: GraphiQL.createFetcher({ url: GRAPHQL_URL }),
    defaultQuery: DEFAULT_QUERY,
    query: urlParameter(QUERY_PARAMETER),
    variables: urlParameter("variables"),
    onEditQuery: (query) => updateUrlParameter(QUERY_PARAMETER, query),
    onEditVariables: (variables) => updateUrlParameter("variables", variables),
    defaultEditorToolsVisibility: true,
  });
  ReactDOM.createRoot(container).render(element);
  container.dataset.state = "ready";
}

function main() {
  const container = document.getElementById("graphiql");
  if (typeof React === "undefined" || typeof ReactDOM === "undefined" || typeof GraphiQL === "undefined") {
    showMissingLibraries(container);
    return;
  }
  container.textContent = "";
  renderGraphiQL(container);
}

main();
