#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/size_command.hpp"

namespace h5ad_sizer::cli {

// What `plan` is asked.
struct PlanOptions {
  // Files, URLs, directories (searched for *.h5ad), "-" for a manifest on
  // standard input.
  std::vector<std::string> inputs;
  std::vector<std::string> manifests;  // files of paths or URLs, one a line
  // Bucket tables: none for the default, several to compare (the first is
  // the one planned, written to --ndjson and --write-expect).
  std::vector<std::string> buckets;
  std::optional<std::string> profile;
  std::optional<std::string> runtime;
  std::size_t jobs = 1;
  std::optional<std::string> ndjson;  // one line per dataset
  bool json = false;                  // the summary as JSON
  std::optional<std::size_t> baseline_bucket;  // 1-based
  std::optional<std::string> write_expect;     // the expectation file for `check`
  std::optional<std::string> html;             // the page of the plan
  bool no_sign_request = false;
  bool allow_link_local = false;
  ReadLimits limits;
};

// The datasets the inputs name, in order: a directory's *.h5ad files
// (recursively, sorted), a manifest's lines (blank lines and '#' comments
// skipped), an s3://BUCKET/PREFIX/'s *.h5ad objects (in a manifest too),
// anything else as given. Throws Error(input_unreadable) for a manifest
// that cannot be read or a prefix that cannot be listed,
// Error(usage_error) when nothing is named.
std::vector<std::string> plan_datasets(const PlanOptions& options);

// Sizes every dataset with `size` in child processes, `jobs` at a time, and
// prints the summary. One dataset's failure is part of the plan, not the
// command's; SIGINT stops it and prints what was done (exit 130). With
// several tables, each dataset is sized once per distinct runtime and job
// profile among them, and every table's buckets chosen from that.
int run_plan(const PlanOptions& options);

// Writes `text` to `path`, replacing it. Throws Error(input_unreadable)
// naming the file when it cannot be written.
void write_text_file(const std::string& path, const std::string& text);

// What `check` is asked: the datasets as for `plan`, and what to compare.
struct CheckOptions {
  PlanOptions corpus;
  std::string expect;                // the file `plan --write-expect` wrote
  std::optional<double> tolerance;   // percent of required memory
  bool junit = false;                // a JUnit XML report instead of lines
};

// Sizes the datasets as `plan` does and compares them with the expectation:
// exit 0 when all match, differences (7) when any differs.
int run_check(const CheckOptions& options);

}  // namespace h5ad_sizer::cli
