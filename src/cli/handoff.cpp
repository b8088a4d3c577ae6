#include "cli/handoff.hpp"

#include <spdlog/spdlog.h>

#include "h5ad_sizer/io/step_functions.hpp"

namespace h5ad_sizer::cli {
namespace {

std::string compact(const nlohmann::ordered_json& document) {
  // Names from a file may not be UTF-8; JSON must be.
  return document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::string task_output(nlohmann::ordered_json document) {
  std::string output = compact(document);
  const std::size_t full_bytes = output.size();
  // What can go, largest first: per-element detail, then the key lists
  // (thousands of uns entries). The decision fields stay.
  for (const char* field : {"elements", "keys"}) {
    if (output.size() <= io::kTaskOutputMaxBytes) break;
    auto& dataset = document["dataset"];
    dataset.erase(field);
    dataset[std::string(field) + "_omitted"] = true;
    output = compact(document);
    spdlog::warn("the result is {} bytes, more than Step Functions takes ({}): sent without dataset.{}",
                 full_bytes, io::kTaskOutputMaxBytes, field);
  }
  return output;
}

void deliver_success(const std::string& task_token, const nlohmann::ordered_json& document) {
  const io::StepFunctionsClient client(io::process_environment());
  client.send_task_success(task_token, task_output(document));
  spdlog::debug("result sent to Step Functions at {}", client.endpoint());
}

void deliver_failure(const std::string& task_token, ExitStatus status, const std::string& message) {
  const io::StepFunctionsClient client(io::process_environment());
  client.send_task_failure(task_token, error_name(status), message);
  spdlog::debug("failure {} sent to Step Functions at {}", error_name(status), client.endpoint());
}

}  // namespace h5ad_sizer::cli
