#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer::io {

struct HttpOptions {
  // libcurl's AWS Signature V4 provider ("aws:amz:REGION:s3"); empty for
  // unsigned requests. Before each signed request `credentials` gives the
  // "key:secret" to sign with and any headers to sign along (the session
  // token), so that expiring credentials can be renewed between requests.
  std::string aws_sigv4;
  std::function<void(std::string& user_password, std::vector<std::string>& headers)> credentials;
  // A CA bundle to trust (for servers with private certificates).
  std::string ca_bundle;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{60'000};
  // No request, retry or backoff runs past it: each request's timeout is
  // cut to the time left ("time limit reached", exit 3).
  std::optional<Deadline> deadline;
  // Refuse connections to 169.254.0.0/16, fe80::/10 and fd00:ec2::254
  // unless allowed: a URL from a Lambda event or a manifest must not read
  // instance metadata or container credentials.
  bool allow_link_local = false;
  // Below this many bytes a second for low_speed_time, a request is given
  // up on (and retried within the deadline).
  long low_speed_bytes_per_second = 1024;
  std::chrono::seconds low_speed_time{10};
  int max_attempts = 5;                              // per request, for retryable failures
  std::chrono::milliseconds first_backoff{200};      // doubled each retry, with jitter
  std::size_t block_bytes = 64 * 1024;               // cache granule
  std::size_t first_read_bytes = 256 * 1024;         // the first request (superblock, root)
  std::size_t miss_lookahead_bytes = 64 * 1024;      // fetched past the end of a missed read, at least
  // A miss fetches a window around itself; it doubles after a fetch whose
  // extra blocks were read, up to the maximum (docs/remote.md has how these
  // were chosen).
  std::size_t initial_window_bytes = 512 * 1024;
  std::size_t max_window_bytes = 4 * 1024 * 1024;
  // The block cache's bound (the read in progress may pass it): the
  // metadata of the files measured in docs/remote.md takes at most 22 MiB.
  std::size_t max_cache_bytes = 32 * 1024 * 1024;
  // prefetch(): requests in flight at once, and the largest hole between
  // wanted blocks that one request reads through rather than split.
  std::size_t max_concurrent_requests = 16;
  std::size_t prefetch_gap_bytes = 1024 * 1024;
};

// A file behind HTTP(S) read with ranged GETs. It never sends HEAD (a
// presigned GET URL refuses it): the first GET's Content-Range gives the
// size. Reads go through a block cache; a missed read brings a window of
// blocks around it in one request, a window that grows while what it brings
// is read (metadata clustered together, a sequential scan) and shrinks when
// not. prefetch() fetches many ranges at once, on concurrent connections
// (h5::MetadataPrefetch feeds it a file's group structure). Retries 5xx, 429,
// timeouts and resets with exponential backoff and jitter; 403 and 404 are
// final. A server that ignores Range is refused, never downloaded.
//
// `url` is what is requested; `display_name` what errors call it (without
// secrets). Throws Error(input_unreadable) for any HTTP failure.
std::unique_ptr<ByteSource> open_http(const std::string& url, const std::string& display_name,
                                      const HttpOptions& options = {});

// `url` with its query string (a presigned URL's signature) and its
// userinfo (user:password@) replaced by <redacted>.
std::string redact_url(const std::string& url);

}  // namespace h5ad_sizer::io
