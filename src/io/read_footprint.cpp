#include "h5ad_sizer/io/read_footprint.hpp"

#include <algorithm>
#ifdef H5AD_SIZER_TRACE_READS
#include <cstdio>
#endif

namespace h5ad_sizer::io {

void ReadFootprint::add(std::uint64_t offset, std::uint64_t length) {
  if (length == 0) return;
#ifdef H5AD_SIZER_TRACE_READS
  std::fprintf(stderr, "read %llu %llu\n", static_cast<unsigned long long>(offset),
               static_cast<unsigned long long>(length));
#endif
  std::uint64_t start = offset;
  // Sources refuse a read past their end before it gets here, so this end
  // cannot wrap; clamp anyway rather than trust every caller.
  std::uint64_t end = length > UINT64_MAX - offset ? UINT64_MAX : offset + length;
  // The first range that could touch [start, end): the last one starting at
  // or before `start`, if it reaches it.
  auto it = m_ranges.upper_bound(start);
  if (it != m_ranges.begin()) {
    const auto before = std::prev(it);
    if (before->second >= start) {
      if (before->second >= end) return;  // already held whole (the usual case: HDF5 reads again)
      it = before;
    }
  }
  // Swallow every range that overlaps or adjoins [start, end).
  while (it != m_ranges.end() && it->first <= end) {
    start = std::min(start, it->first);
    end = std::max(end, it->second);
    m_bytes -= it->second - it->first;
    it = m_ranges.erase(it);
  }
  m_ranges.emplace(start, end);
  m_bytes += end - start;
}

}  // namespace h5ad_sizer::io
