#pragma once

#include <string>
#include <vector>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/buckets/plan.hpp"
#include "h5ad_sizer/estimate/memory.hpp"

// Self-contained HTML pages for people: inline SVG and CSS, no script, no
// external asset, nothing fetched. Pure: text in, text out.
namespace h5ad_sizer {

// `plan --html`: a histogram of required memory on a log scale with the
// bucket limits drawn (svg#histogram), the summary per bucket
// (table#summary), the 20 datasets that need the most (table#largest) and
// the failures (table#failures). `outcomes` are the plan's, the summary's
// pointers into them.
std::string render_plan_html(const PlanSummary& summary, const std::vector<PlanOutcome>& outcomes);

// `inspect --html`: a treemap of the read's peak by element (svg#treemap),
// nested as the tree is, with the peak terms (Python temporaries, HDF5
// pools, start-up) as boxes of their own so that the area is the peak;
// then the top-level elements as a table (table#elements).
std::string render_inspect_html(const Report& report, const MemoryEstimate& memory);

// A squarified treemap's layout (Bruls, Huizing and van Wijk): rectangles
// for `sizes` (descending or not) filling the w x h box at x, y, each with
// an area in proportion to its size and sides as near square as the
// greedy rows allow. Zero sizes get empty rectangles.
struct Box {
  double x = 0, y = 0, w = 0, h = 0;
};
std::vector<Box> squarify(const std::vector<double>& sizes, Box within);

}  // namespace h5ad_sizer
