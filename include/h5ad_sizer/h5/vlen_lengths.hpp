#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace h5ad_sizer::h5 {

// Byte lengths of the variable-length strings at the flat indices `flat` of a
// one-dimensional string dataset, or of its string member `member` when it is
// a compound, read from the dataset's own storage. Each string there is a
// heap reference {uint32 length, address, uint32 index},
// so the lengths cost 16 bytes per string and no global-heap access (which
// is what makes reading the text itself slow: a collection is loaded and
// parsed for every few hundred strings).
//
// nullopt when the storage cannot be read raw: compact layout, a driver we
// cannot read through, a filter we cannot undo, a member inside a nested
// type. Callers then read the text.
// Throws Failure on a corrupt chunk.
std::optional<std::vector<std::uint64_t>> read_vlen_lengths(hid_t dataset,
                                                            const std::vector<std::uint64_t>& flat,
                                                            const std::string& member = "");

}  // namespace h5ad_sizer::h5
