// The trends chart: the filtered cases per year or month (`trends`), in all and for the entities of
// one type most of them link to, drawn by Chart.js (vendored). It recounts when the filters change;
// two selectors choose the grouping and the period (by month, the last MONTHLY_YEARS years only: the
// corpus spans decades, more months than `trends` draws). Clicking a series' point filters by it.

import { isAbort, latest } from "./api.js";
import { $, clear, el, plural } from "./dom.js";
import { cssColor } from "./graph.js";
import { addFilter, caseFilter, types } from "./state.js";

export const TREND_SERIES = 6;
const DEFAULT_GROUP = "ROOT_CAUSE";
const POINTS_UP_TO = 60; // periods drawn with visible points; longer series are lines only
export const MONTHLY_YEARS = 20;

const TRENDS_QUERY = `
query Trends($filter: CaseFilter, $groupBy: EntityType!, $interval: TrendInterval!, $first: Int) {
  trends(filter: $filter, groupBy: $groupBy, interval: $interval, first: $first) {
    periods totals undatedCases totalCount
    edges { node { entity { name } total counts slope } }
  }
}`;

const request = latest();
const drawn = { chart: null }; // the Chart.js instance on screen
const choice = { groupBy: DEFAULT_GROUP, interval: "YEAR" };

/** The chart on screen (a Chart.js instance), or null. */
export function currentTrendsChart() {
  return drawn.chart;
}

/** Fill the grouping selector from the entity types and listen to both selectors (once, at start). */
export function setUpTrends() {
  const group = clear($("trend-group"));
  for (const t of types.list) {
    group.append(el("option", { value: t.type, selected: t.type === choice.groupBy }, t.plural.toLowerCase()));
  }
  group.addEventListener("change", () => {
    choice.groupBy = group.value;
    loadTrends();
  });
  const interval = $("trend-interval");
  interval.value = choice.interval;
  interval.addEventListener("change", () => {
    choice.interval = interval.value;
    loadTrends();
  });
}

/** Count the filtered cases per period again and redraw. */
export async function loadTrends() {
  const container = $("trend-chart");
  const note = $("trend-note");
  if (typeof window.Chart !== "function") {
    container.dataset.state = "unavailable";
    note.textContent = "The chart library is not installed (make vendor).";
    return;
  }
  container.dataset.state = "loading";
  const since = choice.interval === "MONTH" ? `${new Date().getFullYear() - MONTHLY_YEARS + 1}-01-01` : null;
  container.dataset.publishedFrom = since || "";
  try {
    const data = await request(TRENDS_QUERY, {
      filter: since ? caseFilter({ publishedFrom: since }) : caseFilter(),
      groupBy: choice.groupBy, interval: choice.interval, first: TREND_SERIES,
    });
    drawTrends(data.trends, since);
  } catch (error) {
    if (isAbort(error)) return; // a newer count took over
    container.dataset.state = "error";
    note.textContent = `The trends could not be counted: ${error.message}`;
  }
}

function drawTrends(trends, since) {
  const container = $("trend-chart");
  const t = types.byType[choice.groupBy];
  const series = trends.edges.map((edge) => edge.node);
  const points = trends.periods.length <= POINTS_UP_TO ? 3 : 0;
  const datasets = [
    ...series.map((item, index) => {
      const colour = cssColor(`--series-${index + 1}`, "#868e96");
      return {
        label: item.entity.name, data: item.counts, borderColor: colour, backgroundColor: colour,
        pointRadius: (context) => (context.raw ? points : 0), pointHoverRadius: 5, pointHitRadius: 6,
        borderWidth: 2, cubicInterpolationMode: "monotone", entity: item.entity.name,
      };
    }),
    {
      label: "All cases", data: trends.totals, borderColor: cssColor("--muted", "#6c757d"), backgroundColor: "transparent",
      borderDash: [5, 4], pointRadius: 0, borderWidth: 1.5, cubicInterpolationMode: "monotone", entity: null,
    },
  ];
  if (drawn.chart) drawn.chart.destroy();
  drawn.chart = new window.Chart($("trend-canvas"), {
    type: "line",
    data: { labels: trends.periods, datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: "index", intersect: false },
      scales: { y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: "cases" } } },
      plugins: { legend: { position: "bottom", labels: { boxWidth: 12, boxHeight: 12 } } },
      onClick: (event) => {
        const hit = drawn.chart.getElementsAtEventForMode(event, "nearest", { intersect: true }, false)[0];
        const entity = hit ? drawn.chart.data.datasets[hit.datasetIndex].entity : null;
        if (entity && t) addFilter(t.key, entity);
      },
    },
  });
  container.dataset.seriesCount = String(series.length);
  container.dataset.periodCount = String(trends.periods.length);
  const groups = t ? t.plural.toLowerCase() : "entities";
  const per = since ? `month since ${since.slice(0, 4)}` : "year";
  $("trend-note").textContent = trends.periods.length
    ? `Cases per ${per}, for the ${series.length} ${groups} most of them have ` +
      `(of ${trends.totalCount}); the dashed line counts every dated case` +
      (trends.undatedCases ? ` (${plural(trends.undatedCases, "case has", "cases have")} no date).` : ".") +
      " Click a point to filter by it."
    : "No dated case matches these filters.";
  container.dataset.state = "ready";
}
