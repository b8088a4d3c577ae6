#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "h5ad_sizer/io/http_source.hpp"

namespace h5ad_sizer::io {

// Where an s3://bucket/key object is fetched from, and how requests to it
// are signed. Built from the environment the way the AWS CLI reads it.
struct S3Location {
  std::string bucket;
  std::string key;
};

// Parses "s3://bucket/key". Throws Error(usage_error) for anything else.
S3Location parse_s3_url(const std::string& url);

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty for long-term keys
  // When they stop working (temporary credentials), to refresh in time.
  std::optional<std::chrono::system_clock::time_point> expiration;
};

using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

// Finds credentials in this order: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
// (/ AWS_SESSION_TOKEN); the container credentials endpoint of ECS and AWS
// Batch (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI on 169.254.170.2, or
// AWS_CONTAINER_CREDENTIALS_FULL_URI with AWS_CONTAINER_AUTHORIZATION_TOKEN).
// Returns a function that yields valid credentials on every call, fetching
// again when the current ones expire within five minutes; nullopt when the
// environment offers none. Throws Error(input_unreadable) when the endpoint
// fails.
std::optional<std::function<AwsCredentials()>> find_credentials(const Environment& env);

// The HTTPS URL and options to read `location` with: virtual-hosted style
// on AWS, path style on an endpoint from AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL; region from AWS_REGION or AWS_DEFAULT_REGION (default
// us-east-1); signed with Signature V4 unless `sign` is false
// (--no-sign-request). Throws Error(usage_error) when signing is asked for
// and no credentials are found.
struct S3Request {
  std::string url;
  HttpOptions options;
};
S3Request s3_request(const S3Location& location, bool sign, const Environment& env);

// Options any remote read takes from the environment: AWS_CA_BUNDLE, the
// AWS tools' variable for trusting a private CA.
HttpOptions http_options(const Environment& env);

// Percent-encodes everything but RFC 3986's unreserved characters and '/'.
std::string uri_encode_path(const std::string& path);

}  // namespace h5ad_sizer::io
