#include "cli/failure.hpp"

#include <exception>
#include <iostream>

namespace h5ad_sizer::cli {

Failure current_failure() {
  try {
    throw;
  } catch (const Error& error) {
    return {error.status(), error.what()};
  } catch (const std::exception& error) {
    return {ExitStatus::internal_error, error.what()};
  } catch (...) {
    return {ExitStatus::internal_error, "unknown exception"};
  }
}

void print_failure(const Failure& failure) {
  const bool bug = failure.status == ExitStatus::internal_error;
  std::cerr << (bug ? "h5ad-sizer: internal error: " : "h5ad-sizer: error: ") << failure.message << '\n';
}

}  // namespace h5ad_sizer::cli
