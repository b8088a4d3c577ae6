#pragma once

#include <cstdint>
#include <map>

namespace h5ad_sizer::io {

// The distinct bytes a source was asked for: the union of the ranges read,
// however often and in whatever pieces. It is what any fetch plan has to
// bring, so a remote source's bytes_read over it is what fetching ahead
// cost (docs/remote.md compares the two on the uns-heavy file).
class ReadFootprint {
 public:
  void add(std::uint64_t offset, std::uint64_t length);
  std::uint64_t bytes() const { return m_bytes; }
  // Disjoint, non-adjacent ranges the union is made of.
  std::size_t ranges() const { return m_ranges.size(); }

 private:
  std::map<std::uint64_t, std::uint64_t> m_ranges;  // start -> end (exclusive)
  std::uint64_t m_bytes = 0;
};

}  // namespace h5ad_sizer::io
