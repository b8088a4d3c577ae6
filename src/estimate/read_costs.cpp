#include "h5ad_sizer/estimate/read_costs.hpp"

#include <algorithm>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer::read_costs {
namespace {

// Measured in docs/memory-model.md ("Transients").
constexpr std::uint64_t kReadStartup = 2750u << 10;
// HDF5's per-file read buffers at their largest: the metadata accumulator
// (H5F_ACCUM_MAX_SIZE, 1 MiB) and the data sieve buffer (64 KiB). A nearly
// empty file, where kReadStartup was measured, barely fills them.
constexpr std::uint64_t kFileBuffers = (1u << 20) + (64u << 10);
constexpr std::uint64_t kPerDatasetRead = 8704;
// The same read peaks differently in fresh processes: dense_f16 under
// anndata 0.10 at 177.34 to 178.72 MB in 15 runs, in two groups about
// 1.1 MB apart whatever PYTHONHASHSEED is (dense_f32 and
// dense_uncompressed_big_var within 0.4 MB). The estimate is meant to be
// above the highest, not the mean.
constexpr std::uint64_t kRunToRunSpread = 1536u << 10;
constexpr std::uint64_t kPerChunk = 4200;
constexpr std::uint64_t kChunkCache = 1126u << 10;
constexpr std::uint64_t kFilterBuffers = 1434u << 10;
// HDF5 converts a string array in batches that fill its 1 MiB type-
// conversion buffer: 65536 16-byte heap references. Within a batch every
// string costs 115 bytes more, and every read 1.25 MiB of buffers.
constexpr std::uint64_t kConversionBatch = 65536;
constexpr std::uint64_t kPerBatchString = 115;
constexpr std::uint64_t kStringReadBuffers = 1280u << 10;

// glibc malloc: 8 bytes of header, 16-byte granules, 32 bytes at least.
std::uint64_t malloc_chunk(std::uint64_t n) { return std::max<std::uint64_t>(32, roundup16(n + 8)); }

std::uint64_t bytes_object(std::uint64_t length) { return roundup16(33 + length); }

// A string of an array: its bytes object, its C string, and 16 bytes of
// pointer slots (the bytes array and the list, which over-allocates).
std::uint64_t array_string(std::uint64_t length) {
  return bytes_object(length) + malloc_chunk(length + 1) + 16;
}

}  // namespace

std::uint64_t read_overhead(std::uint64_t datasets) {
  return checked_add(kReadStartup + kFileBuffers + kRunToRunSpread, checked_mul(datasets, kPerDatasetRead));
}

std::uint64_t held_after_strings(std::uint64_t temporaries) {
  return checked_scale(temporaries, kStringTemporariesHeld);
}

std::uint64_t held_after(std::uint64_t temporaries) { return checked_scale(temporaries, kPythonTemporariesHeld); }

std::uint64_t held_after_release(std::uint64_t released) { return checked_scale(released, kReleasedHeld); }

std::uint64_t chunked_dataset(std::uint64_t chunks, bool compressed) {
  return checked_add(checked_mul(chunks, kPerChunk), kChunkCache + (compressed ? kFilterBuffers : 0));
}

std::uint64_t dataset(const h5::DatasetInfo& info) {
  return info.chunked ? chunked_dataset(info.chunks, info.compressed) : 0;
}

std::uint64_t string_objects(std::uint64_t count, const h5::StringSample& sample) {
  return h5::scaled_mean(count, sample, array_string);
}

std::uint64_t record_strings(std::uint64_t count, const h5::StringSample& sample) {
  return h5::scaled_mean(count, sample, bytes_object);
}

std::uint64_t string_array_conversion(std::uint64_t count) {
  return std::min(count, kConversionBatch) * kPerBatchString + kStringReadBuffers;
}

std::uint64_t record_conversion() { return kStringReadBuffers; }

}  // namespace h5ad_sizer::read_costs
