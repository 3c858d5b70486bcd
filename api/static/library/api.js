// Talking to the server: GraphQL at /graphql, the entity types at /entity-types.

import { clear, el, showError } from "./dom.js";

export class ApiError extends Error {}

/** The `data` of a GraphQL answer; ApiError with the server's words when it refused or failed.
 *  An aborted request (see `latest`) rejects with the browser's AbortError instead. */
export async function graphql(query, variables, signal) {
  let response;
  let body;
  try {
    response = await fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query, variables }),
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError("The API did not answer; is the server running?");
  }
  try {
    body = await response.json();
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(`The API answered ${response.status} without a GraphQL result.`);
  }
  if (body.errors && body.errors.length) {
    throw new ApiError(body.errors.map((error) => error.message).join(" "));
  }
  if (!response.ok || !body.data) throw new ApiError(`The API answered ${response.status}.`);
  return body.data;
}

/** A GraphQL caller for requests of one kind where only the newest answer matters: each call
 *  aborts the one before it; `abort()` drops the one in flight. */
export function latest() {
  let controller = null;
  const request = (query, variables) => {
    controller?.abort();
    controller = new AbortController();
    return graphql(query, variables, controller.signal);
  };
  request.abort = () => controller?.abort();
  return request;
}

export const isAbort = (error) => error?.name === "AbortError";

/** Ask `query` through `request` (see `latest`) and show the answer in `result`: `waiting` while it
 *  loads, then `render(result, data)`. Its `data-state` says loading, ready or error (the page tests
 *  wait on it); an answer dropped for a newer request changes nothing. */
export async function loadInto(result, request, query, variables, waiting, render) {
  clear(result).dataset.state = "loading";
  result.append(el("p", { className: "hint" }, waiting));
  try {
    const data = await request(query, variables);
    showError(null);
    render(clear(result), data);
    result.dataset.state = "ready";
  } catch (error) {
    if (isAbort(error)) return;
    clear(result);
    result.dataset.state = "error";
    showError(error.message);
  }
}

/** The entity types, in the order the API lists them (its EntityType enum). */
export async function entityTypes() {
  let response;
  try {
    response = await fetch("/entity-types", { headers: { accept: "application/json" } });
  } catch {
    throw new ApiError("The API did not answer; is the server running?");
  }
  if (!response.ok) throw new ApiError(`The API answered ${response.status} for the entity types.`);
  return response.json();
}
