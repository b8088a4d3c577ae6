#pragma once

#include <stdexcept>
#include <string>

#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer {

// Exit statuses are part of the command-line contract: state machines branch
// on them. Never renumber; only add.
enum class ExitStatus : int {
  success = 0,
  internal_error = 1,   // a bug or an unexpected library failure
  usage_error = 2,      // bad flags or a bad bucket table
  input_unreadable = 3, // missing, permission denied, a directory, remote 403/404
  invalid_h5ad = 4,     // not HDF5, not AnnData, truncated or inconsistent
  overflow = 5,         // the estimate exceeds the largest bucket under --strict
  not_delivered = 6,    // the result could not be handed to Step Functions or the Lambda Runtime API
  differences = 7,      // `check`: datasets moved bucket, changed beyond the tolerance, appeared or went
};

// The error name a state machine's Retry and Catch match, one per exit
// status ("H5adSizer.InvalidFile"): SendTaskFailure's `error` and a Lambda
// invocation's `errorType`. Part of the contract like the statuses.
const char* error_name(ExitStatus status);

// The one exception type the tool lets reach `main`. Its message is a single
// line that already names the file and the element it concerns; control
// characters and bytes that are not UTF-8 in it are escaped (printable()),
// whatever a file or URL put into it.
class Error : public std::runtime_error {
 public:
  Error(ExitStatus status, const std::string& message)
      : std::runtime_error(printable(message)), m_status(status) {}
  ExitStatus status() const { return m_status; }

 private:
  ExitStatus m_status;
};

[[noreturn]] void throw_usage(const std::string& message);
[[noreturn]] void throw_unreadable(const std::string& message);
[[noreturn]] void throw_invalid(const std::string& message);

}  // namespace h5ad_sizer
