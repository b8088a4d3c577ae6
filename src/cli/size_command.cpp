#include "cli/size_command.hpp"

#include <spdlog/spdlog.h>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/estimate/sizing.hpp"
#include "h5ad_sizer/render/json_report.hpp"
#include "h5ad_sizer/render/units.hpp"

namespace h5ad_sizer::cli {

nlohmann::ordered_json size_document(const SizeOptions& options) {
  SizeRequest request;
  request.location = options.path;
  request.buckets_path = options.buckets;
  request.profile = options.profile;
  request.runtime = options.runtime;
  request.min_bucket = options.min_bucket;
  request.source.sign_requests = !options.no_sign_request;
  request.source.deadline = options.deadline;
  const Sizing sizing = size_dataset(request);
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
