#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace h5ad_sizer::io {

// One HTTP exchange that is not a ranged read of a file: fetching
// credentials, calling an AWS JSON API, talking to the Lambda Runtime API.
struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent when non-empty or method is POST
  // libcurl's AWS Signature V4 provider ("aws:amz:REGION:SERVICE") and the
  // "key:secret" to sign with; empty for unsigned requests.
  std::string aws_sigv4;
  std::string user_password;
  std::string ca_bundle;
  std::chrono::milliseconds connect_timeout{10'000};
  // Zero: no limit (the Lambda Runtime API's "next" blocks until an event).
  std::chrono::milliseconds timeout{30'000};
};

struct HttpResponse {
  // CURLE_OK's text is empty; otherwise why no answer came (refused,
  // timed out, reset), and `status` is 0.
  std::string transport_error;
  bool retryable_transport = false;  // a failure worth trying again
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  bool ok() const { return transport_error.empty() && status >= 200 && status < 300; }
  // The header's value, or "" when absent.
  std::string header(const std::string& lower_case_name) const;
};

// Performs `request` once. Never throws for HTTP or transport failures (the
// caller decides what is final); throws Error(usage_error) only when
// libcurl cannot be loaded.
HttpResponse http_exchange(const HttpRequest& request);

}  // namespace h5ad_sizer::io
