#pragma once

#include <chrono>
#include <optional>
#include <string>

// The AWS Lambda Runtime API (version 2018-06-01) that a custom runtime
// polls: the function's process asks for the next event, then posts its
// response or error. AWS_LAMBDA_RUNTIME_API names its host:port.
namespace h5ad_sizer::io {

struct Invocation {
  std::string request_id;  // Lambda-Runtime-Aws-Request-Id
  std::string event;       // the body: the event as the caller sent it
  // Lambda-Runtime-Deadline-Ms: when Lambda stops the invocation.
  std::optional<std::chrono::system_clock::time_point> deadline;
  std::string trace_id;    // Lambda-Runtime-Trace-Id, for _X_AMZN_TRACE_ID
};

class LambdaRuntimeApi {
 public:
  explicit LambdaRuntimeApi(std::string host_port);

  // Blocks until Lambda hands over the next event. Every method throws
  // Error(not_delivered) when the Runtime API cannot be reached or refuses.
  Invocation next() const;
  void respond(const std::string& request_id, const std::string& body) const;
  void fail(const std::string& request_id, const std::string& error_type, const std::string& message) const;
  // Initialisation failed (a bad configuration): Lambda reports it and ends
  // the process.
  void fail_init(const std::string& error_type, const std::string& message) const;

 private:
  void post(const std::string& path, const std::string& body, const std::string& error_type) const;

  std::string m_base;  // http://HOST:PORT/2018-06-01/runtime
};

}  // namespace h5ad_sizer::io
