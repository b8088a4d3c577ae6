#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

// What every AWS call of the tool shares, read from the environment the way
// the AWS CLI reads it: credentials, region, endpoint overrides, CA bundle.
namespace h5ad_sizer::io {

using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

// The variable's value, or nullopt when it is unset or empty.
std::optional<std::string> non_empty(const Environment& env, const char* name);

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty for long-term keys
  // When they stop working (temporary credentials), to refresh in time.
  std::optional<std::chrono::system_clock::time_point> expiration;
};

// Finds credentials in this order: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
// (/ AWS_SESSION_TOKEN); the container credentials endpoint of ECS and AWS
// Batch (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI on 169.254.170.2, or
// AWS_CONTAINER_CREDENTIALS_FULL_URI with AWS_CONTAINER_AUTHORIZATION_TOKEN).
// Lambda sets the first three. Returns a function that yields valid
// credentials on every call, fetching again when the current ones expire
// within five minutes; nullopt when the environment offers none. Throws
// Error(input_unreadable) when the endpoint fails.
using CredentialProvider = std::function<AwsCredentials()>;
std::optional<CredentialProvider> find_credentials(const Environment& env);

// AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1.
std::string aws_region(const Environment& env);

// The endpoint override for a service, without a trailing slash:
// AWS_ENDPOINT_URL_<SERVICE_ID> (e.g. "S3", "SFN"), else AWS_ENDPOINT_URL;
// nullopt when neither is set.
std::optional<std::string> endpoint_override(const Environment& env, const std::string& service_id);

// What libcurl signs a request with: "key:secret" for CURLOPT_USERPWD, and
// the session token as a header to sign along.
void apply_credentials(const AwsCredentials& credentials, std::string& user_password,
                       std::vector<std::string>& headers);

// AWS_CA_BUNDLE, the AWS tools' variable for trusting a private CA; "" if unset.
std::string ca_bundle(const Environment& env);

}  // namespace h5ad_sizer::io
