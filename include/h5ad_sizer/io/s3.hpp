#pragma once

#include <string>
#include <vector>

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

// A URL that names a prefix to list rather than an object: "s3://BUCKET/"
// or "s3://BUCKET/PREFIX/".
bool is_s3_prefix(const std::string& url);

// One page of a ListObjectsV2 answer.
struct S3ListPage {
  std::vector<std::string> keys;
  bool truncated = false;
  std::string next_token;  // NextContinuationToken, when truncated
};
S3ListPage parse_list_objects(const std::string& body);

// Every object under the prefix `url` names whose key ends in ".h5ad", as
// s3:// URLs in key order: ListObjectsV2, page after page (S3 gives 1000
// keys a page), from the same endpoint, region and credentials as reads.
// Throws Error(input_unreadable) naming the prefix when a page cannot be
// had (after retrying 5xx answers and transport failures 3 times), and
// Error(usage_error) as s3_request does.
std::vector<std::string> list_h5ad_objects(const std::string& url, bool sign, const Environment& env);

}  // namespace h5ad_sizer::io
