#pragma once

#include <string>

#include "h5ad_sizer/io/aws.hpp"
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
