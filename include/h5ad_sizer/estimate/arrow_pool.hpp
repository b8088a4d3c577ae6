#pragma once

#include <cstdint>
#include <vector>

namespace h5ad_sizer {

// pyarrow's memory pool while a frame is read under pandas 3: it keeps the
// buffers it served once they are freed, and a later build reuses them
// where they are at least as large as the buffer it grows to (an Arrow
// string builder's text, doubled until it fits); a build of larger buffers
// maps new memory beside them. Measured with bench/accuracy/steps.py
// --in-order under anndata 0.13 (a frame's nullable-string columns read one
// after another, each converted to Arrow as read): a second column whose
// text buffer grows to the first's 16 MiB stood 10.6 MiB above the first's
// Arrow array and its own peak read alone, one growing to 32 MiB 31.4 MiB
// above, the first's 16 MiB among them. A build whose buffers are not
// modelled (categories' conversions, `block` 0) is held as after any read
// (read_costs::held_after).
class ArrowPool {
 public:
  // What the pool holds beside a build of `bytes` whose largest buffer is
  // `block`: all it served so far, less what that build reuses.
  std::uint64_t beside(std::uint64_t bytes, std::uint64_t block) const;
  // A build of `bytes` returned to the pool.
  void add(std::uint64_t bytes, std::uint64_t block);

 private:
  struct Build {
    std::uint64_t bytes;
    std::uint64_t block;
  };
  std::vector<Build> builds_;
  std::uint64_t untracked_ = 0;
};

}  // namespace h5ad_sizer
