#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer {

void throw_usage(const std::string& message) { throw Error(ExitStatus::usage_error, message); }
void throw_unreadable(const std::string& message) {
  throw Error(ExitStatus::input_unreadable, message);
}
void throw_invalid(const std::string& message) { throw Error(ExitStatus::invalid_h5ad, message); }

}  // namespace h5ad_sizer
