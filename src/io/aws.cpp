#include "h5ad_sizer/io/aws.hpp"

#include <cstdlib>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/io/http_client.hpp"

namespace h5ad_sizer::io {
namespace {

constexpr const char* kContainerHost = "http://169.254.170.2";
constexpr auto kRefreshMargin = std::chrono::minutes(5);

// "2026-11-29T21:30:00Z" (the endpoint's Expiration)
std::optional<std::chrono::system_clock::time_point> parse_iso8601(const std::string& text) {
  std::tm parts{};
  if (strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &parts) == nullptr) return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

// GETs the container credentials endpoint (ECS task role, AWS Batch job role).
AwsCredentials fetch_container_credentials(const std::string& url,
                                           const std::optional<std::string>& token) {
  HttpRequest request;
  request.url = url;
  request.timeout = std::chrono::milliseconds(5000);
  if (token) request.headers.push_back("Authorization: " + *token);
  const HttpResponse response = http_exchange(request);
  const std::string where = "container credentials endpoint";
  if (!response.transport_error.empty()) throw_unreadable(where + ": " + response.transport_error);
  if (response.status != 200) throw_unreadable(where + ": HTTP " + std::to_string(response.status));
  try {
    const auto doc = nlohmann::json::parse(response.body);
    AwsCredentials credentials;
    credentials.access_key_id = doc.at("AccessKeyId").get<std::string>();
    credentials.secret_access_key = doc.at("SecretAccessKey").get<std::string>();
    credentials.session_token = doc.value("Token", "");
    if (doc.contains("Expiration")) credentials.expiration = parse_iso8601(doc["Expiration"].get<std::string>());
    return credentials;
  } catch (const nlohmann::json::exception&) {
    throw_unreadable(where + ": not the expected JSON (AccessKeyId, SecretAccessKey, Token)");
  }
}

}  // namespace

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::optional<std::string> non_empty(const Environment& env, const char* name) {
  auto value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::optional<CredentialProvider> find_credentials(const Environment& env) {
  auto key = non_empty(env, "AWS_ACCESS_KEY_ID");
  auto secret = non_empty(env, "AWS_SECRET_ACCESS_KEY");
  if (key && secret) {
    AwsCredentials fixed{*key, *secret, non_empty(env, "AWS_SESSION_TOKEN").value_or(""), std::nullopt};
    return [fixed] { return fixed; };
  }
  std::string url;
  if (auto relative = non_empty(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    url = kContainerHost + *relative;
  } else if (auto full = non_empty(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    url = *full;
  } else {
    return std::nullopt;
  }
  const auto token = non_empty(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN");
  auto cached = std::make_shared<std::optional<AwsCredentials>>();
  return [url, token, cached]() {
    const auto now = std::chrono::system_clock::now();
    if (!*cached || ((*cached)->expiration && *(*cached)->expiration - kRefreshMargin <= now)) {
      *cached = fetch_container_credentials(url, token);
    }
    return **cached;
  };
}

std::string aws_region(const Environment& env) {
  return non_empty(env, "AWS_REGION").value_or(non_empty(env, "AWS_DEFAULT_REGION").value_or("us-east-1"));
}

std::optional<std::string> endpoint_override(const Environment& env, const std::string& service_id) {
  const std::string specific = "AWS_ENDPOINT_URL_" + service_id;
  auto endpoint = non_empty(env, specific.c_str());
  if (!endpoint) endpoint = non_empty(env, "AWS_ENDPOINT_URL");
  if (!endpoint) return std::nullopt;
  while (!endpoint->empty() && endpoint->back() == '/') endpoint->pop_back();
  return endpoint;
}

void apply_credentials(const AwsCredentials& credentials, std::string& user_password,
                       std::vector<std::string>& headers) {
  user_password = credentials.access_key_id + ":" + credentials.secret_access_key;
  if (!credentials.session_token.empty()) headers.push_back("x-amz-security-token: " + credentials.session_token);
}

std::string ca_bundle(const Environment& env) { return non_empty(env, "AWS_CA_BUNDLE").value_or(""); }

}  // namespace h5ad_sizer::io
