#include "cli/app.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>

#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/estimate/sizing.hpp"
#include "h5ad_sizer/render/json_report.hpp"
#include "h5ad_sizer/render/table_report.hpp"
#include "h5ad_sizer/render/units.hpp"
#include "h5ad_sizer/source.hpp"

namespace h5ad_sizer::cli {
namespace {

struct SizeOptions {
  std::string path;
  std::optional<std::string> buckets;
  std::optional<std::string> profile;
  std::size_t min_bucket = 1;
  bool strict = false;
  bool stats = false;
  bool no_sign_request = false;
};

struct InspectOptions {
  std::string path;
  bool json = false;
  bool no_sign_request = false;
};

struct BucketsOptions {
  std::optional<std::string> buckets;
};

int run_size(const SizeOptions& options) {
  const Sizing sizing = size_dataset({options.path, options.buckets, options.profile,
                                      options.min_bucket, {!options.no_sign_request}});
  if (sizing.choice.overflow) {
    const Bucket& largest = sizing.table.buckets.back();
    const std::string message =
        options.path + ": needs " + human_bytes(sizing.estimate.required_bytes) + " (profile " +
        sizing.estimate.profile.name + "), more than the largest bucket '" + largest.name +
        "' (" + std::to_string(largest.memory_mib) + " MiB)";
    if (options.strict) throw Error(ExitStatus::overflow, message);
    spdlog::warn("{}; choosing it anyway", message);
  }
  std::cout << sizing_json(sizing, options.stats).dump(2) << '\n';
  return 0;
}

int run_inspect(const InspectOptions& options) {
  const OpenedSource source = open_source(options.path, {!options.no_sign_request});
  const Report report = read_anndata(source);
  if (options.json) {
    std::cout << dataset_json(report, /*tree=*/true).dump(2) << '\n';
  } else {
    std::cout << render_table(report);
  }
  return 0;
}

int run_buckets(const BucketsOptions& options) {
  const BucketTable table = load_bucket_table(options.buckets);
  std::cout << bucket_table_json(table).dump(2) << '\n';
  return 0;
}

void configure_logging(bool verbose) {
  // Diagnostics go to stderr: stdout carries only the result.
  auto logger = spdlog::stderr_logger_mt("h5ad-sizer");
  logger->set_pattern("h5ad-sizer: %l: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::set_default_logger(logger);
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"Size an AnnData (.h5ad) file from its metadata and pick the AWS Batch job "
               "definition for it.",
               "h5ad-sizer"};
  app.set_version_flag("--version", H5AD_SIZER_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // -v works after the subcommand too
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log debug detail to stderr");

  SizeOptions size;
  auto* size_command = app.add_subcommand(
      "size", "Estimate memory and print the job definition as JSON (for Step Functions)");
  const char* path_help = "The .h5ad file: a path, s3://BUCKET/KEY, or an http(s):// URL";
  const char* no_sign_help = "Read s3:// objects anonymously (public buckets)";
  size_command->add_option("PATH", size.path, path_help)->required();
  size_command->add_flag("--no-sign-request", size.no_sign_request, no_sign_help);
  size_command->add_option("--buckets", size.buckets,
                           "Bucket table (JSON); default: $H5AD_SIZER_BUCKETS, else built in");
  size_command->add_option("--profile", size.profile,
                           "Job profile overriding the table's: " + builtin_profile_names());
  size_command->add_option("--min-bucket", size.min_bucket,
                           "Never choose below this bucket (1-based), e.g. after an OOM");
  size_command->add_flag("--strict", size.strict,
                          "Exit 5 instead of choosing the largest bucket when none is enough");
  size_command->add_flag("--stats", size.stats,
                         "Add \"io\": requests, bytes read and seconds spent reading the file");

  InspectOptions inspect;
  auto* inspect_command =
      app.add_subcommand("inspect", "Show every element's stored and loaded size");
  inspect_command->add_option("PATH", inspect.path, path_help)->required();
  inspect_command->add_flag("--no-sign-request", inspect.no_sign_request, no_sign_help);
  inspect_command->add_flag("--json", inspect.json, "Print the element tree as JSON");

  BucketsOptions buckets;
  auto* buckets_command =
      app.add_subcommand("buckets", "Validate and print the bucket table in effect");
  buckets_command->add_option("--buckets", buckets.buckets, "Bucket table (JSON)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);  // --help, --version
  } catch (const CLI::ParseError& error) {
    std::cerr << "h5ad-sizer: error: " << error.what() << " (see h5ad-sizer --help)\n";
    return static_cast<int>(ExitStatus::usage_error);
  }

  configure_logging(verbose);
  try {
    if (*size_command) return run_size(size);
    if (*inspect_command) return run_inspect(inspect);
    return run_buckets(buckets);
  } catch (const Error& error) {
    std::cerr << "h5ad-sizer: error: " << error.what() << '\n';
    return static_cast<int>(error.status());
  } catch (const std::exception& error) {
    std::cerr << "h5ad-sizer: internal error: " << error.what() << '\n';
    return static_cast<int>(ExitStatus::internal_error);
  }
}

}  // namespace h5ad_sizer::cli
