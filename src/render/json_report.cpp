#include "h5ad_sizer/render/json_report.hpp"

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer {
namespace {

using nlohmann::ordered_json;

ordered_json element_json(const ElementCost& cost, bool tree) {
  static const Element kNoObject;  // a bracketed cost: no HDF5 object behind it
  const Element& element = cost.element ? *cost.element : kNoObject;
  ordered_json out;
  // Names come from the file: escaped like every name we print.
  out["path"] = printable(cost.path);
  out["encoding"] = element.encoding;
  out["dtype"] = element.dtype.empty() ? ordered_json(nullptr) : ordered_json(element.dtype);
  out["shape"] = element.shape;
  out["nnz"] = element.nnz;
  out["stored_bytes"] = element.stored_bytes;
  out["stored_bytes_exact"] = element.stored_bytes_exact;
  out["loaded_bytes"] = cost.final_bytes;
  out["transient_bytes"] = cost.python_transient_bytes;
  out["io_transient_bytes"] = cost.io_transient_bytes;
  out["buffer_transient_bytes"] = cost.buffer_transient_bytes;
  out["temporaries_bytes"] = cost.python_temporaries_bytes;
  out["held_bytes"] = cost.python_held_bytes;
  if (!element.note.empty()) out["note"] = element.note;
  if (tree && !cost.children.empty()) {
    ordered_json children = ordered_json::array();
    for (const ElementCost& child : cost.children) children.push_back(element_json(child, tree));
    out["children"] = std::move(children);
  }
  return out;
}

ordered_json matrix_json(const Element* matrix, const MemoryEstimate& memory, bool absent_as_null) {
  if (matrix == nullptr) {
    if (absent_as_null) return nullptr;
    return {{"encoding", "none"}, {"dtype", nullptr}, {"shape", nullptr}, {"nnz", 0},
            {"stored_bytes", 0}, {"stored_bytes_exact", true}, {"loaded_bytes", 0}};
  }
  return {{"encoding", matrix->encoding},
          {"dtype", matrix->dtype.empty() ? ordered_json(nullptr) : ordered_json(matrix->dtype)},
          {"shape", matrix->shape},
          {"nnz", matrix->nnz},
          {"stored_bytes", matrix->stored_bytes},
          {"stored_bytes_exact", matrix->stored_bytes_exact},
          {"loaded_bytes", memory.find(matrix->path)->final_bytes}};
}

ordered_json bucket_json(const BucketTable& table, std::size_t index) {
  const Bucket& bucket = table.buckets[index];
  ordered_json out = {{"index", index + 1},
                      {"name", bucket.name},
                      {"job_definition", bucket.job_definition},
                      {"vcpus", bucket.vcpus},
                      {"memory_mib", bucket.memory_mib}};
  if (bucket.price_per_hour) out["price_per_hour"] = *bucket.price_per_hour;
  return out;
}

ordered_json profile_json(const JobProfile& profile) {
  return {{"name", profile.name},
          {"multiplier", profile.multiplier},
          {"sparse_x_copies", profile.sparse_x_copies},
          {"dense_x_copies", profile.dense_x_copies},
          {"overhead_mib", profile.overhead_bytes / kMiB}};
}

}  // namespace

ordered_json dataset_json(const Report& report, const MemoryEstimate& memory, bool tree) {
  ordered_json out;
  out["source"] = report.source;
  out["file_bytes"] = report.file_bytes;
  out["layout"] = layout_name(report.layout);
  out["n_obs"] = report.n_obs;
  out["n_vars"] = report.n_vars;
  out["X"] = matrix_json(report.find("/X"), memory, /*absent_as_null=*/false);
  out["raw_X"] = matrix_json(report.raw_x(), memory, /*absent_as_null=*/true);
  ordered_json elements = ordered_json::array();
  for (const ElementCost& element : memory.elements) elements.push_back(element_json(element, tree));
  out["elements"] = std::move(elements);
  ordered_json keys = ordered_json::object();
  for (const auto& [mapping, names] : report.keys) {
    ordered_json list = ordered_json::array();
    for (const std::string& name : names) list.push_back(printable(name));
    keys[mapping] = std::move(list);
  }
  out["keys"] = std::move(keys);
  out["stored_total_bytes"] = report.stored_total();
  out["stored_bytes_exact"] = report.stored_bytes_exact();
  out["unattributed_bytes"] = report.unattributed_bytes();
  // How the peak is made up: final + the Python temporaries at the peak +
  // the largest transient of each HDF5 pool + the read overhead.
  const MemoryEstimate::PythonPeak python = memory.python_peak();
  const ElementCost* io_peak = memory.io_peak();
  const ElementCost* buffer_peak = memory.buffer_peak();
  auto path_of = [](const ElementCost* e) { return e ? ordered_json(printable(e->path)) : ordered_json(nullptr); };
  out["memory"] = {{"final_bytes", memory.final_bytes()},
                   {"peak_transient_bytes", python.bytes},
                   {"peak_element", path_of(python.element)},
                   {"peak_held_from_element", path_of(python.held_from)},
                   {"io_transient_bytes", io_peak ? io_peak->io_transient_bytes : 0},
                   {"io_peak_element", path_of(io_peak)},
                   {"buffer_transient_bytes", buffer_peak ? buffer_peak->buffer_transient_bytes : 0},
                   {"buffer_peak_element", path_of(buffer_peak)},
                   {"read_overhead_bytes", memory.read_overhead_bytes},
                   {"loaded_bytes", memory.peak_bytes()},
                   {"after_read_bytes", memory.after_read_bytes()},
                   {"runtime", memory.runtime.name}};
  return out;
}

ordered_json sizing_json(const Sizing& sizing, bool with_io) {
  const auto& buckets = sizing.table.buckets;
  const std::size_t chosen = sizing.choice.index;
  const Bucket& bucket = buckets[chosen];
  ordered_json out;
  out["job_definition"] = bucket.job_definition;
  ordered_json chosen_json = bucket_json(sizing.table, chosen);
  chosen_json.erase("job_definition");
  out["bucket"] = std::move(chosen_json);
  out["next_job_definition"] = chosen + 1 < buckets.size()
                                   ? ordered_json(buckets[chosen + 1].job_definition)
                                   : ordered_json(nullptr);
  out["overflow"] = sizing.choice.overflow;
  // Ready for "ContainerOverrides.$" when one job definition is parameterized
  // instead: AWS Batch wants these values as strings.
  out["container_overrides"] = {
      {"ResourceRequirements",
       {{{"Type", "VCPU"}, {"Value", std::to_string(bucket.vcpus)}},
        {{"Type", "MEMORY"}, {"Value", std::to_string(bucket.memory_mib)}}}}};
  const Estimate& estimate = sizing.estimate;
  out["estimate"] = {{"loaded_bytes", estimate.peak_bytes},
                     {"required_bytes", estimate.required_bytes},
                     {"profile", estimate.profile.name},
                     {"profile_detail", profile_json(estimate.profile)},
                     {"baselines",
                      {{"n_obs_x_n_vars", estimate.n_obs_x_n_vars},
                       {"x_and_raw_x_nbytes", estimate.x_and_raw_x_nbytes}}},
                     {"runtime", estimate.runtime.name},
                     {"runtime_detail",
                      {{"name", estimate.runtime.name},
                       {"measured_with", estimate.runtime.measured_with},
                       {"interpreter_mib", estimate.runtime.interpreter_bytes / kMiB}}}};
  out["bucket_table"] = sizing.table.origin;
  out["dataset"] = dataset_json(sizing.report, sizing.memory, /*tree=*/false);
  if (with_io) {
    out["io"] = {{"requests", sizing.io.requests},
                 {"bytes_read", sizing.io.bytes_read},
                 {"seconds", sizing.io.seconds},
                 {"round_trips", sizing.io.round_trips},
                 {"bytes_wanted", sizing.io.bytes_wanted}};
  }
  return out;
}

ordered_json bucket_table_json(const BucketTable& table) {
  ordered_json buckets = ordered_json::array();
  for (std::size_t i = 0; i < table.buckets.size(); ++i) {
    ordered_json bucket = bucket_json(table, i);
    bucket.erase("index");
    buckets.push_back(std::move(bucket));
  }
  ordered_json out = {{"bucket_table", table.origin}, {"profile", profile_json(table.profile)}};
  if (table.runtime) out["runtime"] = *table.runtime;
  out["buckets"] = std::move(buckets);
  return out;
}

}  // namespace h5ad_sizer
