#include "h5ad_sizer/h5/error.hpp"

#include "h5ad_sizer/h5/lzf_filter.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"

#include <mutex>

namespace h5ad_sizer::h5 {
namespace {

// Collects the innermost frame's description: it is the one that says what
// went wrong ("bad symbol table node signature"), the outer ones only say
// which API call was running.
herr_t keep_innermost(unsigned depth, const H5E_error2_t* frame, void* out) {
  if (depth == 0 && frame->desc != nullptr) *static_cast<std::string*>(out) = frame->desc;
  return 0;
}

std::string take_error_stack() {
  std::string innermost;
  hid_t stack = H5Eget_current_stack();  // a copy; also clears the live stack
  if (stack < 0) return innermost;
  H5Ewalk2(stack, H5E_WALK_UPWARD, keep_innermost, &innermost);
  H5Eclose_stack(stack);
  return innermost;
}

}  // namespace

void initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    register_lzf_filter();
  });
}

void fail(const std::string& what) {
  std::string detail = take_error_stack();
  // A source read that failed under this call explains it better (and may
  // carry another exit status, such as "access denied").
  if (std::exception_ptr source_error = take_pending_source_error()) {
    std::rethrow_exception(source_error);
  }
  throw Failure(detail.empty() ? what : what + ": " + detail);
}

}  // namespace h5ad_sizer::h5
