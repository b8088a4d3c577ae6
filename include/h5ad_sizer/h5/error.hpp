#pragma once

#include <hdf5.h>

#include <stdexcept>
#include <string>

namespace h5ad_sizer::h5 {

// An HDF5 call failed. The message is "<what we tried>: <HDF5's innermost
// explanation>", taken from the library's error stack, which is then cleared.
// The anndata layer adds the file and element names before it reaches a user.
class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Prepares the library once per process: turns off HDF5's habit of printing
// its error stack to stderr (errors reach the user as exception text
// instead) and registers the filters HDF5 lacks. Idempotent, thread-safe.
void initialize();

// Throws Failure built from the current error stack.
[[noreturn]] void fail(const std::string& what);

// Returns `result` unless it signals failure (a negative value), in which case
// it throws Failure naming `what`.
template <typename T>
T check(T result, const char* what) {
  if (result < 0) fail(what);
  return result;
}

}  // namespace h5ad_sizer::h5
