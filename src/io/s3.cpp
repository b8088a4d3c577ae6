#include "h5ad_sizer/io/s3.hpp"

#include <cctype>

#include "h5ad_sizer/errors.hpp"

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

S3Request s3_request(const S3Location& location, bool sign, const Environment& env) {
  const std::string region = aws_region(env);
  S3Request request;
  request.options = http_options(env);
  const std::string key = uri_encode_path(location.key);
  if (auto endpoint = endpoint_override(env, "S3")) {
    request.url = *endpoint + "/" + location.bucket + "/" + key;  // path style
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
    apply_credentials(provider(), user_password, headers);
    // S3 wants the payload hash signed; a GET has none.
    headers.push_back("x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  };
  return request;
}

}  // namespace h5ad_sizer::io
