#include "h5ad_sizer/render/html_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/render/units.hpp"

namespace h5ad_sizer {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Nothing fetched: no script, no link, no URL but in text.
void expect_self_contained(const std::string& page) {
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* fetching : {"<script", "<link", "src=", "href=", "url(", "@import"}) {
    EXPECT_EQ(page.find(fetching), std::string::npos) << fetching;
  }
}

TEST(Squarify, FillsTheBoxWithAreasInProportion) {
  const std::vector<double> sizes = {6, 6, 4, 3, 2, 2, 1};  // Bruls et al.'s example
  const Box within{0, 0, 6, 4};
  const std::vector<Box> boxes = squarify(sizes, within);
  ASSERT_EQ(boxes.size(), sizes.size());
  double area = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const Box& b = boxes[i];
    EXPECT_NEAR(b.w * b.h, sizes[i], 1e-9) << i;
    EXPECT_GE(b.x, -1e-9);
    EXPECT_GE(b.y, -1e-9);
    EXPECT_LE(b.x + b.w, 6 + 1e-9);
    EXPECT_LE(b.y + b.h, 4 + 1e-9);
    area += b.w * b.h;
  }
  EXPECT_NEAR(area, 24, 1e-9);
  // No two overlap.
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const Box &a = boxes[i], &b = boxes[j];
      const double w = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
      const double h = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
      EXPECT_FALSE(w > 1e-9 && h > 1e-9) << i << " and " << j;
    }
  }
  // Squarified: the first two (6 and 6) are each 3 x 2, not slivers.
  EXPECT_NEAR(boxes[0].w / boxes[0].h, 1.5, 1e-9);
  EXPECT_TRUE(squarify({0, 0}, within)[0].w == 0);
}

TEST(MarkupEscape, EscapesWhatHtmlWouldRead) {
  EXPECT_EQ(markup_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

BucketTable two_buckets() {
  BucketTable table;
  table.origin = "t.json";
  table.profile.name = "migrate";
  table.buckets = {{"small", "arn:aws:batch:us-east-1:1:job-definition/s", 2, 1024, 0.1},
                   {"large", "arn:aws:batch:us-east-1:1:job-definition/l", 8, 8192, 0.8}};
  return table;
}

TEST(PlanHtml, HistogramWithBucketLimitsTablesAndFailures) {
  std::vector<PlanOutcome> outcomes;
  for (int i = 0; i < 30; ++i) {
    PlanOutcome outcome;
    outcome.source = "d" + std::to_string(i) + ".h5ad";
    outcome.required_bytes = static_cast<std::uint64_t>(100 + 30 * i) * kMiB;
    outcome.bucket = outcome.required_bytes <= 1024 * kMiB ? 0 : 1;
    outcomes.push_back(outcome);
  }
  PlanOutcome broken;
  broken.source = "<broken>.h5ad";
  broken.failure = ExitStatus::invalid_h5ad;
  broken.message = "<broken>.h5ad: truncated";
  outcomes.push_back(broken);
  const PlanSummary summary = summarize_plan(two_buckets(), outcomes);
  const std::string page = render_plan_html(summary, outcomes);
  expect_self_contained(page);
  EXPECT_NE(page.find("<svg id=\"histogram\""), std::string::npos);
  EXPECT_EQ(count(page, "class=\"limit\""), 2u);
  EXPECT_NE(page.find("data-bucket=\"small\""), std::string::npos);
  // Every sized dataset is in a bar.
  std::size_t in_bars = 0;
  const std::regex bar("class=\"bar\" data-count=\"([0-9]+)\"");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), bar); it != std::sregex_iterator(); ++it) {
    in_bars += std::stoul((*it)[1]);
  }
  EXPECT_EQ(in_bars, 30u);
  EXPECT_NE(page.find("<table id=\"summary\">"), std::string::npos);
  // The 20 that need the most, the largest first; and the failure, escaped.
  const auto largest = page.find("<table id=\"largest\">");
  ASSERT_NE(largest, std::string::npos);
  EXPECT_EQ(count(page.substr(largest, page.find("</table>", largest) - largest), "<tr><td>"), 20u);
  EXPECT_LT(page.find("d29.h5ad", largest), page.find("d28.h5ad", largest));
  EXPECT_EQ(page.find("d9.h5ad", largest), std::string::npos);
  EXPECT_NE(page.find("&lt;broken&gt;.h5ad: truncated"), std::string::npos);
  EXPECT_EQ(page.find("<broken>"), std::string::npos);
  EXPECT_NE(page.find("An hour of every job: "), std::string::npos);
}

TEST(InspectHtml, TreemapAreasAreTheElementsAndThePeakTerms) {
  Report report;
  report.source = "f.h5ad";
  for (const char* path : {"/X", "/obs"}) {
    report.elements.emplace_back();
    report.elements.back().path = path;
  }
  MemoryEstimate memory;
  for (std::size_t i = 0; i < 2; ++i) {
    ElementCost cost;
    cost.element = &report.elements[i];
    cost.path = report.elements[i].path;
    cost.final_bytes = (i == 0 ? 600 : 300) * kMiB;
    memory.elements.push_back(cost);
  }
  memory.read_overhead_bytes = 100 * kMiB;
  const std::string page = render_inspect_html(report, memory);
  expect_self_contained(page);
  ASSERT_NE(page.find("<svg id=\"treemap\""), std::string::npos);
  // Areas in proportion to bytes: 60 %, 30 %, 10 % of 960 x 560.
  const std::regex rect("data-bytes=\"([0-9]+)\" x=\"[-0-9.]+\" y=\"[-0-9.]+\" width=\"([0-9.]+)\" height=\"([0-9.]+)\"");
  double area = 0;
  std::size_t boxes = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), rect); it != std::sregex_iterator(); ++it) {
    const double bytes = std::stod((*it)[1]);
    const double box = std::stod((*it)[2]) * std::stod((*it)[3]);
    EXPECT_NEAR(box / (960.0 * 560.0), bytes / (1000.0 * kMiB), 0.002);
    area += box;
    ++boxes;
  }
  EXPECT_EQ(boxes, 3u);
  EXPECT_NEAR(area, 960.0 * 560.0, 960.0 * 560.0 * 0.002);
  EXPECT_NE(page.find("<b id=\"peak\">1000 MiB</b>"), std::string::npos) << page.substr(0, 2000);
  EXPECT_NE(page.find("<table id=\"elements\">"), std::string::npos);
  EXPECT_NE(page.find("[read_h5ad start-up]"), std::string::npos);
}

}  // namespace
}  // namespace h5ad_sizer
