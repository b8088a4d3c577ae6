#pragma once

#include <nlohmann/json.hpp>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "h5ad_sizer/sizing.hpp"

namespace h5ad_sizer {

// The `size` document: the contract Step Functions states read
// ($.result.job_definition). Fields may be added; none may change meaning.
// With `with_io`, also "io": what reading the file cost (`--stats`).
nlohmann::ordered_json sizing_json(const Sizing& sizing, bool with_io = false);

// The `dataset` part of it; with `tree`, every element's children too
// (`inspect --json`).
nlohmann::ordered_json dataset_json(const Report& report, const MemoryEstimate& memory, bool tree);

// The bucket table as `buckets` prints it (the bucket-file format itself).
nlohmann::ordered_json bucket_table_json(const BucketTable& table);

}  // namespace h5ad_sizer
