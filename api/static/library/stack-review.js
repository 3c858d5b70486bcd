// The "Check your stack" view (#stack=...): the components a user runs, typed comma separated, and
// what past cases involving them teach (`stackReview`): root causes and contributing factors with
// their counts, most recent case, cases and evidence, then lessons. It says which component each
// name was matched to (by name, alias or meaning) and lists the names the graph does not know.

import { latest, loadInto } from "./api.js";
import { entityButton } from "./case-page.js";
import { $, clear, el, plural } from "./dom.js";
import { fragmentFor, navigate, state, types } from "./state.js";

const LISTED = 10; // root causes, contributing factors (most cases first) and lessons (newest first)
const CASES_SHOWN = 3; // cases (with their evidence) under each finding

const FINDING = "entity { name } caseCount latest cases { case { id title published } via evidence { sentence } }";
const STACK_QUERY = `
query Stack($components: [String!]!, $first: Int) {
  stackReview(components: $components, first: $first) {
    components { asked method similarity component { name } }
    unknown caseCount rootCauseCount contributingFactorCount lessonCount
    rootCauses { ${FINDING} }
    contributingFactors { ${FINDING} }
    lessons { case { id title published } via lessons }
  }
}`;

const request = latest();

/** The names in what the user typed: cut at commas, semicolons and line ends, trimmed, each once. */
export function stackNames(text) {
  return [...new Set(text.split(/[,;\n]/).map((name) => name.trim()).filter(Boolean))];
}

export function setUpStack() {
  $("stack-form").addEventListener("submit", (event) => {
    event.preventDefault();
    navigate({ stack: stackNames($("stack-input").value).join(", "), caseId: null });
  });
  $("stack-back").addEventListener("click", () => navigate({ stack: null, caseId: null }));
}

/** Show the view for the names in `text` (the fragment's `stack`), asking the API when there are any. */
export async function showStack(text) {
  $("case-view").hidden = true;
  $("library-view").hidden = true;
  $("stack-view").hidden = false;
  document.title = "Check your stack · Incident Library";
  const input = $("stack-input");
  if (document.activeElement !== input) input.value = text;
  const result = clear($("stack-result"));
  const names = stackNames(text);
  if (!names.length) {
    request.abort();
    result.dataset.state = "idle";
    result.append(el("p", { className: "hint" }, "Name a few components, e.g. etcd, PostgreSQL, GPU."));
    return;
  }
  await loadInto(result, request, STACK_QUERY, { components: names, first: LISTED },
    "Reading the past cases of this stack…", (shown, data) => renderReview(shown, data.stackReview));
}

function renderReview(result, review) {
  result.append(
    el("ul", { id: "stack-matched", className: "stack-names" }, review.components.map(matchedName)),
    review.unknown.length
      ? el("div", { className: "stack-unknown" },
        el("span", { className: "hint" }, "Not in the graph, by name or meaning: "),
        el("ul", { id: "stack-unknown", className: "stack-names" },
          review.unknown.map((name) => el("li", { className: "unknown-name", dataset: { name } }, name))))
      : null,
    el("p", { id: "stack-summary", className: "stack-summary", dataset: { count: String(review.caseCount) } },
      review.components.length
        ? `${plural(review.caseCount, "past case involves", "past cases involve")} these components, their broader or narrower concepts.`
        : "No component of the graph matches these names."),
  );
  if (!review.caseCount) return;
  result.append(
    findingsSection("stack-root-causes", types.byType.ROOT_CAUSE, review.rootCauses, review.rootCauseCount),
    findingsSection("stack-factors", types.byType.CONTRIBUTING_FACTOR, review.contributingFactors,
      review.contributingFactorCount),
    lessonsSection(review.lessons, review.lessonCount),
  );
}

function matchedName(item) {
  const { asked, method, similarity, component } = item;
  return matchedChip("COMPONENT", asked, component.name, method, similarity, { asked, component: component.name, method });
}

/** A name the user typed and the graph's entity of type `type` it was taken for ("asked → name"),
 *  with how: by meaning and the cosine, or as an alias. */
export function matchedChip(type, asked, name, method, similarity, dataset) {
  const how = method === "meaning" ? `by meaning, ${similarity.toFixed(2)}` : method === "alias" ? "alias" : null;
  return el(
    "li",
    { className: `matched-name type-${type}`, dataset },
    el("span", { className: "swatch", "aria-hidden": "true" }),
    asked.toLowerCase() === name.toLowerCase() ? name : `${asked} → ${name}`,
    how ? el("span", { className: "how" }, ` (${how})`) : null,
  );
}

function caseLink(item) {
  return el("a", { className: "stack-case-title", href: fragmentFor({ ...state, caseId: item.case.id }) }, item.case.title);
}

function caseMeta(item) {
  return el(
    "span",
    { className: "case-meta" },
    item.case.published ? el("time", {}, item.case.published) : null,
    el("span", {}, `via ${item.via.join(", ")}`),
  );
}

function findingsSection(id, t, findings, total) {
  const section = el(
    "section",
    { id, className: "case-section stack-section" },
    el("h3", {}, t.plural, el("span", { className: "count" }, String(total))),
  );
  if (!findings.length) {
    section.append(el("p", { className: "hint" }, `None of these cases names a ${t.label.toLowerCase()}.`));
    return section;
  }
  if (total > findings.length) {
    section.append(el("p", { className: "hint" }, `The ${findings.length} most common of ${total}, most cases first, then most recent.`));
  }
  const list = el("ol", { className: "stack-findings" });
  for (const finding of findings) {
    const shown = finding.cases.slice(0, CASES_SHOWN);
    list.append(el(
      "li",
      { className: "stack-finding", dataset: { name: finding.entity.name, count: String(finding.caseCount) } },
      el("div", { className: "entity-head" },
        entityButton(t, finding.entity.name),
        el("span", { className: "finding-count" }, plural(finding.caseCount, "case", "cases")),
        finding.latest ? el("span", { className: "how" }, `latest ${finding.latest}`) : null),
      el("ul", { className: "stack-cases" }, shown.map((item) => el(
        "li",
        { dataset: { caseId: item.case.id } },
        caseLink(item), " ", caseMeta(item),
        item.evidence.sentence ? el("blockquote", { className: "evidence" }, item.evidence.sentence) : null,
      ))),
      finding.caseCount > shown.length
        ? el("p", { className: "hint" }, `and ${plural(finding.caseCount - shown.length, "more case", "more cases")}`)
        : null,
    ));
  }
  section.append(list);
  return section;
}

function lessonsSection(lessons, total) {
  const section = el(
    "section",
    { id: "stack-lessons", className: "case-section stack-section" },
    el("h3", {}, "Lessons", el("span", { className: "count" }, String(total))),
  );
  if (!lessons.length) {
    section.append(el("p", { className: "hint" }, "None of these cases wrote lessons down."));
    return section;
  }
  if (total > lessons.length) section.append(el("p", { className: "hint" }, `The newest ${lessons.length} of ${total}.`));
  section.append(el("ol", { className: "stack-lessons" }, lessons.map((item) => el(
    "li",
    { dataset: { caseId: item.case.id } },
    caseLink(item), " ", caseMeta(item),
    el("p", { className: "lesson-text" }, item.lessons),
  ))));
  return section;
}
