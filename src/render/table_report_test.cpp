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

// The line that starts with `start`, or "".
std::string line_starting(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return "";
}

TEST(TableReport, TotalStoredIsTheFileSizeAndLoadedTheSum) {
  const Small small = small_report();
  const std::string table = render_table(small.report, small.memory);
  const std::string total = line_starting(table, "TOTAL");
  ASSERT_FALSE(total.empty()) << table;
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


TEST(TableReport, TransientsOnlyOnTheRowsWhoseReadNeedsThem) {
  Small small = small_report();
  ElementCost& x = small.memory.elements.at(0);
  for (ElementCost& part : x.children) part.io_transient_bytes = 2621440;  // each read: 2.50 MiB
  x.children.at(0).buffer_transient_bytes = 1000;
  x.sum_children(/*own_python=*/5 * 1048576);  // the group's own: 5 MiB of Python temporaries
  small.memory.read_overhead_bytes = 1;
  const std::string table = render_table(small.report, small.memory);
  const std::string group = line_starting(table, "/X ");
  EXPECT_EQ(group.find("2.50 MiB"), std::string::npos) << group;  // its children's, not its own
  EXPECT_NE(group.find("5.00 MiB"), std::string::npos) << group;
  EXPECT_NE(line_starting(table, "  data ").find("2.50 MiB"), std::string::npos) << table;
  EXPECT_NE(line_starting(table, "  indptr ").find("2.50 MiB"), std::string::npos) << table;
  // The columns are named as the peak rows that count them.
  const std::string header = line_starting(table, "ELEMENT");
  for (const char* name : {"PYTHON TEMPORARIES", "HDF5 CHUNK RECORDS", "HDF5 CONVERSION BUFFERS"}) {
    EXPECT_NE(header.find(name), std::string::npos) << name;
  }
  EXPECT_NE(table.find("[peak: HDF5 chunk records of /X]"), std::string::npos) << table;
  EXPECT_NE(table.find("[peak: HDF5 conversion buffers of /X]"), std::string::npos) << table;
  // What the memory columns are for.
  EXPECT_NE(table.find("Memory for runtime " + small.memory.runtime.name + " (--runtime), profile load"),
            std::string::npos)
      << table;
}

TEST(TableReport, FieldsAreNamedSoAndBracketsMeanNoHdf5Object) {
  Small small;
  Report& report = small.report;
  report.source = "legacy.h5ad";
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.dtype = "[('index', 'S10'), ('louvain', 'int8'), ('n_counts', 'float32'), ('n_genes', 'int64')]";
  Element member;
  member.path = "/obs[louvain]";
  member.encoding = "array";
  member.dtype = "int8";
  obs.children = {member};
  Element pca;
  pca.path = "/obsm[X_pca]";
  pca.encoding = "array";
  report.elements = {obs, pca};
  ElementCost frame;
  frame.element = &report.elements[0];
  frame.path = "/obs";
  ElementCost field;
  field.element = &report.elements[0].children[0];
  field.path = "/obs[louvain]";
  ElementCost hash;
  hash.path = "[index hash table]";
  frame.children = {field, hash};
  ElementCost top;
  top.element = &report.elements[1];
  top.path = "/obsm[X_pca]";
  small.memory.elements = {frame, top};
  const std::string table = render_table(report, small.memory);
  EXPECT_FALSE(line_starting(table, "  louvain (field) ").empty()) << table;
  EXPECT_FALSE(line_starting(table, "/obsm X_pca (field) ").empty()) << table;
  EXPECT_FALSE(line_starting(table, "  [index hash table] ").empty()) << table;
  // A long structured dtype is cut to its first field; numpy's spelling otherwise.
  EXPECT_NE(line_starting(table, "/obs ").find("[('index', 'S10'), ... 4 fields]"), std::string::npos) << table;
}

}  // namespace
}  // namespace h5ad_sizer
