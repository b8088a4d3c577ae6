#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "h5ad_sizer/errors.hpp"

// Handing the result to the Step Functions task that started the Batch job
// (`batch:submitJob.sync` with TASK_TOKEN in the environment): stdout of a
// Batch job never reaches the state machine, SendTaskSuccess does.
namespace h5ad_sizer::cli {

// The `size` document as SendTaskSuccess may carry it: compact JSON of at
// most 262,144 bytes. A larger one loses dataset.elements (then
// dataset.keys), each replaced by "elements_omitted"/"keys_omitted": true,
// and says so on stderr.
std::string task_output(nlohmann::ordered_json document);

// Sends the result, or the failure as error_name(status) with `message` as
// the cause. Throws Error(not_delivered) when Step Functions cannot be
// reached or refuses (InvalidToken, TaskTimedOut, ...).
void deliver_success(const std::string& task_token, const nlohmann::ordered_json& document);
void deliver_failure(const std::string& task_token, ExitStatus status, const std::string& message);

}  // namespace h5ad_sizer::cli
