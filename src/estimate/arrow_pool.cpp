#include "h5ad_sizer/estimate/arrow_pool.hpp"

#include <algorithm>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/estimate/read_costs.hpp"

namespace h5ad_sizer {

std::uint64_t ArrowPool::beside(std::uint64_t bytes, std::uint64_t block) const {
  std::uint64_t held = read_costs::held_after(untracked_);
  std::uint64_t reusable = 0;
  for (const Build& build : builds_) {
    held = checked_add(held, build.bytes);
    if (block > 0 && build.block >= block) reusable = checked_add(reusable, build.bytes);
  }
  return held - std::min(reusable, bytes);
}

void ArrowPool::add(std::uint64_t bytes, std::uint64_t block) {
  if (bytes == 0) return;
  if (block == 0) {
    untracked_ = checked_add(untracked_, bytes);
    return;
  }
  // The build's memory was taken from the buffers it could reuse: they are
  // its own now, returned with it.
  std::uint64_t needed = bytes;
  for (Build& build : builds_) {
    if (needed == 0) break;
    if (build.block < block) continue;
    const std::uint64_t taken = std::min(needed, build.bytes);
    build.bytes -= taken;
    needed -= taken;
  }
  builds_.push_back({bytes, block});
}

}  // namespace h5ad_sizer
