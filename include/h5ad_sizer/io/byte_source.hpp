#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace h5ad_sizer::io {

// What reading a file cost: the figures `size --stats` reports.
struct IoStats {
  std::uint64_t requests = 0;    // reads that reached the file or the server
  std::uint64_t bytes_read = 0;  // bytes those reads fetched
  // The requests one had to wait for after another: requests made
  // concurrently (a prefetch) count once a round. What latency multiplies.
  std::uint64_t round_trips = 0;
  // The distinct bytes the reader asked for (ReadFootprint): what any way
  // of fetching must bring at least. Over HTTP, bytes_read less this is
  // what fetching ahead read besides.
  std::uint64_t bytes_wanted = 0;
  double seconds = 0;            // time spent in them
};

// Bytes [offset, offset + length) of a source.
struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

// Random-access bytes: a local file, or an object behind HTTP(S)/S3. HDF5
// reads through one of these (src/h5/source_driver.cpp), and so do the
// string-length reads. Implementations throw Error on failure.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() = 0;
  // Fills `out` with `length` bytes from `offset`; the range lies inside
  // size() (HDF5 never asks past the end of the file).
  virtual void read(std::uint64_t offset, std::size_t length, void* out) = 0;
  virtual const IoStats& stats() const = 0;
  // Whether prefetch() fetches anything: only then is finding out what to
  // prefetch worth its reads (a local file answers each read at once).
  virtual bool fetches_ahead() const { return false; }
  // Brings `ranges` in before they are read, all at once where the source
  // can (concurrent requests). A hint: it never throws for what it could
  // not fetch, and a later read() of those bytes fetches them as usual.
  // Returns the bytes it asked for.
  virtual std::uint64_t prefetch(const std::vector<ByteRange>& ranges) {
    (void)ranges;
    return 0;
  }
};

using Deadline = std::chrono::steady_clock::time_point;

// `source`, refusing every read once `deadline` has passed with
// Error(input_unreadable) "NAME: time limit reached". A Lambda invocation
// uses it to stop reading before its own deadline and still answer.
std::unique_ptr<ByteSource> with_deadline(std::unique_ptr<ByteSource> source, Deadline deadline,
                                          std::string name);

// Bytes already in memory (a fuzzer's input, a test's file image); the
// source keeps its own copy.
std::unique_ptr<ByteSource> open_memory(std::string bytes);

// A local file read with pread. Throws Error(input_unreadable) when it
// cannot be opened.
std::unique_ptr<ByteSource> open_local_file(const std::string& path);

}  // namespace h5ad_sizer::io
