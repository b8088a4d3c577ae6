#include "h5ad_sizer/h5/lzf_filter.hpp"

#include <hdf5.h>
#include <lzf.h>

#include <cerrno>
#include <cstdlib>

namespace h5ad_sizer::h5 {
namespace {

// Refuse chunks that claim to inflate beyond this: a corrupt or hostile file
// must not make us allocate without bound.
constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 30;

std::size_t lzf_decompress_chunk(unsigned flags, std::size_t n_values, const unsigned values[],
                                 std::size_t n_bytes, std::size_t* buffer_size, void** buffer) {
  if ((flags & H5Z_FLAG_REVERSE) == 0) return 0;  // we only read
  // h5py records the uncompressed chunk size as the third parameter; without
  // it, start from the compressed size and grow.
  std::size_t out_size = n_values >= 3 && values[2] != 0 ? values[2] : *buffer_size;
  while (out_size <= kMaxChunkBytes) {
    void* out = std::malloc(out_size);
    if (out == nullptr) return 0;
    const unsigned produced = lzf_decompress(*buffer, static_cast<unsigned>(n_bytes), out,
                                             static_cast<unsigned>(out_size));
    if (produced != 0) {
      std::free(*buffer);
      *buffer = out;
      *buffer_size = out_size;
      return produced;
    }
    std::free(out);
    if (errno != E2BIG) return 0;  // EINVAL: corrupt data
    out_size += *buffer_size;
  }
  return 0;
}

}  // namespace

void register_lzf_filter() {
  static const H5Z_class2_t lzf = {
      H5Z_CLASS_T_VERS,
      static_cast<H5Z_filter_t>(kLzfFilterId),
      1,  // encoder present (HDF5 insists); it never compresses
      1,  // decoder present
      "lzf (h5ad-sizer, read-only)",
      nullptr,
      nullptr,
      lzf_decompress_chunk,
  };
  H5Zregister(&lzf);
}

}  // namespace h5ad_sizer::h5
