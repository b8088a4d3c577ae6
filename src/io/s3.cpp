#include "h5ad_sizer/io/s3.hpp"

#include <cctype>
#include <chrono>
#include <string_view>
#include <thread>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/io/http_client.hpp"
#include "h5ad_sizer/io/step_functions.hpp"
#include "xml_text.hpp"

namespace h5ad_sizer::io {

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

HttpOptions http_options(const Environment& env) {
  HttpOptions options;
  options.ca_bundle = ca_bundle(env);
  return options;
}

namespace {

// A bucket's URL without a trailing slash: virtual-hosted style on AWS,
// path style on an endpoint from the environment.
std::string bucket_url(const std::string& bucket, const Environment& env, bool* path_style = nullptr) {
  const auto endpoint = endpoint_override(env, "S3");
  if (path_style) *path_style = endpoint.has_value();
  if (endpoint) return *endpoint + "/" + bucket;
  return "https://" + bucket + ".s3." + aws_region(env) + ".amazonaws.com";
}

// The SHA-256 of an empty payload, which S3 wants signed along with a GET.
constexpr const char* kEmptyPayloadSha256 =
    "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// Options for requests about `what` (an s3:// URL, for the message when
// credentials are missing): signed with Signature V4 unless `sign` is false.
HttpOptions request_options(const std::string& what, bool sign, const Environment& env) {
  HttpOptions options = http_options(env);
  if (!sign) return options;
  auto credentials = find_credentials(env);
  if (!credentials) {
    throw_usage(what +
                ": no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, run with a "
                "container role, or pass --no-sign-request for a public bucket)");
  }
  options.aws_sigv4 = "aws:amz:" + aws_region(env) + ":s3";
  options.credentials = [provider = *credentials](std::string& user_password, std::vector<std::string>& headers) {
    apply_credentials(provider(), user_password, headers);
    headers.push_back(kEmptyPayloadSha256);  // a GET has no payload
  };
  return options;
}

}  // namespace

S3Request s3_request(const S3Location& location, bool sign, const Environment& env) {
  S3Request request;
  request.url = bucket_url(location.bucket, env) + "/" + uri_encode_path(location.key);
  request.options = request_options("s3://" + location.bucket + "/" + location.key, sign, env);
  return request;
}

namespace {

// Query values are encoded whole, '/' included (Signature V4 wants them so).
std::string uri_encode_value(const std::string& value) {
  std::string out;
  for (char ch : uri_encode_path(value)) {
    if (ch == '/') {
      out += "%2F";
    } else {
      out += ch;
    }
  }
  return out;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

constexpr int kListAttempts = 4;
constexpr std::chrono::milliseconds kListFirstBackoff{200};

}  // namespace

bool is_s3_prefix(const std::string& url) { return url.rfind("s3://", 0) == 0 && ends_with(url, "/"); }

S3ListPage parse_list_objects(const std::string& body) {
  S3ListPage page;
  // Each <Contents> found in the raw text, its <Key> unescaped once: a key
  // may hold '<' or '&', which the body carries escaped.
  const std::string open = "<Contents>";
  const std::string close = "</Contents>";
  for (auto start = body.find(open); start != std::string::npos; start = body.find(open, start)) {
    const auto end = body.find(close, start);
    if (end == std::string::npos) break;
    const std::string key = xml_element(std::string_view(body).substr(start, end - start), "Key");
    if (!key.empty()) page.keys.push_back(key);
    start = end + close.size();
  }
  page.truncated = xml_element(body, "IsTruncated") == "true";
  page.next_token = xml_element(body, "NextContinuationToken");
  return page;
}

std::vector<std::string> list_h5ad_objects(const std::string& url, bool sign, const Environment& env) {
  if (!is_s3_prefix(url)) throw_usage(url + ": expected s3://BUCKET/ or s3://BUCKET/PREFIX/");
  const std::string rest = url.substr(5);
  const auto slash = rest.find('/');
  if (slash == 0) throw_usage(url + ": expected s3://BUCKET/PREFIX/");
  const std::string bucket = rest.substr(0, slash);
  const std::string prefix = rest.substr(slash + 1);
  bool path_style = false;
  const std::string list_url = bucket_url(bucket, env, &path_style) + (path_style ? "?" : "/?");
  const HttpOptions options = request_options(url, sign, env);

  std::vector<std::string> urls;
  std::string token;
  for (int page_number = 1;; ++page_number) {
    // Parameters in code-point order, as the signature's canonical query is.
    std::string query;
    if (!token.empty()) query += "continuation-token=" + uri_encode_value(token) + "&";
    query += "list-type=2";
    if (!prefix.empty()) query += "&prefix=" + uri_encode_value(prefix);
    HttpRequest request;
    request.url = list_url + query;
    request.ca_bundle = options.ca_bundle;
    HttpResponse response;
    auto backoff = kListFirstBackoff;
    for (int attempt = 1;; ++attempt) {
      request.headers.clear();
      request.user_password.clear();
      if (options.credentials) {
        request.aws_sigv4 = options.aws_sigv4;
        options.credentials(request.user_password, request.headers);
      }
      response = http_exchange(request);
      const bool retry = response.transport_error.empty() ? response.status >= 500 : response.retryable_transport;
      if (response.ok() || !retry || attempt == kListAttempts) break;
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
    if (!response.ok()) {
      std::string why = response.transport_error;
      if (why.empty()) {
        const AwsError error = parse_aws_error(response);
        why = response.status == 403   ? "access denied (HTTP 403: " + error.code + ")"
              : response.status == 404 ? "not found (HTTP 404: " + error.code + ")"
                                       : "HTTP " + std::to_string(response.status) + ": " + error.code;
      }
      throw_unreadable(url + ": listing page " + std::to_string(page_number) + " failed: " + why);
    }
    const S3ListPage page = parse_list_objects(response.body);
    for (const std::string& key : page.keys) {
      if (ends_with(key, ".h5ad")) urls.push_back("s3://" + bucket + "/" + key);
    }
    if (!page.truncated) break;
    // A truncated page must say where the next starts, and not where this one did.
    if (page.next_token.empty() || page.next_token == token) {
      throw_unreadable(url + ": listing page " + std::to_string(page_number) +
                       " is truncated without a new continuation token");
    }
    token = page.next_token;
  }
  return urls;
}

}  // namespace h5ad_sizer::io
