// The "What caused this?" view (#diagnose=...): the analyst describes what they see, in their own
// words, and `diagnose(text:)` answers with root causes, best first, each under its broader group,
// with the past cases and sentences that support it and the taxonomy's signs of the cause to check
// against. It says first which symptoms it understood, and how (name, synonym or meaning).

import { latest, loadInto } from "./api.js";
import { entityButton } from "./case-page.js";
import { matchedChip } from "./stack-review.js";
import { $, clear, el, plural } from "./dom.js";
import { fragmentFor, navigate, state, types } from "./state.js";

const LISTED = 5; // causes
const CASES_SHOWN = 3; // supporting cases named under each cause

const DIAGNOSE_QUERY = `
query WhatCausedThis($text: String!, $first: Int) {
  diagnose(text: $text, first: $first) {
    rootCause { name signs } group { name } score groupScore supportingCaseCount
    supportingCases { id title published }
    evidence { case { id title } sentence }
    matchedSymptoms
    understoodSymptoms { phrase symptom similarity method }
  }
}`;

const request = latest();

export function setUpDiagnose() {
  $("diagnose-form").addEventListener("submit", (event) => {
    event.preventDefault();
    navigate({ diagnose: $("diagnose-input").value.trim(), caseId: null, stack: null });
  });
  $("diagnose-back").addEventListener("click", () => navigate({ diagnose: null, caseId: null }));
}

/** Show the view for `text` (the fragment's `diagnose`), asking the API when it says something. */
export async function showDiagnose(text) {
  $("case-view").hidden = true;
  $("library-view").hidden = true;
  $("stack-view").hidden = true;
  $("diagnose-view").hidden = false;
  document.title = "What caused this? · Incident Library";
  const input = $("diagnose-input");
  if (document.activeElement !== input) input.value = text;
  const result = clear($("diagnose-result"));
  const words = text.trim(); // longer than the API takes: its refusal says so
  if (!words) {
    request.abort();
    result.dataset.state = "idle";
    result.append(el("p", { className: "hint" },
      "Say what you see, e.g. “checkout requests time out; connection pool exhausted after the deploy”."));
    return;
  }
  await loadInto(result, request, DIAGNOSE_QUERY, { text: words, first: LISTED },
    "Reading your words and the past cases that look like them…", (shown, data) => renderDiagnoses(shown, data.diagnose));
}

function renderDiagnoses(result, diagnoses) {
  const understood = diagnoses.length ? diagnoses[0].understoodSymptoms : [];
  result.append(
    el("h3", { className: "subhead" }, "Symptoms understood"),
    understood.length
      ? el("ul", { id: "diagnose-understood", className: "stack-names" }, understood.map(understoodSymptom))
      : el("p", { id: "diagnose-understood", className: "hint" },
        "No symptom of the graph was recognised in these words; the causes below come from cases that read alike."),
  );
  if (!diagnoses.length) {
    result.append(el("p", { id: "diagnose-summary", className: "stack-summary" },
      "Nothing in the graph points to a cause for these words. Try naming what failed and how it showed."));
    return;
  }
  result.append(
    el("p", { id: "diagnose-summary", className: "stack-summary" },
      `The ${plural(diagnoses.length, "likeliest cause", "likeliest causes")}, best first: a score is the share of the evidence.`),
    el("ol", { id: "diagnose-causes", className: "stack-findings" }, diagnoses.map(cause)),
  );
}

function understoodSymptom(item) {
  const { phrase, symptom, similarity, method } = item;
  return matchedChip("SYMPTOM", phrase, symptom, method, similarity, { phrase, symptom, method });
}

function cause(diagnosis) {
  const t = types.byType.ROOT_CAUSE;
  const shown = diagnosis.supportingCases.slice(0, CASES_SHOWN);
  const sentences = new Map(diagnosis.evidence.map((item) => [item.case.id, item.sentence]));
  return el(
    "li",
    { className: "stack-finding diagnosis", dataset: { name: diagnosis.rootCause.name, count: String(diagnosis.supportingCaseCount) } },
    el("div", { className: "entity-head" },
      entityButton(t, diagnosis.rootCause.name),
      diagnosis.group ? el("span", { className: "how" }, `under ${diagnosis.group.name}`) : null,
      el("span", { className: "finding-count", title: `group ${percent(diagnosis.groupScore)}` },
        percent(diagnosis.score)),
      el("span", { className: "how" }, diagnosis.supportingCaseCount
        ? plural(diagnosis.supportingCaseCount, "supporting case", "supporting cases")
        : "no past case: suggested by the taxonomy's signs")),
    diagnosis.matchedSymptoms.length
      ? el("p", { className: "hint" }, `Its cases show: ${diagnosis.matchedSymptoms.join(", ")}`)
      : null,
    shown.length
      ? el("ul", { className: "stack-cases" }, shown.map((item) => el(
        "li",
        { dataset: { caseId: item.id } },
        el("a", { className: "stack-case-title", href: fragmentFor({ ...state, caseId: item.id }) }, item.title),
        item.published ? el("span", { className: "case-meta" }, el("time", {}, item.published)) : null,
        sentences.has(item.id) ? el("blockquote", { className: "evidence" }, sentences.get(item.id)) : null,
      )))
      : null,
    diagnosis.rootCause.signs.length
      ? el("details", { className: "signs" },
        el("summary", {}, "How it usually shows"),
        el("ul", {}, diagnosis.rootCause.signs.map((sign) => el("li", {}, sign))))
      : null,
  );
}

function percent(share) {
  return `${Math.round(share * 100)} %`;
}
