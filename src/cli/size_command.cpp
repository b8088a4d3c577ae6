#include "cli/size_command.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/checked.hpp"
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

constexpr double kLocalTimeLimitSeconds = 30;
constexpr double kRemoteTimeLimitSeconds = 60;
// A remote read stops itself at the limit (exit 3, a network problem);
// the reader process is killed only this much later, if it did not.
constexpr auto kRemoteGrace = std::chrono::seconds(2);
// Within a Lambda invocation's deadline the reader stops itself; it is
// killed this much later, still before Lambda's own margin runs out.
constexpr auto kLambdaGrace = std::chrono::milliseconds(300);

std::string seconds_text(double seconds) {
  std::string text = std::to_string(seconds);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text + " s";
}

}  // namespace

ResolvedJob resolve_job(const BucketTable& table, const std::optional<std::string>& runtime_flag,
                        const std::optional<std::string>& profile_flag) {
  const std::string runtime_name = runtime_flag.value_or(table.runtime.value_or(kDefaultRuntime));
  const std::optional<RuntimeModel> runtime = find_runtime(runtime_name);
  if (!runtime) {
    throw_usage("--runtime: unknown runtime \"" + runtime_name + "\" (modelled: " + runtime_names() + ")");
  }
  JobProfile profile = table.profile_for(*runtime);
  if (profile_flag) {
    auto builtin = find_builtin_profile(*profile_flag, *runtime);
    if (!builtin) {
      throw_usage("--profile: unknown profile \"" + *profile_flag + "\" (built in: " + builtin_profile_names() +
                  ")");
    }
    profile = *builtin;
  }
  return {*runtime, profile};
}

namespace {

// Reads the file, estimates, and picks a bucket.
Sizing size_dataset(const SizeOptions& options, Progress& progress) {
  Sizing sizing;
  // The table first: a configuration error should not wait for a large file.
  sizing.table = load_bucket_table(options.buckets);
  const auto [runtime, profile] = resolve_job(sizing.table, options.runtime, options.profile);
  if (options.min_bucket < 1 || options.min_bucket > sizing.table.buckets.size()) {
    throw_usage("--min-bucket: must be between 1 and " + std::to_string(sizing.table.buckets.size()) +
                " (the buckets in " + sizing.table.origin + ")");
  }
  SourceOptions source_options{!options.no_sign_request, options.deadline, options.allow_link_local};
  if (const auto limit = remote_deadline(options.limits, options.path)) {
    if (!source_options.deadline || *limit < *source_options.deadline) source_options.deadline = limit;
  }
  OpenedSource source = open_source(options.path, source_options);
  // Object headers only: the chunk indexes would cost a request per node
  // over HTTP, for stored bytes the estimate does not use.
  ReadOptions read_options;
  read_options.storage = h5::StorageDetail::object_header;
  read_options.on_element = [&progress](const std::string& path) { progress.reading(path); };
  sizing.report = read_anndata(source, read_options);
  sizing.io = source.bytes->stats();
  sizing.memory = estimate_memory(sizing.report, runtime);
  try {
    sizing.estimate = estimate_job(sizing.report, sizing.memory, profile);
  } catch (const std::overflow_error& overflow) {
    throw_invalid(sizing.report.source + ": /: " + overflow.what());
  }
  sizing.choice = choose_bucket(sizing.table, sizing.estimate.required_bytes, options.min_bucket);
  return sizing;
}

}  // namespace

Limits limits_for(const ReadLimits& limits, const std::string& path) {
  Limits out;
  if (limits.memory_mib > (std::uint64_t{1} << 40)) throw_usage("--memory-limit: more than 2^40 MiB");
  out.memory_bytes = limits.memory_mib * kMiB;
  out.memory_text = std::to_string(limits.memory_mib) + " MiB";
  const bool remote = is_remote(path);
  const double seconds =
      limits.time_seconds.value_or(remote ? kRemoteTimeLimitSeconds : kLocalTimeLimitSeconds);
  if (!(seconds >= 0) || seconds > 86400 * 365) throw_usage("--time-limit: must be between 0 and a year");
  out.time_text = seconds_text(seconds);
  out.time = std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
  if (remote && out.time.count() > 0) out.time += kRemoteGrace;
  return out;
}

std::optional<io::Deadline> remote_deadline(const ReadLimits& limits, const std::string& path) {
  if (!is_remote(path)) return std::nullopt;
  const Limits child = limits_for(limits, path);
  if (child.time.count() == 0) return std::nullopt;
  return std::chrono::steady_clock::now() + child.time - kRemoteGrace;
}

namespace {

nlohmann::ordered_json size_in_child(const SizeOptions& options, Progress& progress) {
  const Sizing sizing = size_dataset(options, progress);
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

}  // namespace

nlohmann::ordered_json size_document(const SizeOptions& options) {
  Limits limits = limits_for(options.limits, options.path);
  if (options.deadline) {
    // A Lambda invocation's deadline: the reader stops on its own before it.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*options.deadline -
                                                                            std::chrono::steady_clock::now());
    limits.time = std::max(std::chrono::milliseconds(1), std::min(limits.time, left + kLambdaGrace));
  }
  const std::string text = run_isolated(limits, display_name(options.path), [&](Progress& progress) {
    // Names from a file may not be UTF-8; JSON must be.
    return size_in_child(options, progress).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  });
  return nlohmann::ordered_json::parse(text);
}

}  // namespace h5ad_sizer::cli
