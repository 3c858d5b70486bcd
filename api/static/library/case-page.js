// The case page: one write-up, its entities with their evidence, and the cases related to it.

import { isAbort, latest } from "./api.js";
import { $, append, clear, el, plural, safeUrl, showError } from "./dom.js";
import { resizeGraph } from "./graph.js";
import { addFilter, fragmentFor, navigate, state, types } from "./state.js";

const LINK_FIELDS = "entity { name } evidence { sentence mention start end method confidence section }";

const caseQuery = () => `
query CaseView($id: ID!) {
  case(id: $id) {
    id title source published layout text detection remediation lessons
    ${types.list.map((t) => `${t.key} { ${LINK_FIELDS} }`).join("\n    ")}
  }
  relatedCases(id: $id, first: 5) { sharedCount case { id title published } }
  similarCases(id: $id, first: 5) { edges { node { score meaning shared { name } case { id title } } } }
}`;

const request = latest();

export function showLibrary() {
  $("case-view").hidden = true;
  $("library-view").hidden = false;
  document.title = "Incident Library";
  resizeGraph();
}

export async function showCase(id) {
  const view = $("case-view");
  $("library-view").hidden = true;
  view.hidden = false;
  view.dataset.state = "loading";
  view.dataset.caseId = id;
  try {
    const data = await request(caseQuery(), { id });
    showError(null);
    clear(view);
    if (!data.case) {
      view.append(backLink(), el("h2", {}, "No such case"), el("p", { className: "hint" }, `There is no case with the id “${id}”.`));
    } else {
      renderCase(view, data.case, data.relatedCases || [], data.similarCases.edges.map((edge) => edge.node));
      document.title = `${data.case.title} · Incident Library`;
    }
    view.dataset.state = "ready";
    window.scrollTo({ top: 0 });
  } catch (error) {
    if (isAbort(error)) return; // another case was opened
    view.dataset.state = "error";
    showError(error.message);
  }
}

function backLink() {
  return el("button", { type: "button", className: "link-button back", onClick: () => navigate({ caseId: null }) }, "← All cases");
}

/** A button naming an entity of type `t`; a click shows every case with it. */
export function entityButton(t, name) {
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
  for (const t of types.list) {
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

/** A section of one entity type's links, titled in the singular for one link. The symptoms section
 *  keeps the write-up's own words under its heading, and its plural title. */
function entitySection(c, t) {
  const className = t.key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  if (t.key === "symptoms") {
    const said = sectionText(c.text, /^symptoms?\b/i);
    return section(t.plural, className, said ? prose(said) : null, entityList(c, t));
  }
  return section(c[t.key].length === 1 ? t.label : t.plural, className, entityList(c, t));
}

/** Why a similar case is similar: how close in meaning, and how many entities it shares. */
export function similarityNote(similar) {
  const meaning = similar.meaning === null ? "no embedding" : `meaning ${similar.meaning.toFixed(2)}`;
  return ` ${meaning} · shares ${plural(similar.shared.length, "entity", "entities")}`;
}

function renderCase(view, c, related, similar) {
  const source = safeUrl(c.source);
  const organisations = types.byKey.organisations;
  const organisationNames = c.organisations.map((link) => link.entity.name);
  view.append(
    backLink(),
    el("h2", { className: "case-heading" }, c.title),
    el(
      "p",
      { className: "case-meta" },
      c.published ? el("time", {}, c.published) : null,
      organisationNames.length
        ? el("span", { className: "case-orgs" }, organisationNames.map((name, i) => [i ? ", " : "", entityButton(organisations, name)]))
        : null,
      el("span", { className: "layout-kind" }, c.layout === "sectioned" ? "sectioned write-up" : "free-form write-up"),
      source
        ? el("a", { className: "source", href: source, rel: "noopener noreferrer nofollow", target: "_blank" }, "Source")
        : el("span", { className: "source" }, c.source),
    ),
  );

  // What happened and why first; who it happened to (named in the heading above) after the lessons.
  view.append(
    ...types.list.filter((t) => t !== organisations).map((t) => entitySection(c, t)),
    section("Detection", "detection", c.detection ? prose(c.detection) : el("p", { className: "hint" }, "The write-up does not say how it was detected.")),
    section("Remediation", "remediation", c.remediation.length
      ? el("ul", { className: "remediation-list" }, c.remediation.map((step) => el("li", {}, step)))
      : el("p", { className: "hint" }, "The write-up lists no remediation.")),
    section("Lessons", "lessons", c.lessons ? prose(c.lessons) : el("p", { className: "hint" }, "The write-up states no lessons.")),
  );
  if (c.organisations.length) view.append(entitySection(c, organisations));
  if (related.length) {
    view.append(
      section("Related cases", "related", el("ul", { className: "related-list" }, related.map((r) =>
        el("li", {}, el("a", { href: fragmentFor({ ...state, caseId: r.case.id }) }, r.case.title),
          el("span", { className: "hint" }, ` shares ${plural(r.sharedCount, "entity", "entities")}`))))),
    );
  }
  if (similar.length) {
    view.append(
      section("Similar cases", "similar", el("ul", { className: "similar-list" }, similar.map((s) =>
        el("li", { dataset: { caseId: s.case.id } }, el("a", { href: fragmentFor({ ...state, caseId: s.case.id }) }, s.case.title),
          el("span", { className: "hint", title: `score ${s.score.toFixed(3)}` }, similarityNote(s)))))),
    );
  }
  // A free-form write-up has no section texts above, so its full text starts open.
  view.append(
    el("details", { className: "case-section full-text", open: c.layout !== "sectioned" },
      el("summary", {}, "The write-up as ingested, with every mention marked"), markedWriteUp(c)),
  );
}
