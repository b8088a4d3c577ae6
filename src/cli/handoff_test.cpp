#include "cli/handoff.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/io/step_functions.hpp"

namespace h5ad_sizer::cli {
namespace {

using nlohmann::ordered_json;

ordered_json document_with(std::size_t elements, std::size_t keys) {
  ordered_json doc = {{"job_definition", "arn:aws:batch:us-east-1:123456789012:job-definition/m1:1"},
                      {"dataset", {{"n_obs", 10}}}};
  doc["dataset"]["elements"] = ordered_json::array();
  for (std::size_t i = 0; i < elements; ++i) {
    doc["dataset"]["elements"].push_back({{"path", "/uns/entry_" + std::to_string(i)}, {"stored_bytes", i}});
  }
  doc["dataset"]["keys"] = {{"uns", ordered_json::array()}};
  for (std::size_t i = 0; i < keys; ++i) doc["dataset"]["keys"]["uns"].push_back("key_" + std::to_string(i));
  return doc;
}

TEST(TaskOutput, SmallDocumentsGoWhole) {
  const ordered_json doc = document_with(3, 3);
  EXPECT_EQ(ordered_json::parse(task_output(doc)), doc);
}

TEST(TaskOutput, LargeDocumentsLoseTheElementsFirst) {
  const std::string output = task_output(document_with(20'000, 3));
  EXPECT_LE(output.size(), io::kTaskOutputMaxBytes);
  const auto sent = ordered_json::parse(output);
  EXPECT_FALSE(sent["dataset"].contains("elements"));
  EXPECT_EQ(sent["dataset"]["elements_omitted"], true);
  EXPECT_EQ(sent["dataset"]["keys"]["uns"].size(), 3u);
  EXPECT_FALSE(sent["dataset"].contains("keys_omitted"));
  EXPECT_EQ(sent["job_definition"], "arn:aws:batch:us-east-1:123456789012:job-definition/m1:1");
}

TEST(TaskOutput, ThenTheKeyLists) {
  const auto sent = ordered_json::parse(task_output(document_with(10, 40'000)));
  EXPECT_EQ(sent["dataset"]["elements_omitted"], true);
  EXPECT_EQ(sent["dataset"]["keys_omitted"], true);
}

TEST(TaskOutput, InvalidUtf8InNamesIsReplacedNotFatal) {
  ordered_json doc = document_with(1, 0);
  doc["dataset"]["keys"]["uns"].push_back("bad\xff");
  EXPECT_NE(task_output(doc).find("bad\xEF\xBF\xBD"), std::string::npos);
}

TEST(ErrorNames, OnePerExitStatus) {
  EXPECT_STREQ(error_name(ExitStatus::usage_error), "H5adSizer.Usage");
  EXPECT_STREQ(error_name(ExitStatus::input_unreadable), "H5adSizer.Unreadable");
  EXPECT_STREQ(error_name(ExitStatus::invalid_h5ad), "H5adSizer.InvalidFile");
  EXPECT_STREQ(error_name(ExitStatus::overflow), "H5adSizer.Overflow");
  EXPECT_STREQ(error_name(ExitStatus::internal_error), "H5adSizer.Internal");
  EXPECT_STREQ(error_name(ExitStatus::differences), "H5adSizer.Differences");
}

}  // namespace
}  // namespace h5ad_sizer::cli
