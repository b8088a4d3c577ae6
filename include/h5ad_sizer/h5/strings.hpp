#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/h5/types.hpp"
#include "h5ad_sizer/h5/vlen_lengths.hpp"

namespace h5ad_sizer::h5 {

// The text of variable-length strings lives in the file's global heap, not in
// the dataset, so their lengths are not metadata. We sample: the byte length
// of many strings (from the dataset's own heap references, when its storage
// can be read raw) and the text of a few, which tells ASCII from wider text.
struct StringSample {
  std::vector<std::string> texts;  // sampled strings read in full
  // Byte lengths of sampled strings too large to read under the limits; only
  // their size is known (HDF5 asks our allocator for it before copying).
  std::vector<std::uint64_t> oversized_lengths;
  // Byte lengths of a larger sample, from the heap references; empty when
  // the storage could not be read raw (texts then carry the whole sample).
  std::vector<std::uint64_t> lengths;
  std::uint64_t population = 0;  // how many strings the dataset holds

  // How many strings the sample describes.
  std::size_t size() const {
    return lengths.empty() ? texts.size() + oversized_lengths.size() : lengths.size();
  }
};

// `count` times the mean of cost(byte length) over the sampled strings,
// rounded up (cost(0) for an empty sample): a per-string figure scaled from
// the sample to the dataset.
template <typename Cost>
std::uint64_t scaled_mean(std::uint64_t count, const StringSample& sample, Cost cost) {
  if (count == 0) return 0;
  std::uint64_t total = 0;
  std::uint64_t sampled = 0;
  auto add = [&](std::uint64_t length) {
    total = checked_add(total, cost(length));
    ++sampled;
  };
  if (!sample.lengths.empty()) {
    for (auto length : sample.lengths) add(length);
  } else {
    for (const auto& text : sample.texts) add(text.size());
    for (auto length : sample.oversized_lengths) add(length);
  }
  const std::uint64_t mean = sampled == 0 ? cost(0) : (total + sampled - 1) / sampled;
  return checked_mul(count, mean);
}

struct SampleLimits {
  std::size_t max_strings = 1024;              // spread over runs through the dataset
  // Contiguous runs, spread from the first element to the last. Each run is
  // a read (a request over HTTP, a chunk to decompress); two see both ends
  // of an index, where numbered names are shortest and longest.
  std::size_t runs = 2;
  std::size_t texts_with_lengths = 64;          // text read when lengths come from references
  std::size_t max_string_bytes = 1u << 20;      // a longer string is measured, not copied
  std::size_t max_total_bytes = 16u << 20;      // memory for one sample, all strings
};

// Samples the strings of a string dataset, or of the string member `member`
// of a compound dataset (legacy dataframes). `heap` is the file's (one for
// every dataset of a file read; nullptr makes one for this call). Throws
// Failure when the heap cannot be read (a corrupt file).
StringSample sample_strings(hid_t dataset, const DatasetInfo& info, const std::string& member,
                            const SampleLimits& limits = {}, StringHeap* heap = nullptr);

// The same sample of a scalar or one-dimensional variable-length string
// dataset (or string member `member` of a record array stored as `records`
// says) not opened through HDF5, whose contiguous data lies at
// `data_address` (in the file's address space): references from there, texts
// from the heap. nullopt when HDF5 must read it (then sample_strings does).
// Throws Failure as StringHeap::references does.
std::optional<StringSample> sample_strings_at(StringHeap& heap, const DatasetInfo& info, std::uint64_t data_address,
                                              const std::string& member = "", const RecordLayout& records = {},
                                              const SampleLimits& limits = {});

// Which flat element indices a sample of `population` reads.
std::vector<std::uint64_t> sample_indices(std::uint64_t population, const SampleLimits& limits);

}  // namespace h5ad_sizer::h5
