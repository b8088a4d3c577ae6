#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer {

// An HDF5 file opened read-only, whatever it lives on. This is the one place
// that decides where the bytes come from.
struct OpenedSource {
  // Declared before `file`, so that it outlives it: HDF5 reads through it
  // until the file is closed.
  std::unique_ptr<io::ByteSource> bytes;
  h5::Handle file;
  std::string display_name;  // what errors and reports call it
  std::uint64_t file_bytes = 0;
};

struct SourceOptions {
  // Sign S3 requests (false: --no-sign-request, for public buckets).
  bool sign_requests = true;
  // Stop reading at this point in time (exit 3, "time limit reached").
  std::optional<io::Deadline> deadline;
  // Let URLs reach link-local addresses (io::HttpOptions).
  bool allow_link_local = false;
};

// `location` with its URL scheme in lower case (HTTPS://, S3:// are the
// same schemes). Throws Error(usage_error) for a scheme other than s3,
// http and https ("ftp://", "file://").
std::string canonical_location(const std::string& location);

// A URL (s3://, http://, https://, or an unsupported one): read over the
// network, or refused.
bool is_remote(const std::string& location);

// What messages call `location`: a URL without its query string and
// credentials, control characters escaped (printable()).
std::string display_name(const std::string& location);

// Opens `location`: s3://BUCKET/KEY (signed with AWS Signature V4, see
// io/s3.hpp), an http:// or https:// URL (read with ranged GETs; a
// presigned URL works as given, its query string never shown), else a local
// path. Throws Error with input_unreadable for a missing, unreadable or
// non-regular file or a failed request, invalid_h5ad for a file that is not
// HDF5 or cannot be opened as such.
OpenedSource open_source(const std::string& location, const SourceOptions& options = {});

// Opens HDF5 from `bytes` (any ByteSource), calling it `name` in messages.
// Throws Error(invalid_h5ad) for bytes that are not an HDF5 file.
OpenedSource open_bytes(std::unique_ptr<io::ByteSource> bytes, const std::string& name);

}  // namespace h5ad_sizer
