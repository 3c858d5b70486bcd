// Building the DOM from untrusted text: createElement and textContent only, never innerHTML.

export const $ = (id) => document.getElementById(id);

/** An element with properties/attributes and children (strings become text nodes). */
export function el(tag, props = {}, ...children) {
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

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** An http(s) URL as a string, or null: a stored `javascript:` source never becomes a link. */
export function safeUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

export function showError(message) {
  const banner = $("error");
  if (!message) {
    banner.hidden = true;
    clear(banner);
    return;
  }
  clear(banner).append(el("strong", {}, "Something went wrong. "), message);
  banner.hidden = false;
}
