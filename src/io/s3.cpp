#include "h5ad_sizer/io/s3.hpp"

#include "curl_api.hpp"

#include <cstdlib>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>

#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer::io {
namespace {

constexpr const char* kContainerHost = "http://169.254.170.2";
constexpr auto kRefreshMargin = std::chrono::minutes(5);

std::optional<std::string> non_empty(const Environment& env, const char* name) {
  auto value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::size_t collect(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// "2026-11-29T21:30:00Z" (the endpoint's Expiration)
std::optional<std::chrono::system_clock::time_point> parse_iso8601(const std::string& text) {
  std::tm parts{};
  if (strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &parts) == nullptr) return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&parts));
}

// GETs the container credentials endpoint (ECS task role, AWS Batch job role).
AwsCredentials fetch_container_credentials(const std::string& url,
                                           const std::optional<std::string>& token) {
  const CurlApi& api = curl();
  std::unique_ptr<CURL, decltype(api.easy_cleanup)> handle(api.easy_init(), api.easy_cleanup);
  std::string body;
  curl_slist* headers = nullptr;
  if (token) headers = api.slist_append(headers, ("Authorization: " + *token).c_str());
  api.easy_setopt(handle.get(), CURLOPT_URL, url.c_str());
  api.easy_setopt(handle.get(), CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(handle.get(), CURLOPT_TIMEOUT_MS, 5000L);
  api.easy_setopt(handle.get(), CURLOPT_WRITEFUNCTION, collect);
  api.easy_setopt(handle.get(), CURLOPT_WRITEDATA, &body);
  if (headers) api.easy_setopt(handle.get(), CURLOPT_HTTPHEADER, headers);
  const CURLcode code = api.easy_perform(handle.get());
  api.slist_free_all(headers);
  long status = 0;
  api.easy_getinfo(handle.get(), CURLINFO_RESPONSE_CODE, &status);
  const std::string where = "container credentials endpoint";
  if (code != CURLE_OK) throw_unreadable(where + ": " + api.easy_strerror(code));
  if (status != 200) throw_unreadable(where + ": HTTP " + std::to_string(status));
  try {
    const auto doc = nlohmann::json::parse(body);
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

S3Location parse_s3_url(const std::string& url) {
  const std::string scheme = "s3://";
  if (url.rfind(scheme, 0) != 0) throw_usage(url + ": not an s3:// URL");
  const std::string rest = url.substr(scheme.size());
  const auto slash = rest.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == rest.size()) {
    throw_usage(url + ": expected s3://BUCKET/KEY");
  }
  return {rest.substr(0, slash), rest.substr(slash + 1)};
}

std::string uri_encode_path(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::optional<std::function<AwsCredentials()>> find_credentials(const Environment& env) {
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

HttpOptions http_options(const Environment& env) {
  HttpOptions options;
  if (auto bundle = non_empty(env, "AWS_CA_BUNDLE")) options.ca_bundle = *bundle;
  return options;
}

S3Request s3_request(const S3Location& location, bool sign, const Environment& env) {
  const std::string region =
      non_empty(env, "AWS_REGION").value_or(non_empty(env, "AWS_DEFAULT_REGION").value_or("us-east-1"));
  S3Request request;
  request.options = http_options(env);
  const std::string key = uri_encode_path(location.key);
  if (auto endpoint = non_empty(env, "AWS_ENDPOINT_URL_S3").value_or(non_empty(env, "AWS_ENDPOINT_URL").value_or(""));
      !endpoint.empty()) {
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    request.url = endpoint + "/" + location.bucket + "/" + key;  // path style
  } else {
    request.url = "https://" + location.bucket + ".s3." + region + ".amazonaws.com/" + key;
  }
  if (!sign) return request;

  auto credentials = find_credentials(env);
  if (!credentials) {
    throw_usage("s3://" + location.bucket + "/" + location.key +
                ": no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, run with a "
                "container role, or pass --no-sign-request for a public bucket)");
  }
  request.options.aws_sigv4 = "aws:amz:" + region + ":s3";
  request.options.credentials = [provider = *credentials](std::string& user_password,
                                                          std::vector<std::string>& headers) {
    const AwsCredentials current = provider();
    user_password = current.access_key_id + ":" + current.secret_access_key;
    // S3 wants the payload hash signed; a GET has none.
    headers.push_back("x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    if (!current.session_token.empty()) headers.push_back("x-amz-security-token: " + current.session_token);
  };
  return request;
}

}  // namespace h5ad_sizer::io
