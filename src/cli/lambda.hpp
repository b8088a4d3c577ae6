#pragma once

#include <string>

#include "cli/size_command.hpp"

// `h5ad-sizer lambda`: the same binary as a container-image Lambda function.
// It implements the Lambda Runtime API loop itself (no runtime interface
// client library): Step Functions' `lambda:invoke` gets the `size` document
// straight back, with no Batch job to schedule and no callback.
namespace h5ad_sizer::cli {

// An event {"path": "s3://...", "profile": "...", "min_bucket": N,
// "runtime": "...", "strict": false} as SizeOptions; only `path` is
// required. Throws Error(usage_error) naming the field for anything else,
// unknown fields included (a typo must not silently size differently).
SizeOptions parse_event(const std::string& event);

// Serves invocations until the Runtime API goes away. The bucket table is
// checked once at start (a bad one is reported as the init error). Each
// invocation stops reading 500 ms before its deadline, so that a timeout is
// still answered with an error of ours. Returns the exit status; throws
// Error(not_delivered) when the Runtime API cannot be reached.
int run_lambda();

}  // namespace h5ad_sizer::cli
