#include "h5ad_sizer/io/step_functions.hpp"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "h5ad_sizer/errors.hpp"
#include "xml_text.hpp"

namespace h5ad_sizer::io {
namespace {

// "com.amazonaws.swf.service.model.v20120810#InvalidToken" -> "InvalidToken";
// the x-amzn-ErrorType header may add ":http://..." after the code.
std::string bare_code(std::string code) {
  if (const auto hash = code.rfind('#'); hash != std::string::npos) code = code.substr(hash + 1);
  if (const auto colon = code.find(':'); colon != std::string::npos) code = code.substr(0, colon);
  return code;
}

bool throttled(const std::string& code) {
  return code == "ThrottlingException" || code == "Throttling" || code == "TooManyRequestsException" ||
         code == "RequestLimitExceeded";
}

}  // namespace

AwsError parse_aws_error(const HttpResponse& response) {
  AwsError error;
  const auto doc = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object()) {
    for (const char* key : {"__type", "code", "Code"}) {
      if (doc.contains(key) && doc[key].is_string()) {
        error.code = bare_code(doc[key].get<std::string>());
        break;
      }
    }
    for (const char* key : {"message", "Message"}) {
      if (doc.contains(key) && doc[key].is_string()) {
        error.message = doc[key].get<std::string>();
        break;
      }
    }
  } else {
    error.code = xml_element(response.body, "Code");
    error.message = xml_element(response.body, "Message");
  }
  if (error.code.empty()) error.code = bare_code(response.header("x-amzn-errortype"));
  if (error.code.empty()) error.code = "HTTP " + std::to_string(response.status);
  return error;
}

std::string truncate_utf8(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

StepFunctionsClient::StepFunctionsClient(const Environment& env, RetryPolicy retry)
    : m_region(aws_region(env)), m_ca_bundle(ca_bundle(env)), m_retry(retry) {
  m_endpoint = endpoint_override(env, "SFN").value_or("https://states." + m_region + ".amazonaws.com");
  auto credentials = find_credentials(env);
  if (!credentials) {
    throw Error(ExitStatus::not_delivered,
                "Step Functions: no AWS credentials to send the result with (set AWS_ACCESS_KEY_ID "
                "and AWS_SECRET_ACCESS_KEY or run with a job role)");
  }
  m_credentials = *credentials;
}

void StepFunctionsClient::send_task_success(const std::string& token, const std::string& output) const {
  const nlohmann::json body = {{"taskToken", token}, {"output", output}};
  call("SendTaskSuccess", body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void StepFunctionsClient::send_task_failure(const std::string& token, const std::string& error,
                                            const std::string& cause) const {
  const nlohmann::json body = {{"taskToken", token},
                               {"error", truncate_utf8(error, kTaskErrorMaxBytes)},
                               {"cause", truncate_utf8(cause, kTaskCauseMaxBytes)}};
  call("SendTaskFailure", body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void StepFunctionsClient::call(const std::string& action, const std::string& body) const {
  const std::string what = "Step Functions " + action;
  std::mt19937 random(std::random_device{}());
  auto backoff = m_retry.first_backoff;
  for (int attempt = 1;; ++attempt) {
    HttpRequest request;
    request.method = "POST";
    request.url = m_endpoint + "/";
    request.body = body;
    request.ca_bundle = m_ca_bundle;
    request.headers = {"Content-Type: application/x-amz-json-1.0",
                       "X-Amz-Target: AWSStepFunctions." + action};
    request.aws_sigv4 = "aws:amz:" + m_region + ":states";
    // Fetched per attempt: container credentials may be renewed meanwhile.
    apply_credentials(m_credentials(), request.user_password, request.headers);

    spdlog::debug("{}: POST {} (attempt {})", what, m_endpoint, attempt);
    const HttpResponse response = http_exchange(request);
    if (response.ok()) return;

    std::string why;
    bool retry = false;
    if (!response.transport_error.empty()) {
      why = response.transport_error;
      retry = response.retryable_transport;
    } else {
      const AwsError error = parse_aws_error(response);
      why = error.code + (error.message.empty() ? "" : ": " + error.message);
      retry = response.status >= 500 || response.status == 429 || throttled(error.code);
    }
    if (!retry || attempt >= m_retry.max_attempts) {
      throw Error(ExitStatus::not_delivered, what + " at " + m_endpoint + ": " + why +
                                                 (retry ? " (gave up after " + std::to_string(attempt) +
                                                              " attempts)"
                                                        : ""));
    }
    std::uniform_int_distribution<long> jitter(0, backoff.count());
    const auto wait = backoff + std::chrono::milliseconds(jitter(random));
    spdlog::debug("{}: {}; retry {} in {} ms", what, why, attempt, wait.count());
    std::this_thread::sleep_for(wait);
    backoff *= 2;
  }
}

}  // namespace h5ad_sizer::io
