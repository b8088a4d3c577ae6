#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/buckets/plan.hpp"

// What `check` compares a corpus against: each dataset's bucket and
// required memory as `plan --write-expect` recorded them, or the error it
// gave. The file is meant to be committed beside the fixtures it names.
namespace h5ad_sizer {

struct Expected {
  std::string bucket;            // bucket name, when it was sized
  std::uint64_t required_bytes = 0;
  std::string error;             // error name ("H5adSizer.InvalidFile"), when it was not
};

struct Expectation {
  std::string origin;                        // the file it was read from
  std::map<std::string, Expected> datasets;  // by source, as `size` names it
};

// Parses what `plan --write-expect` writes (render/check_report.hpp):
//   {"h5ad_sizer_expect": 1, "datasets": {"SOURCE": {"bucket": NAME, "required_bytes": N}
//                                         | {"error": NAME}, ...}}
// Throws Error(usage_error) naming `origin` and the field.
Expectation parse_expectation(const std::string& text, const std::string& origin);

// One dataset's comparison.
struct CheckResult {
  enum class Kind {
    same,
    bucket_moved,    // sized, in another bucket
    required_moved,  // same bucket, required memory beyond the tolerance
    failed,          // expected sized (or another error), now an error
    recovered,       // expected an error, now sized
    appeared,        // among the inputs, not in the expectation
    went,            // in the expectation, not among the inputs
  };
  std::string source;
  Kind kind = Kind::same;
  Expected expected;  // what the expectation says (not for `appeared`)
  Expected actual;    // what sizing gave now (not for `went`)
  std::string message;  // the error's message now, when it failed
};

// Every dataset of either side, in source order. With a tolerance (a
// fraction: 0.1 for 10 %), a dataset whose required memory moved by more
// than that differs even in the same bucket.
std::vector<CheckResult> compare_expectation(const Expectation& expected, const BucketTable& table,
                                             const std::vector<PlanOutcome>& outcomes,
                                             std::optional<double> tolerance);

}  // namespace h5ad_sizer
