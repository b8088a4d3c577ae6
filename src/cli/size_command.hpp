#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer::cli {

// What `size` is asked, from flags or from a Lambda event.
struct SizeOptions {
  std::string path;
  std::optional<std::string> buckets;
  std::optional<std::string> profile;
  std::optional<std::string> runtime;
  std::size_t min_bucket = 1;
  bool strict = false;
  bool stats = false;
  bool no_sign_request = false;
  std::optional<io::Deadline> deadline;
};

// Sizes the dataset and returns the `size` document. A dataset larger than
// every bucket is a warning on stderr, or Error(overflow) with `strict`.
// Throws Error.
nlohmann::ordered_json size_document(const SizeOptions& options);

}  // namespace h5ad_sizer::cli
