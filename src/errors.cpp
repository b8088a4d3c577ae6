#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer {

const char* error_name(ExitStatus status) {
  switch (status) {
    case ExitStatus::success: return "H5adSizer.Success";
    case ExitStatus::usage_error: return "H5adSizer.Usage";
    case ExitStatus::input_unreadable: return "H5adSizer.Unreadable";
    case ExitStatus::invalid_h5ad: return "H5adSizer.InvalidFile";
    case ExitStatus::overflow: return "H5adSizer.Overflow";
    case ExitStatus::not_delivered: return "H5adSizer.NotDelivered";
    case ExitStatus::differences: return "H5adSizer.Differences";
    case ExitStatus::internal_error: break;
  }
  return "H5adSizer.Internal";
}

void throw_usage(const std::string& message) { throw Error(ExitStatus::usage_error, message); }
void throw_unreadable(const std::string& message) {
  throw Error(ExitStatus::input_unreadable, message);
}
void throw_invalid(const std::string& message) { throw Error(ExitStatus::invalid_h5ad, message); }

}  // namespace h5ad_sizer
