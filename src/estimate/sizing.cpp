#include "h5ad_sizer/estimate/sizing.hpp"

#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/source.hpp"

namespace h5ad_sizer {

const Element* find_raw_x(const Report& report) {
  if (const Element* x = report.find("/raw/X")) return x;
  return report.find("/raw.X");
}

XShape x_shape(const Report& report) {
  XShape shape;
  const Element* x = report.find("/X");
  if (x == nullptr) return shape;
  shape.sparse = x->encoding == "csr_matrix" || x->encoding == "csc_matrix";
  if (!shape.sparse) {
    shape.float32_bytes = checked_mul(x->nnz, 4);
    shape.compact_bytes = shape.float32_bytes;
    return shape;
  }
  // data as float32; indices and indptr as they are, or as int32 when
  // scipy's get_index_dtype would choose it (every index below 2^31).
  constexpr std::uint64_t kInt32Limit = 2147483647;
  const bool int32_fits = x->nnz < kInt32Limit && x->shape.size() == 2 &&
                          x->shape[0] < kInt32Limit && x->shape[1] < kInt32Limit;
  for (const Element& part : x->children) {
    const bool data = part.path.size() >= 5 && part.path.compare(part.path.size() - 5, 5, "/data") == 0;
    const std::uint64_t as_is = checked_mul(part.nnz, data ? 4 : part.itemsize);
    shape.float32_bytes = checked_add(shape.float32_bytes, as_is);
    shape.compact_bytes = checked_add(
        shape.compact_bytes, data || !int32_fits ? as_is : checked_mul(part.nnz, 4));
  }
  return shape;
}

Estimate estimate_job(const Report& report, const MemoryEstimate& memory, const JobProfile& profile) {
  Estimate estimate;
  estimate.runtime = memory.runtime;
  estimate.profile = profile;
  estimate.peak_bytes = memory.peak_bytes();
  estimate.required_bytes = required_bytes(profile, estimate.peak_bytes, x_shape(report));
  estimate.n_obs_x_n_vars = checked_mul(report.n_obs, report.n_vars);
  for (const Element* matrix : {report.find("/X"), find_raw_x(report)}) {
    if (const ElementCost* cost = matrix ? memory.find(matrix->path) : nullptr) {
      estimate.x_and_raw_x_nbytes = checked_add(estimate.x_and_raw_x_nbytes, cost->final_bytes);
    }
  }
  return estimate;
}

Sizing size_dataset(const SizeRequest& request) {
  Sizing sizing;
  // The table first: a configuration error should not wait for a large file.
  sizing.table = load_bucket_table(request.buckets_path);
  if (request.profile) {
    auto profile = find_builtin_profile(*request.profile);
    if (!profile) {
      throw_usage("--profile: unknown profile \"" + *request.profile + "\" (built in: " +
                  builtin_profile_names() + ")");
    }
    sizing.table.profile = *profile;
  }
  if (request.runtime && *request.runtime != kModelledRuntime) {
    throw_usage("--runtime: unknown runtime \"" + *request.runtime + "\" (modelled: " +
                kModelledRuntime + ")");
  }
  if (request.min_bucket < 1 || request.min_bucket > sizing.table.buckets.size()) {
    throw_usage("--min-bucket: must be between 1 and " +
                std::to_string(sizing.table.buckets.size()) + " (the buckets in " +
                sizing.table.origin + ")");
  }
  OpenedSource source = open_source(request.location, request.source);
  // Object headers only: the chunk indexes would cost a request per node
  // over HTTP, for stored bytes the estimate does not use.
  ReadOptions read_options;
  read_options.storage = h5::StorageDetail::object_header;
  sizing.report = read_anndata(source, read_options);
  sizing.io = source.bytes->stats();
  sizing.memory = estimate_memory(sizing.report);
  try {
    sizing.estimate = estimate_job(sizing.report, sizing.memory, sizing.table.profile);
  } catch (const std::overflow_error& overflow) {
    throw_invalid(sizing.report.source + ": /: " + overflow.what());
  }
  sizing.choice = choose_bucket(sizing.table, sizing.estimate.required_bytes, request.min_bucket);
  return sizing;
}

}  // namespace h5ad_sizer
