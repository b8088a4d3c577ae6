#include "h5ad_sizer/render/table_report.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "h5ad_sizer/render/units.hpp"

namespace h5ad_sizer {
namespace {

struct Small {
  Report report;
  MemoryEstimate memory;
};

// A report and its costs made by hand: the renderer is tested alone.
Small small_report() {
  Small small;
  Report& report = small.report;
  report.source = "f.h5ad";
  report.file_bytes = 10000;
  Element x;
  x.path = "/X";
  x.encoding = "csr_matrix";
  x.dtype = "float32";
  x.shape = {10, 5};
  x.nnz = 4;
  for (const char* part : {"data", "indices", "indptr"}) {
    Element c;
    c.path = std::string("/X/") + part;
    c.encoding = "array";
    c.stored_bytes = 1000;
    x.children.push_back(c);
  }
  x.sum_children();
  report.elements.push_back(x);
  const Element& stored = report.elements.back();
  ElementCost cost;
  cost.element = &stored;
  cost.path = stored.path;
  for (const Element& part : stored.children) {
    ElementCost part_cost;
    part_cost.element = &part;
    part_cost.path = part.path;
    part_cost.final_bytes = 2000;
    cost.children.push_back(part_cost);
  }
  cost.sum_children();
  small.memory.elements.push_back(cost);
  return small;
}

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::string last;
  while (std::getline(in, line)) last = line;
  return last;
}

TEST(TableReport, TotalStoredIsTheFileSizeAndLoadedTheSum) {
  const Small small = small_report();
  const std::string table = render_table(small.report, small.memory);
  const std::string total = last_line(table);
  EXPECT_EQ(total.rfind("TOTAL", 0), 0u);
  EXPECT_NE(total.find(human_bytes(10000)), std::string::npos) << total;  // file size
  EXPECT_NE(total.find(human_bytes(6000)), std::string::npos) << total;   // loaded sum
  EXPECT_NE(total.find("100.0%"), std::string::npos);
  // The 7000 bytes outside datasets get a row of their own.
  EXPECT_NE(table.find("[HDF5 metadata, string text, free space]"), std::string::npos);
  EXPECT_NE(table.find(human_bytes(7000)), std::string::npos);
}

TEST(TableReport, ChildrenAreIndentedUnderTheirParentByRelativeName) {
  const Small small = small_report();
  const std::string table = render_table(small.report, small.memory);
  EXPECT_NE(table.find("\n/X "), std::string::npos) << table;
  EXPECT_NE(table.find("\n  data "), std::string::npos) << table;
  EXPECT_NE(table.find("\n  indptr "), std::string::npos) << table;
}

}  // namespace
}  // namespace h5ad_sizer
