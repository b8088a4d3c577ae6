#include "h5ad_sizer/h5/handle.hpp"

#include <spdlog/spdlog.h>

namespace h5ad_sizer::h5 {

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    m_id = other.release();
  }
  return *this;
}

hid_t Handle::release() {
  hid_t id = m_id;
  m_id = H5I_INVALID_HID;
  return id;
}

void Handle::reset() {
  if (m_id < 0) return;
  // H5Idec_ref closes any kind of identifier once its count reaches zero.
  if (H5Idec_ref(m_id) < 0) spdlog::debug("failed to release HDF5 identifier {}", m_id);
  m_id = H5I_INVALID_HID;
}

}  // namespace h5ad_sizer::h5
