#pragma once

#include <hdf5.h>

namespace h5ad_sizer::h5 {

// Owns one HDF5 identifier (file, group, dataset, type, space, attribute or
// property list) and releases it on destruction. Move-only, like a file
// descriptor: a read-only walk never needs shared ownership.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : m_id(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : m_id(other.release()) {}
  Handle& operator=(Handle&& other) noexcept;
  ~Handle() { reset(); }

  hid_t get() const { return m_id; }
  explicit operator bool() const { return m_id >= 0; }
  // Gives up ownership without closing.
  hid_t release();
  // Closes now. Never throws: a failed close is logged, not raised.
  void reset();

 private:
  hid_t m_id = H5I_INVALID_HID;
};

}  // namespace h5ad_sizer::h5
