#include "h5ad_sizer/estimate/job.hpp"

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {

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
  estimate.after_read_bytes = memory.after_read_bytes();
  estimate.required_bytes = required_bytes(profile, estimate.peak_bytes, memory.job_base_bytes(), x_shape(report));
  estimate.n_obs_x_n_vars = checked_mul(report.n_obs, report.n_vars);
  for (const Element* matrix : {report.find("/X"), report.raw_x()}) {
    if (const ElementCost* cost = matrix ? memory.find(matrix->path) : nullptr) {
      estimate.x_and_raw_x_nbytes = checked_add(estimate.x_and_raw_x_nbytes, cost->final_bytes);
    }
  }
  return estimate;
}

}  // namespace h5ad_sizer
