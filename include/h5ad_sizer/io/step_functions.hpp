#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "h5ad_sizer/io/aws.hpp"
#include "h5ad_sizer/io/http_client.hpp"

// Hands a result to a Step Functions task that waits for it: the callback of
// `batch:submitJob.sync` with TASK_TOKEN in the job's environment.
namespace h5ad_sizer::io {

// Step Functions' limits on what a callback carries.
constexpr std::size_t kTaskOutputMaxBytes = 262'144;  // SendTaskSuccess.output
constexpr std::size_t kTaskCauseMaxBytes = 32'768;    // SendTaskFailure.cause
constexpr std::size_t kTaskErrorMaxBytes = 256;       // SendTaskFailure.error

// An AWS JSON-protocol error: the code a caller tests ("InvalidToken") and
// the service's message. Bodies come as JSON ({"__type": "...#Code",
// "message": ...}) or, from some front ends and emulators, as XML
// (<Error><Code>...</Code><Message>...</Message>).
struct AwsError {
  std::string code;
  std::string message;
};
AwsError parse_aws_error(const HttpResponse& response);

struct RetryPolicy {
  int max_attempts = 5;
  std::chrono::milliseconds first_backoff{200};  // doubled each retry, with jitter
};

class StepFunctionsClient {
 public:
  // The endpoint is AWS_ENDPOINT_URL_SFN, else AWS_ENDPOINT_URL, else
  // https://states.REGION.amazonaws.com/; credentials come from the same
  // chain as S3 reads (environment keys, container endpoint). Throws
  // Error(not_delivered) when there are no credentials.
  explicit StepFunctionsClient(const Environment& env, RetryPolicy retry = {});

  // Each retries 5xx answers, throttling and transport failures with
  // backoff; InvalidToken, TaskDoesNotExist, TaskTimedOut and every other
  // 4xx are final. Throws Error(not_delivered) naming the API and the code.
  void send_task_success(const std::string& token, const std::string& output) const;
  void send_task_failure(const std::string& token, const std::string& error,
                         const std::string& cause) const;

  const std::string& endpoint() const { return m_endpoint; }

 private:
  void call(const std::string& action, const std::string& body) const;

  std::string m_endpoint;
  std::string m_region;
  std::string m_ca_bundle;
  CredentialProvider m_credentials;
  RetryPolicy m_retry;
};

// `text` cut to at most `max_bytes` without splitting a UTF-8 sequence.
std::string truncate_utf8(const std::string& text, std::size_t max_bytes);

}  // namespace h5ad_sizer::io
