#pragma once

#include <string>

#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer::cli {

// A command that did not succeed: its exit status and one line saying why.
struct Failure {
  ExitStatus status = ExitStatus::internal_error;
  std::string message;
};

// Classifies the exception being handled; call only inside a catch block.
// Error keeps its status; anything else is an internal error (a bug).
Failure current_failure();

// "h5ad-sizer: error: MESSAGE" (or "internal error") on stderr.
void print_failure(const Failure& failure);

}  // namespace h5ad_sizer::cli
