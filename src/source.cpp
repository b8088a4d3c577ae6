#include "h5ad_sizer/source.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "h5ad_sizer/io/http_source.hpp"
#include "h5ad_sizer/io/s3.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer {
namespace {

// Classifies problems HDF5 would only report as "unable to open file", so the
// user learns whether to fix a path, a permission or the file itself.
void require_readable_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw_unreadable(path + ": cannot open: " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) throw_unreadable(path + ": is a directory, not an .h5ad file");
  if (!S_ISREG(info.st_mode)) throw_unreadable(path + ": not a regular file");
  if (::access(path.c_str(), R_OK) != 0) {
    throw_unreadable(path + ": cannot open: " + std::strerror(errno));
  }
}

// HDF5's signature sits at byte 0 or, after a user block, at 512, 1024, ...
bool has_hdf5_signature(io::ByteSource& bytes) {
  static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  const std::uint64_t size = bytes.size();
  for (std::uint64_t offset = 0; offset + 8 <= size && offset <= (1u << 20);
       offset = offset == 0 ? 512 : offset * 2) {
    unsigned char head[8];
    bytes.read(offset, sizeof head, head);
    if (std::memcmp(head, kSignature, sizeof head) == 0) return true;
  }
  return false;
}

bool is_http_url(const std::string& location) {
  return location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0;
}

// The length of `location`'s URL scheme ("s3" in s3://...), or 0 for a path.
std::size_t scheme_length(const std::string& location) {
  const auto end = location.find("://");
  if (end == std::string::npos || end == 0) return 0;
  if (!std::isalpha(static_cast<unsigned char>(location[0]))) return 0;
  for (std::size_t i = 1; i < end; ++i) {
    const auto c = static_cast<unsigned char>(location[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return 0;
  }
  return end;
}

// HDF5's reason for refusing to open a file with the HDF5 signature, said
// so that a person can act on it.
std::string open_failure(const std::string& why, std::uint64_t file_bytes) {
  // "truncated file: eof = 4096, sblock->base_addr = 0, stored_eof = 176496"
  auto number_after = [&why](const char* label) -> std::optional<std::string> {
    const auto at = why.find(label);
    if (at == std::string::npos) return std::nullopt;
    const auto start = at + std::strlen(label);
    const auto end = why.find_first_not_of("0123456789", start);
    if (end == start) return std::nullopt;
    return why.substr(start, end == std::string::npos ? std::string::npos : end - start);
  };
  if (why.find("truncated file") != std::string::npos) {
    const auto present = number_after("eof = ");
    const auto expected = number_after("stored_eof = ");
    if (present && expected) return "truncated: " + *present + " of " + *expected + " bytes present";
  }
  // The smallest superblock (version 0, 8-byte addresses) takes 96 bytes.
  if (file_bytes < 96) {
    return "truncated: " + std::to_string(file_bytes) + " bytes, less than an HDF5 superblock";
  }
  return why;
}

}  // namespace

std::string canonical_location(const std::string& location) {
  const std::size_t length = scheme_length(location);
  if (length == 0) return location;
  std::string scheme = location.substr(0, length);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "s3" && scheme != "http" && scheme != "https") {
    throw_usage(display_name(location) + ": unsupported scheme \"" + printable(scheme) +
                "\" (a path, s3://BUCKET/KEY, or an http:// or https:// URL)");
  }
  return scheme + location.substr(length);
}

bool is_remote(const std::string& location) { return scheme_length(location) > 0; }

std::string display_name(const std::string& location) {
  if (scheme_length(location) == 0) return printable(location);
  return printable(io::redact_url(location));
}

OpenedSource open_source(const std::string& given, const SourceOptions& options) {
  const std::string location = canonical_location(given);
  h5::initialize();
  OpenedSource source;
  if (location.rfind("s3://", 0) == 0) {
    const io::S3Location object = io::parse_s3_url(location);
    const io::S3Request request =
        io::s3_request(object, options.sign_requests, io::process_environment());
    io::HttpOptions http = request.options;
    http.deadline = options.deadline;
    http.allow_link_local = options.allow_link_local;
    source.display_name = display_name(location);
    source.bytes = io::open_http(request.url, source.display_name, http);
  } else if (is_http_url(location)) {
    io::HttpOptions http = io::http_options(io::process_environment());
    http.deadline = options.deadline;
    http.allow_link_local = options.allow_link_local;
    source.display_name = display_name(location);
    source.bytes = io::open_http(location, source.display_name, http);
  } else {
    require_readable_file(location);
    source.display_name = display_name(location);
    source.bytes = io::open_local_file(location);
  }
  if (options.deadline) {
    source.bytes = io::with_deadline(std::move(source.bytes), *options.deadline, source.display_name);
  }
  return open_bytes(std::move(source.bytes), source.display_name);
}

OpenedSource open_bytes(std::unique_ptr<io::ByteSource> bytes, const std::string& name) {
  h5::initialize();
  OpenedSource source;
  source.bytes = std::move(bytes);
  source.display_name = name;
  source.file_bytes = source.bytes->size();
  try {
    source.file = h5::open_file(*source.bytes, name);
  } catch (const h5::Failure& failure) {
    // Only now ask why: checking the signature first would cost every
    // successful open a read.
    if (!has_hdf5_signature(*source.bytes)) {
      throw_invalid(name + ": not an HDF5 file (no HDF5 signature found)");
    }
    throw_invalid(name + ": " + open_failure(failure.what(), source.file_bytes));
  }
  return source;
}

}  // namespace h5ad_sizer
