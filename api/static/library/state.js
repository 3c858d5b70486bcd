// What the page shows. The filters, the search text, the open case, the names of the stack view
// and the words of the diagnose view live in the URL fragment, so views can be bookmarked and the back button works; paging
// lives in memory.

/** The entity types as the API names them (/entity-types), set once at start: the CaseFilter
 *  field `key`, the EntityType value `type`, the URL parameter `param`, `label` and `plural`. */
export const types = { list: [], byType: {}, byKey: {} };

export function setTypes(list) {
  types.list = list;
  types.byType = Object.fromEntries(list.map((t) => [t.type, t]));
  types.byKey = Object.fromEntries(list.map((t) => [t.key, t]));
}

export function emptyFilter() {
  return Object.fromEntries(types.list.map((t) => [t.key, []]));
}

export const state = {
  filter: {},
  text: "",
  caseId: null,
  stack: null, // the names typed into the stack view, when it is on screen (null: it is not)
  diagnose: null, // the words typed into the "What caused this?" view, when it is on screen
  after: null, // cursor of the current page (null: the first)
  previous: [], // cursors of the pages before it
  pageIndex: 0,
  listedFilter: null, // the filters (and text) of the list on screen, to know when to reload it
  libraryLoaded: false, // whether the list has loaded once (a failed first load is retried)
};

export function readFragment() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const filter = emptyFilter();
  for (const t of types.list) filter[t.key] = [...new Set(params.getAll(t.param).filter((v) => v.trim()))];
  return {
    filter, text: (params.get("text") || "").trim(), caseId: params.get("case") || null,
    stack: params.has("stack") ? params.get("stack") : null,
    diagnose: params.has("diagnose") ? params.get("diagnose") : null,
  };
}

export function fragmentFor(view) {
  const params = new URLSearchParams();
  for (const t of types.list) for (const value of view.filter[t.key]) params.append(t.param, value);
  if (view.text) params.set("text", view.text);
  if (view.stack !== null && view.stack !== undefined) params.set("stack", view.stack);
  if (view.diagnose !== null && view.diagnose !== undefined) params.set("diagnose", view.diagnose);
  if (view.caseId) params.set("case", view.caseId);
  const text = params.toString();
  return text ? `#${text}` : "#";
}

/** Go to a view: filters, text, open case, stack view, diagnose view. The page follows the fragment (hashchange), also when
 *  it is already there. */
export function navigate(changes) {
  const view = {
    filter: changes.filter ?? state.filter,
    text: changes.text ?? state.text,
    caseId: "caseId" in changes ? changes.caseId : state.caseId,
    stack: "stack" in changes ? changes.stack : state.stack,
    diagnose: "diagnose" in changes ? changes.diagnose : state.diagnose,
  };
  const target = fragmentFor(view);
  if (target === (location.hash || "#")) {
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else {
    location.hash = target;
  }
}

export function hasFilters() {
  return Boolean(state.text) || types.list.some((t) => state.filter[t.key].length);
}

/** The CaseFilter input for the current state (only what is set), plus optional overrides. */
export function caseFilter(overrides = {}) {
  const filter = {};
  for (const t of types.list) if (state.filter[t.key].length) filter[t.key] = [...state.filter[t.key]];
  if (state.text) filter.text = state.text;
  Object.assign(filter, overrides);
  return Object.keys(filter).length ? filter : null;
}

export function addFilter(typeKey, name) {
  const filter = structuredClone(state.filter);
  if (!filter[typeKey].includes(name)) filter[typeKey].push(name);
  navigate({ filter, caseId: null, stack: null, diagnose: null });
}

export function removeFilter(typeKey, name) {
  const filter = structuredClone(state.filter);
  filter[typeKey] = filter[typeKey].filter((value) => value !== name);
  navigate({ filter });
}

export function toggleFilter(typeKey, name) {
  if (state.filter[typeKey].includes(name)) removeFilter(typeKey, name);
  else addFilter(typeKey, name);
}
