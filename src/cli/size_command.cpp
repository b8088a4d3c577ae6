#include "cli/size_command.hpp"

#include <spdlog/spdlog.h>

#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/estimate/job.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "h5ad_sizer/render/json_report.hpp"
#include "h5ad_sizer/render/units.hpp"
#include "h5ad_sizer/sizing.hpp"
#include "h5ad_sizer/source.hpp"

namespace h5ad_sizer::cli {
namespace {

// Reads the file, estimates, and picks a bucket.
Sizing size_dataset(const SizeOptions& options) {
  Sizing sizing;
  // The table first: a configuration error should not wait for a large file.
  sizing.table = load_bucket_table(options.buckets);
  const std::string runtime_name = options.runtime.value_or(sizing.table.runtime.value_or(kDefaultRuntime));
  const std::optional<RuntimeModel> runtime = find_runtime(runtime_name);
  if (!runtime) {
    throw_usage("--runtime: unknown runtime \"" + runtime_name + "\" (modelled: " + runtime_names() + ")");
  }
  JobProfile profile = sizing.table.profile_for(*runtime);
  if (options.profile) {
    auto builtin = find_builtin_profile(*options.profile, *runtime);
    if (!builtin) {
      throw_usage("--profile: unknown profile \"" + *options.profile + "\" (built in: " +
                  builtin_profile_names() + ")");
    }
    profile = *builtin;
  }
  if (options.min_bucket < 1 || options.min_bucket > sizing.table.buckets.size()) {
    throw_usage("--min-bucket: must be between 1 and " + std::to_string(sizing.table.buckets.size()) +
                " (the buckets in " + sizing.table.origin + ")");
  }
  OpenedSource source = open_source(options.path, {!options.no_sign_request, options.deadline});
  // Object headers only: the chunk indexes would cost a request per node
  // over HTTP, for stored bytes the estimate does not use.
  ReadOptions read_options;
  read_options.storage = h5::StorageDetail::object_header;
  sizing.report = read_anndata(source, read_options);
  sizing.io = source.bytes->stats();
  sizing.memory = estimate_memory(sizing.report, *runtime);
  try {
    sizing.estimate = estimate_job(sizing.report, sizing.memory, profile);
  } catch (const std::overflow_error& overflow) {
    throw_invalid(sizing.report.source + ": /: " + overflow.what());
  }
  sizing.choice = choose_bucket(sizing.table, sizing.estimate.required_bytes, options.min_bucket);
  return sizing;
}

}  // namespace

nlohmann::ordered_json size_document(const SizeOptions& options) {
  const Sizing sizing = size_dataset(options);
  if (sizing.choice.overflow) {
    const Bucket& largest = sizing.table.buckets.back();
    const std::string message =
        sizing.report.source + ": needs " + human_bytes(sizing.estimate.required_bytes) + " (profile " +
        sizing.estimate.profile.name + "), more than the largest bucket '" + largest.name + "' (" +
        std::to_string(largest.memory_mib) + " MiB)";
    if (options.strict) throw Error(ExitStatus::overflow, message);
    spdlog::warn("{}; choosing it anyway", message);
  }
  return sizing_json(sizing, options.stats);
}

}  // namespace h5ad_sizer::cli
