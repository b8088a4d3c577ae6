#include "h5ad_sizer/io/lambda_runtime_api.hpp"

#include <nlohmann/json.hpp>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/io/http_client.hpp"

namespace h5ad_sizer::io {
namespace {

[[noreturn]] void unreachable(const std::string& what, const HttpResponse& response) {
  const std::string why = !response.transport_error.empty()
                              ? response.transport_error
                              : "HTTP " + std::to_string(response.status) +
                                    (response.body.empty() ? "" : ": " + response.body.substr(0, 200));
  throw Error(ExitStatus::not_delivered, "Lambda Runtime API " + what + ": " + why);
}

std::string error_body(const std::string& error_type, const std::string& message) {
  const nlohmann::json body = {
      {"errorMessage", message}, {"errorType", error_type}, {"stackTrace", nlohmann::json::array()}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

LambdaRuntimeApi::LambdaRuntimeApi(std::string host_port)
    : m_base("http://" + std::move(host_port) + "/2018-06-01/runtime") {}

Invocation LambdaRuntimeApi::next() const {
  HttpRequest request;
  request.url = m_base + "/invocation/next";
  request.timeout = std::chrono::milliseconds(0);  // waits for as long as there is no event
  const HttpResponse response = http_exchange(request);
  if (!response.ok()) unreachable("invocation/next", response);
  Invocation invocation;
  invocation.request_id = response.header("lambda-runtime-aws-request-id");
  if (invocation.request_id.empty()) {
    throw Error(ExitStatus::not_delivered, "Lambda Runtime API invocation/next: no Lambda-Runtime-Aws-Request-Id");
  }
  invocation.event = response.body;
  invocation.trace_id = response.header("lambda-runtime-trace-id");
  const std::string deadline = response.header("lambda-runtime-deadline-ms");
  if (!deadline.empty()) {
    char* end = nullptr;
    const long long ms = std::strtoll(deadline.c_str(), &end, 10);
    if (end != deadline.c_str() && ms > 0) {
      invocation.deadline = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
    }
  }
  return invocation;
}

void LambdaRuntimeApi::respond(const std::string& request_id, const std::string& body) const {
  post("/invocation/" + request_id + "/response", body, "");
}

void LambdaRuntimeApi::fail(const std::string& request_id, const std::string& error_type,
                            const std::string& message) const {
  post("/invocation/" + request_id + "/error", error_body(error_type, message), error_type);
}

void LambdaRuntimeApi::fail_init(const std::string& error_type, const std::string& message) const {
  post("/init/error", error_body(error_type, message), error_type);
}

void LambdaRuntimeApi::post(const std::string& path, const std::string& body,
                            const std::string& error_type) const {
  HttpRequest request;
  request.method = "POST";
  request.url = m_base + path;
  request.body = body;
  request.headers.push_back("Content-Type: application/json");
  if (!error_type.empty()) request.headers.push_back("Lambda-Runtime-Function-Error-Type: " + error_type);
  const HttpResponse response = http_exchange(request);
  if (!response.ok()) unreachable(path.substr(1), response);
}

}  // namespace h5ad_sizer::io
