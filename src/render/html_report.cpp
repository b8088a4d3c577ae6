#include "h5ad_sizer/render/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/render/units.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer {
namespace {

// Coordinates to a tenth of a pixel: enough for a screen, short to read.
std::string px(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string esc(const std::string& text) { return markup_escape(printable(text)); }

const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
p.lead { margin: 0 0 16px; color: #444; }
table { border-collapse: collapse; }
th, td { padding: 3px 10px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
svg text { font: 11px system-ui, sans-serif; }
svg .bar { fill: #4a7ab5; }
svg .limit { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 4 3; }
svg .limit-label { fill: #c0392b; }
svg .axis { stroke: #555; }
svg .box { stroke: #fff; stroke-width: 1; }
)";

std::string page_start(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + esc(title) +
         "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
}

const char* kPageEnd = "</body>\n</html>\n";

// ---- plan ----

// Four bins an octave of required memory.
constexpr double kBinsPerOctave = 4;

std::string histogram_svg(const PlanSummary& summary, const std::vector<PlanOutcome>& outcomes) {
  std::vector<double> values;
  for (const PlanOutcome& outcome : outcomes) {
    if (!outcome.failure && outcome.required_bytes > 0) values.push_back(static_cast<double>(outcome.required_bytes));
  }
  const double width = 900, height = 320, left = 50, right = 20, top = 20, bottom = 50;
  std::ostringstream svg;
  svg << "<svg id=\"histogram\" width=\"" << px(width) << "\" height=\"" << px(height) << "\" viewBox=\"0 0 "
      << px(width) << " " << px(height) << "\" role=\"img\" aria-label=\"required memory per dataset, log scale\">\n";
  if (values.empty()) {
    svg << "<text x=\"" << px(left) << "\" y=\"" << px(height / 2) << "\">no dataset was sized</text>\n</svg>\n";
    return svg.str();
  }
  // The range covers every dataset and every bucket limit, whole octaves.
  double low = *std::min_element(values.begin(), values.end());
  double high = *std::max_element(values.begin(), values.end());
  for (const Bucket& bucket : summary.table.buckets) {
    const double limit = static_cast<double>(bucket.memory_mib) * static_cast<double>(kMiB);
    low = std::min(low, limit);
    high = std::max(high, limit);
  }
  const double first_octave = std::floor(std::log2(low));
  const double last_octave = std::max(first_octave + 1, std::ceil(std::log2(high * 1.0001)));
  const auto bins = static_cast<std::size_t>((last_octave - first_octave) * kBinsPerOctave);
  std::vector<std::size_t> counts(bins, 0);
  for (double value : values) {
    auto bin = static_cast<std::size_t>((std::log2(value) - first_octave) * kBinsPerOctave);
    counts[std::min(bin, bins - 1)]++;
  }
  const std::size_t most = *std::max_element(counts.begin(), counts.end());
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  auto x_of = [&](double bytes) {
    return left + (std::log2(bytes) - first_octave) / (last_octave - first_octave) * plot_w;
  };
  const double bar_w = plot_w / static_cast<double>(bins);
  for (std::size_t i = 0; i < bins; ++i) {
    if (counts[i] == 0) continue;
    const double h = plot_h * static_cast<double>(counts[i]) / static_cast<double>(most);
    const double from = std::exp2(first_octave + static_cast<double>(i) / kBinsPerOctave);
    const double to = std::exp2(first_octave + static_cast<double>(i + 1) / kBinsPerOctave);
    svg << "<rect class=\"bar\" data-count=\"" << counts[i] << "\" x=\"" << px(left + bar_w * static_cast<double>(i) + 1)
        << "\" y=\"" << px(top + plot_h - h) << "\" width=\"" << px(std::max(bar_w - 2, 1.0)) << "\" height=\""
        << px(h) << "\"><title>" << counts[i] << " dataset" << (counts[i] == 1 ? "" : "s") << ", "
        << esc(human_bytes(static_cast<std::uint64_t>(from))) << " to "
        << esc(human_bytes(static_cast<std::uint64_t>(to))) << "</title></rect>\n";
  }
  // Axes: an octave a tick, the largest count at the top.
  svg << "<line class=\"axis\" x1=\"" << px(left) << "\" y1=\"" << px(top + plot_h) << "\" x2=\"" << px(left + plot_w)
      << "\" y2=\"" << px(top + plot_h) << "\"/>\n";
  for (double octave = first_octave; octave <= last_octave; ++octave) {
    const double x = x_of(std::exp2(octave));
    svg << "<line class=\"axis\" x1=\"" << px(x) << "\" y1=\"" << px(top + plot_h) << "\" x2=\"" << px(x)
        << "\" y2=\"" << px(top + plot_h + 4) << "\"/><text x=\"" << px(x) << "\" y=\"" << px(top + plot_h + 16)
        << "\" text-anchor=\"middle\">" << esc(human_bytes(static_cast<std::uint64_t>(std::exp2(octave))))
        << "</text>\n";
  }
  svg << "<text x=\"" << px(left - 6) << "\" y=\"" << px(top + 10) << "\" text-anchor=\"end\">" << most
      << "</text>\n<text x=\"" << px(left - 6) << "\" y=\"" << px(top + plot_h) << "\" text-anchor=\"end\">0</text>\n"
      << "<text x=\"" << px(left + plot_w / 2) << "\" y=\"" << px(height - 6)
      << "\" text-anchor=\"middle\">required memory (log scale); dashed: bucket limits</text>\n";
  for (std::size_t i = 0; i < summary.table.buckets.size(); ++i) {
    const Bucket& bucket = summary.table.buckets[i];
    const double x = x_of(static_cast<double>(bucket.memory_mib) * static_cast<double>(kMiB));
    svg << "<line class=\"limit\" data-bucket=\"" << esc(bucket.name) << "\" x1=\"" << px(x) << "\" y1=\""
        << px(top) << "\" x2=\"" << px(x) << "\" y2=\"" << px(top + plot_h) << "\"/><text class=\"limit-label\" x=\""
        << px(x - 3) << "\" y=\"" << px(top + 12 + 12 * static_cast<double>(i % 2)) << "\" text-anchor=\"end\">"
        << esc(bucket.name) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

std::string summary_table(const PlanSummary& summary) {
  const bool priced = summary.table.priced();
  std::ostringstream out;
  out << "<table id=\"summary\">\n<tr><th>bucket</th><th class=\"n\">memory</th><th class=\"n\">datasets</th>"
         "<th class=\"n\">share</th><th class=\"n\">required, total</th><th class=\"n\">largest</th>"
      << (priced ? "<th class=\"n\">price/hour</th>" : "") << "</tr>\n";
  for (std::size_t i = 0; i < summary.buckets.size(); ++i) {
    const Bucket& bucket = summary.table.buckets[i];
    const PlanBucket& planned = summary.buckets[i];
    out << "<tr><td>" << esc(bucket.name) << "</td><td class=\"n\">"
        << esc(human_bytes(checked_mul(bucket.memory_mib, kMiB))) << "</td><td class=\"n\">" << planned.count
        << "</td><td class=\"n\">" << esc(percent(planned.count, summary.sized)) << "</td><td class=\"n\">"
        << esc(human_bytes(planned.required_total)) << "</td><td class=\"n\">"
        << (planned.count ? esc(human_bytes(planned.required_largest)) : "") << "</td>"
        << (priced ? "<td class=\"n\">" + price_text(*bucket.price_per_hour) + "</td>" : "") << "</tr>\n";
  }
  out << "</table>\n";
  return out.str();
}

}  // namespace

std::string render_plan_html(const PlanSummary& summary, const std::vector<PlanOutcome>& outcomes) {
  const std::size_t datasets = summary.sized + summary.failed.size();
  std::ostringstream out;
  out << page_start("h5ad-sizer plan: " + std::to_string(datasets) + " datasets");
  out << "<h1>h5ad-sizer plan: " << datasets << " datasets</h1>\n<p class=\"lead\" id=\"totals\">"
      << summary.sized << " sized; " << summary.overflow.size() << " need more than the largest bucket; "
      << summary.failed.size() << " failed. Bucket table: " << esc(summary.table.origin) << ", profile "
      << esc(summary.table.profile.name) << ".";
  if (summary.sized > 0) {
    out << " Memory reserved, one job a dataset: " << esc(human_bytes(checked_mul(summary.reserved_mib, kMiB)))
        << " in the buckets chosen against " << esc(human_bytes(checked_mul(summary.all_largest_mib, kMiB)))
        << " with every job on the largest (" << esc(percent(summary.reserved_mib, summary.all_largest_mib)) << ").";
  }
  if (summary.price_per_hour) {
    out << " An hour of every job: " << price_text(*summary.price_per_hour) << " against "
        << price_text(*summary.all_largest_price_per_hour) << " on the largest.";
  }
  out << "</p>\n<h2>Required memory</h2>\n" << histogram_svg(summary, outcomes) << "<h2>Buckets</h2>\n"
      << summary_table(summary);
  std::vector<const PlanOutcome*> sized;
  for (const PlanOutcome& outcome : outcomes) {
    if (!outcome.failure) sized.push_back(&outcome);
  }
  std::stable_sort(sized.begin(), sized.end(),
                   [](const PlanOutcome* a, const PlanOutcome* b) { return a->required_bytes > b->required_bytes; });
  if (sized.size() > 20) sized.resize(20);
  out << "<h2>The " << sized.size() << " that need the most</h2>\n<table id=\"largest\">\n"
      << "<tr><th>dataset</th><th class=\"n\">required</th><th>bucket</th></tr>\n";
  for (const PlanOutcome* outcome : sized) {
    out << "<tr><td>" << esc(outcome->source) << "</td><td class=\"n\">" << esc(human_bytes(outcome->required_bytes))
        << "</td><td>" << esc(summary.table.buckets.at(outcome->bucket).name)
        << (outcome->overflow ? " (too small)" : "") << "</td></tr>\n";
  }
  out << "</table>\n<h2>Failed: " << summary.failed.size() << "</h2>\n<table id=\"failures\">\n"
      << "<tr><th>dataset</th><th>error</th><th>message</th></tr>\n";
  for (const PlanOutcome* outcome : summary.failed) {
    out << "<tr><td>" << esc(outcome->source) << "</td><td>" << esc(error_name(*outcome->failure)) << "</td><td>"
        << esc(outcome->message) << "</td></tr>\n";
  }
  out << "</table>\n" << kPageEnd;
  return out.str();
}

// ---- inspect ----

std::vector<Box> squarify(const std::vector<double>& sizes, Box within) {
  std::vector<Box> boxes(sizes.size());
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  double total = 0;
  for (double size : sizes) total += std::max(size, 0.0);
  if (total <= 0 || within.w <= 0 || within.h <= 0) return boxes;
  const double scale = within.w * within.h / total;  // area per unit of size
  Box free = within;
  std::size_t start = 0;
  while (start < order.size() && sizes[order[start]] > 0) {
    // Lay a row along the shorter side while it makes the worst aspect ratio better.
    const double side = std::min(free.w, free.h);
    auto worst = [&](std::size_t from, std::size_t to) {  // [from, to)
      double sum = 0, largest = 0, smallest = 1e300;
      for (std::size_t i = from; i < to; ++i) {
        const double area = sizes[order[i]] * scale;
        sum += area;
        largest = std::max(largest, area);
        smallest = std::min(smallest, area);
      }
      const double s2 = side * side, sum2 = sum * sum;
      return std::max(s2 * largest / sum2, sum2 / (s2 * smallest));
    };
    std::size_t end = start + 1;
    while (end < order.size() && sizes[order[end]] > 0 && worst(start, end + 1) <= worst(start, end)) ++end;
    double row_area = 0;
    for (std::size_t i = start; i < end; ++i) row_area += sizes[order[i]] * scale;
    const double thickness = row_area / side;
    double offset = 0;
    for (std::size_t i = start; i < end; ++i) {
      const double length = sizes[order[i]] * scale / thickness;
      Box& box = boxes[order[i]];
      if (free.w >= free.h) {  // a column at the left
        box = {free.x, free.y + offset, thickness, length};
      } else {  // a row at the top
        box = {free.x + offset, free.y, length, thickness};
      }
      offset += length;
    }
    if (free.w >= free.h) {
      free.x += thickness;
      free.w -= thickness;
    } else {
      free.y += thickness;
      free.h -= thickness;
    }
    start = end;
  }
  return boxes;
}

namespace {

// One box of the treemap: a label, bytes, and what it holds.
struct Tile {
  std::string label;
  std::string detail;  // the tooltip's text
  std::uint64_t bytes = 0;
  std::size_t colour = 0;
  std::vector<Tile> children;
};

const char* kColours[] = {"#4a7ab5", "#5aa469", "#d4a017", "#a05195", "#d45087", "#2f9e9e", "#8c6d31", "#7f7f7f"};
constexpr std::size_t kColourCount = sizeof kColours / sizeof kColours[0];

Tile tile_of(const ElementCost& cost, std::size_t colour, std::uint64_t peak) {
  Tile tile;
  tile.label = cost.path;
  tile.bytes = cost.final_bytes;
  tile.colour = colour;
  tile.detail = cost.path + ": " + human_bytes(cost.final_bytes) + " (" + percent(cost.final_bytes, peak) + ")";
  for (const ElementCost& child : cost.children) tile.children.push_back(tile_of(child, colour, peak));
  return tile;
}

void draw(const Tile& tile, Box box, std::size_t depth, std::ostringstream& svg) {
  if (box.w < 0.5 || box.h < 0.5) return;
  const double shade = std::min(0.15 * static_cast<double>(depth), 0.6);
  svg << "<g><rect class=\"box\" data-bytes=\"" << tile.bytes << "\" x=\"" << px(box.x) << "\" y=\"" << px(box.y)
      << "\" width=\"" << px(box.w) << "\" height=\"" << px(box.h) << "\" fill=\"" << kColours[tile.colour % kColourCount]
      << "\" fill-opacity=\"" << px(1.0 - shade) << "\"><title>" << esc(tile.detail) << "</title></rect>";
  const bool labelled = box.w > 70 && box.h > 16;
  if (labelled) {
    // The last path component fits; the tooltip has the whole.
    std::string name = tile.label;
    if (const auto slash = name.rfind('/'); slash != std::string::npos && slash + 1 < name.size() && depth > 0) {
      name = name.substr(slash + 1);
    }
    const auto fits = static_cast<std::size_t>(box.w / 6.5);
    if (name.size() > fits) name = name.substr(0, fits > 1 ? fits - 1 : 0) + "~";
    svg << "<text x=\"" << px(box.x + 3) << "\" y=\"" << px(box.y + 12) << "\" fill=\"#fff\">" << esc(name)
        << "</text>";
  }
  svg << "</g>\n";
  std::uint64_t children_bytes = 0;
  for (const Tile& child : tile.children) children_bytes += child.bytes;
  if (tile.children.empty() || children_bytes == 0 || depth >= 3) return;
  // Inside, below its label: the children.
  const double header = labelled ? 16 : 0;
  const Box inner{box.x + 2, box.y + header, box.w - 4, box.h - header - 2};
  std::vector<double> sizes;
  for (const Tile& child : tile.children) sizes.push_back(static_cast<double>(child.bytes));
  const std::vector<Box> boxes = squarify(sizes, inner);
  for (std::size_t i = 0; i < tile.children.size(); ++i) draw(tile.children[i], boxes[i], depth + 1, svg);
}

}  // namespace

std::string render_inspect_html(const Report& report, const MemoryEstimate& memory) {
  const std::uint64_t peak = memory.peak_bytes();
  std::vector<Tile> tiles;
  // A colour for each top-level group (X, obs, uns, ...), in order seen.
  std::vector<std::string> groups;
  auto group_of = [&](const std::string& path) {
    std::string group = path.substr(0, path.find_first_of("/[.", 1));
    auto it = std::find(groups.begin(), groups.end(), group);
    if (it == groups.end()) {
      groups.push_back(group);
      return groups.size() - 1;
    }
    return static_cast<std::size_t>(it - groups.begin());
  };
  for (const ElementCost& element : memory.elements) tiles.push_back(tile_of(element, group_of(element.path), peak));
  // The peak terms, so that the whole area is the peak.
  auto term = [&](const std::string& label, std::uint64_t bytes) {
    if (bytes == 0) return;
    Tile tile;
    tile.label = label;
    tile.bytes = bytes;
    tile.colour = kColourCount - 1;
    tile.detail = label + ": " + human_bytes(bytes) + " (" + percent(bytes, peak) + ")";
    tiles.push_back(tile);
  };
  term("[peak: Python temporaries]", memory.python_peak().bytes);
  if (const ElementCost* io = memory.io_peak()) term("[peak: HDF5 chunk records]", io->io_transient_bytes);
  if (const ElementCost* buffer = memory.buffer_peak()) {
    term("[peak: HDF5 conversion buffers]", buffer->buffer_transient_bytes);
  }
  term("[read_h5ad start-up]", memory.read_overhead_bytes);

  std::ostringstream out;
  out << page_start("h5ad-sizer inspect: " + report.source);
  out << "<h1>" << esc(report.source) << "</h1>\n<p class=\"lead\" id=\"totals\">AnnData "
      << esc(layout_name(report.layout)) << " layout, " << report.n_obs << " obs x " << report.n_vars << " vars, "
      << esc(human_bytes(report.file_bytes)) << " on disk, <b id=\"peak\">" << esc(human_bytes(peak))
      << "</b> at the peak of read_h5ad (runtime " << esc(memory.runtime.name)
      << ", profile load). Each box is an element's memory once read, nested as the file is; the grey boxes are "
         "what the read needs besides at its peak. Hover for sizes.</p>\n";
  const double width = 960, height = 560;
  std::ostringstream svg;
  svg << "<svg id=\"treemap\" width=\"" << px(width) << "\" height=\"" << px(height) << "\" viewBox=\"0 0 "
      << px(width) << " " << px(height) << "\" role=\"img\" aria-label=\"peak memory by element\">\n";
  std::vector<double> sizes;
  for (const Tile& tile : tiles) sizes.push_back(static_cast<double>(tile.bytes));
  const std::vector<Box> boxes = squarify(sizes, {0, 0, width, height});
  for (std::size_t i = 0; i < tiles.size(); ++i) draw(tiles[i], boxes[i], 0, svg);
  svg << "</svg>\n";
  out << svg.str() << "<h2>Elements</h2>\n<table id=\"elements\">\n"
      << "<tr><th>element</th><th>encoding</th><th class=\"n\">stored</th><th class=\"n\">loaded</th>"
         "<th class=\"n\">share of the peak</th></tr>\n";
  std::vector<const Tile*> sorted;
  for (const Tile& tile : tiles) sorted.push_back(&tile);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Tile* a, const Tile* b) { return a->bytes > b->bytes; });
  for (const Tile* tile : sorted) {
    const ElementCost* cost = memory.find(tile->label);
    const Element* element = cost ? cost->element : nullptr;
    out << "<tr><td>" << esc(tile->label) << "</td><td>" << (element ? esc(element->encoding) : "") << "</td>"
        << "<td class=\"n\">" << (element ? esc(human_bytes(element->stored_bytes)) : "") << "</td><td class=\"n\">"
        << esc(human_bytes(tile->bytes)) << "</td><td class=\"n\">" << esc(percent(tile->bytes, peak))
        << "</td></tr>\n";
  }
  out << "<tr><td><b>TOTAL</b></td><td></td><td class=\"n\">"
      << esc(human_bytes(report.stored_total() + report.unattributed_bytes())) << "</td><td class=\"n\"><b>"
      << esc(human_bytes(peak)) << "</b></td><td class=\"n\">100.0%</td></tr>\n</table>\n"
      << kPageEnd;
  return out.str();
}

}  // namespace h5ad_sizer
